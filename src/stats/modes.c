/* Implements mode counting on a smoothed kernel density estimate (Silverman bandwidth, prominence peaks). */
#include "stats/verdict.h"
#include "stats/stats.h"
#include "core/error.h"
#include "core/util.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { GRID = 1024 };

/* y := y convolved with a Gaussian of sigma grid points, truncated at 4 sigma, edges reflected. */
static void gauss_smooth(const double *y, double *out, size_t n, double sigma)
{
	int r = (int)ceil(4 * sigma);
	double *w = kvb_xmalloc((size_t)(2 * r + 1) * sizeof(double)), sum = 0;
	for (int k = -r; k <= r; k++)
		sum += w[k + r] = exp(-0.5 * (k / sigma) * (k / sigma));
	for (size_t i = 0; i < n; i++) {
		double acc = 0;
		for (int k = -r; k <= r; k++) {
			long j = (long)i + k;
			while (j < 0 || j >= (long)n) /* reflect, as scipy.ndimage's default mode */
				j = j < 0 ? -j - 1 : 2 * (long)n - j - 1;
			acc += w[k + r] * y[j];
		}
		out[i] = acc / sum;
	}
	free(w);
}

/* Prominence of the peak at i (scipy.signal.peak_prominences): height above the higher of the two bases. */
static double prominence(const double *y, size_t n, size_t i)
{
	double left = y[i], right = y[i];
	for (size_t j = i; j-- > 0 && y[j] <= y[i];)
		left = fmin(left, y[j]);
	for (size_t j = i + 1; j < n && y[j] <= y[i]; j++)
		right = fmin(right, y[j]);
	return y[i] - fmax(left, right);
}

static int cmp_desc(const void *a, const void *b, void *ctx)
{
	const double *y = ctx;
	double ya = y[*(const size_t *)a], yb = y[*(const size_t *)b];
	return ya < yb ? 1 : ya > yb ? -1 : 0;
}

int kvb_stats_count_modes(const double *x, size_t n, size_t *modes, struct kvb_error *err)
{
	int rc;
	if ((rc = kvb_stats_check_sample("sample", x, n, 1, err)))
		return rc;
	*modes = 1;
	if (n < 10)
		return KVB_OK;
	double mean = gsl_stats_mean(x, 1, n), sd = gsl_stats_sd_m(x, 1, n, mean);
	if (!(sd > 0))
		return KVB_OK;
	double *z = kvb_xmalloc(n * sizeof(double));
	for (size_t i = 0; i < n; i++)
		z[i] = (x[i] - mean) / sd;
	gsl_sort(z, 1, n);
	double iqr = gsl_stats_quantile_from_sorted_data(z, 1, n, 0.75) - gsl_stats_quantile_from_sorted_data(z, 1, n, 0.25);
	double spread = iqr > 0 ? fmin(1.0, iqr / 1.34) : 1.0;
	double bw = 0.9 * spread * pow((double)n, -0.2);
	double lo = z[0] - 3 * bw, hi = z[n - 1] + 3 * bw, dx = (hi - lo) / (GRID - 1);
	double *bins = kvb_xcalloc(GRID, sizeof(double)), *y = kvb_xcalloc(GRID, sizeof(double));
	double *ys = kvb_xcalloc(GRID, sizeof(double)), *dy = kvb_xcalloc(GRID, sizeof(double));
	size_t *peaks = kvb_xmalloc(GRID * sizeof(size_t)), np = 0, kept = 0;

	/* linear binning (each value split between its two grid points), then the kernel on the grid */
	for (size_t i = 0; i < n; i++) {
		double g = (z[i] - lo) / dx;
		size_t k = (size_t)g;
		if (k >= GRID - 1)
			k = GRID - 2;
		double f = g - (double)k;
		bins[k] += 1 - f;
		bins[k + 1] += f;
	}
	gauss_smooth(bins, y, GRID, bw / dx);
	gauss_smooth(y, ys, GRID, 2.0);

	double maxy = 0;
	for (size_t i = 0; i < GRID; i++) {
		maxy = fmax(maxy, ys[i]);
		/* np.gradient: central differences inside, one-sided at the ends; y scaled to a density */
		double d = i == 0 ? ys[1] - ys[0] : i == GRID - 1 ? ys[i] - ys[i - 1] : (ys[i + 1] - ys[i - 1]) / 2;
		dy[i] = fabs(d / dx);
	}
	gsl_sort(dy, 1, GRID);
	double noise = gsl_stats_quantile_from_sorted_data(dy, 1, GRID, 0.90);
	double prom_min = fmin(fmax(noise, 0.02 * maxy), 0.2 * maxy);
	size_t min_dist = (size_t)fmax(1, floor((hi - lo) * 0.05 / dx));

	/* local maxima (a plateau counts once, at its middle) with enough prominence */
	for (size_t i = 1; i + 1 < GRID; i++) {
		if (!(ys[i] > ys[i - 1]))
			continue;
		size_t j = i;
		while (j + 1 < GRID && ys[j + 1] == ys[i])
			j++;
		if (j + 1 < GRID && ys[j + 1] < ys[i]) {
			size_t mid = (i + j) / 2;
			if (prominence(ys, GRID, mid) >= prom_min)
				peaks[np++] = mid;
		}
		i = j;
	}
	/* distance: keep the highest peaks first, drop any within min_dist of a kept one */
	qsort_r(peaks, np, sizeof(*peaks), cmp_desc, ys);
	for (size_t a = 0; a < np; a++) {
		int ok = 1;
		for (size_t b = 0; b < kept && ok; b++)
			ok = (peaks[a] > peaks[b] ? peaks[a] - peaks[b] : peaks[b] - peaks[a]) >= min_dist;
		if (ok)
			peaks[kept++] = peaks[a];
	}
	*modes = kept ? kept : 1;
	free(z);
	free(bins);
	free(y);
	free(ys);
	free(dy);
	free(peaks);
	return KVB_OK;
}
