/*
 * Implements exact two-sided group-sequential boundaries for a Lan-DeMets
 * spending function (O'Brien-Fleming type), by recursive numerical
 * integration of the test statistic's sub-density (Armitage, McPherson & Rowe 1969).
 */
#include "stats/verdict.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>

enum { GRID = 401 };

static double phi(double x)
{
	return exp(-0.5 * x * x) / sqrt(2 * M_PI);
}

/* P(cross at c | sub-density g on grid s[0..GRID-1], step h): integral of g(s) [Q(c - s) + Q(c + s)] ds. */
static double cross_prob(const double *s, const double *g, double h, double c)
{
	double acc = 0;
	for (int i = 0; i < GRID; i++) {
		double w = (i == 0 || i == GRID - 1) ? 0.5 : 1; /* trapezoid */
		acc += w * g[i] * (gsl_cdf_ugaussian_Q(c - s[i]) + gsl_cdf_ugaussian_Q(c + s[i]));
	}
	return acc * h;
}

enum kvb_err kvb_seq_bounds(double alpha, unsigned K, double *nominal)
{
	double *s = malloc(GRID * sizeof(double)), *g = malloc(GRID * sizeof(double));
	double *s2 = malloc(GRID * sizeof(double)), *g2 = malloc(GRID * sizeof(double)), h = 0, c = 0;
	if (!s || !g || !s2 || !g2 || !K || !(alpha > 0 && alpha < 1)) {
		free(s), free(g), free(s2), free(g2);
		return KVB_EINPUT;
	}
	/* S_k: sum of k independent N(0, 1) steps (equal information per look); Z_k = S_k / sqrt(k) */
	for (unsigned k = 1; k <= K; k++) {
		double spend = kvb_alpha_spent_obf(alpha, (double)k / K) - kvb_alpha_spent_obf(alpha, (double)(k - 1) / K);
		if (k == 1) {
			c = gsl_cdf_ugaussian_Qinv(spend / 2);
		} else {
			/* bisection on c (S scale): crossing probability falls as c grows */
			double lo = 0, hi = 40;
			for (int it = 0; it < 100; it++) {
				double mid = (lo + hi) / 2;
				if (cross_prob(s, g, h, mid) > spend)
					lo = mid;
				else
					hi = mid;
			}
			c = (lo + hi) / 2;
		}
		nominal[k - 1] = 2 * gsl_cdf_ugaussian_Q(c / sqrt((double)k));
		if (k == K)
			break;
		/* continuation sub-density on (-c, c) for the next look */
		double h2 = 2 * c / (GRID - 1);
		for (int i = 0; i < GRID; i++) {
			s2[i] = -c + i * h2;
			if (k == 1) {
				g2[i] = phi(s2[i]);
			} else {
				double acc = 0;
				for (int j = 0; j < GRID; j++)
					acc += ((j == 0 || j == GRID - 1) ? 0.5 : 1) * g[j] * phi(s2[i] - s[j]);
				g2[i] = acc * h;
			}
		}
		double *t = s;
		s = s2, s2 = t;
		t = g, g = g2, g2 = t;
		h = h2;
	}
	free(s), free(g), free(s2), free(g2);
	return KVB_OK;
}
