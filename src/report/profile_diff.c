/* Implements `kvbench profile`: two variants' profiles by function, per operation (profile_diff.h). */
#include "report/profile_diff.h"
#include "core/tbcount.h"
#include "core/util.h"
#include "store/profile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What a row is called: a kernel function by its name, anything else with its dso. */
static char *row_name(const struct kvb_profile_sym *s)
{
	if (s->mode == 'k')
		return kvb_xstrdup(s->symbol);
	return kvb_xasprintf("%s (%s)", s->symbol, s->dso);
}

/* samples -> per operation: period / ops (or / jobs when the operations are unknown) */
static double scale(const struct kvb_profile *p, size_t jobs)
{
	if (!p)
		return 0;
	if (p->ops > 0)
		return (double)p->period / p->ops;
	return jobs ? (double)p->period / (double)jobs : 0;
}

static int by_diff(const void *x, const void *y)
{
	const struct kvb_profile_diff_row *a = x, *b = y;
	double da = fabs(a->diff), db = fabs(b->diff);
	if (da != db)
		return da > db ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int by_name(const void *x, const void *y)
{
	return strcmp(((const struct kvb_profile_diff_row *)x)->name, ((const struct kvb_profile_diff_row *)y)->name);
}

/* Rows named alike (a user symbol's name with its dso, every kernel function once) added into one. */
static size_t merge(struct kvb_profile_diff_row *r, size_t n)
{
	size_t k = 0;
	qsort(r, n, sizeof(*r), by_name);
	for (size_t i = 0; i < n; i++) {
		if (k && !strcmp(r[k - 1].name, r[i].name)) {
			r[k - 1].a += r[i].a;
			r[k - 1].b += r[i].b;
			r[k - 1].err2 += r[i].err2;
			free(r[i].name);
			continue;
		}
		r[k++] = r[i];
	}
	return k;
}

struct kvb_profile_diff_row *kvb_profile_diff_rows(const struct kvb_profile *a, size_t ja, const struct kvb_profile *b,
						   size_t jb, size_t *n)
{
	size_t na = a ? a->n : 0, nb = b ? b->n : 0, k = 0;
	struct kvb_profile_diff_row *r = kvb_xcalloc(na + nb + 1, sizeof(*r));
	double sa = scale(a, ja), sb = scale(b, jb);
	/* err2 holds the variance until the end: a count n has variance n (Poisson) */
	for (size_t i = 0; i < na; i++, k++) {
		r[k].name = row_name(&a->v[i]);
		r[k].a = (double)a->v[i].samples * sa;
		r[k].err2 = (double)a->v[i].samples * sa * sa;
	}
	for (size_t i = 0; i < nb; i++, k++) {
		r[k].name = row_name(&b->v[i]);
		r[k].b = (double)b->v[i].samples * sb;
		r[k].err2 = (double)b->v[i].samples * sb * sb;
	}
	k = merge(r, k);
	for (size_t i = 0; i < k; i++) {
		r[i].diff = b ? r[i].b - r[i].a : r[i].a;
		r[i].err2 = 2 * sqrt(r[i].err2);
	}
	qsort(r, k, sizeof(*r), by_diff);
	*n = k;
	return r;
}

/* 1: every instruction was counted (the board's counter): no sampling error to print */
static int counted(const struct kvb_profile *p)
{
	return p && p->event && !strcmp(p->event, KVB_TB_EVENT);
}

/* "3 jobs, 60000 loops, 5823 samples" */
static void side_line(FILE *out, const char *tag, const char *variant, const struct kvb_profile *p, size_t jobs)
{
	fprintf(out, "  %s = %s: %zu job%s, ", tag, variant, jobs, jobs == 1 ? "" : "s");
	if (p->ops > 0)
		fprintf(out, "%.0f %s%s, ", p->ops, p->op_name ? p->op_name : "op", p->ops == 1 ? "" : "s");
	else
		fprintf(out, "operations unknown (per job), ");
	fprintf(out, "%llu %s, kernel %llu (%.1f %% resolved)\n", (unsigned long long)p->samples,
		counted(p) ? "instructions" : "samples",
		(unsigned long long)p->kernel_samples,
		p->kernel_samples ? 100.0 * (double)p->kernel_resolved / (double)p->kernel_samples : 100.0);
}

static void num(FILE *out, double x, int sign)
{
	char buf[64];
	snprintf(buf, sizeof(buf), sign ? "%+.1f" : "%.1f", x);
	fprintf(out, " %12s", buf);
}

/* One spec's table. */
static void print_spec(FILE *out, const char *spec, const char *workload, const struct kvb_profile_diff_opts *o,
		       const char *va, const struct kvb_profile *a, size_t ja, const char *vb, const struct kvb_profile *b,
		       size_t jb)
{
	size_t n, shown;
	struct kvb_profile_diff_row *r = kvb_profile_diff_rows(a, ja, b, jb, &n);
	const char *per = a->ops > 0 && (!b || b->ops > 0) ? (a->op_name ? a->op_name : "op") : "job";
	double ta = 0, tb = 0;
	size_t w = 8;
	int exact = counted(a) && (!b || counted(b));
	shown = o->top && o->top < n ? o->top : n;
	for (size_t i = 0; i < n; i++) {
		ta += r[i].a;
		tb += r[i].b;
	}
	for (size_t i = 0; i < shown; i++)
		w = strlen(r[i].name) > w ? strlen(r[i].name) : w;
	w = w > 48 ? 48 : w;
	if (exact)
		fprintf(out, "%s (spec %s): %s per %s, every instruction counted (QEMU plugin kvb-tbcount)\n", workload, spec,
			a->unit, per);
	else
		fprintf(out, "%s (spec %s): %s per %s, %s every %llu ns\n", workload, spec, a->unit, per,
			a->event ? a->event : "samples", (unsigned long long)a->period);
	side_line(out, "A", va, a, ja);
	if (b)
		side_line(out, "B", vb, b, jb);
	fprintf(out, "%-*s %12s", (int)w, "function", "A");
	if (b)
		fprintf(out, " %12s %12s", "B", "B - A");
	if (b && !exact)
		fprintf(out, " %12s", "+-2 sigma");
	fputc('\n', out);
	for (size_t i = 0; i < shown; i++) {
		fprintf(out, "%-*.*s", (int)w, (int)w, r[i].name);
		num(out, r[i].a, 0);
		if (b) {
			num(out, r[i].b, 0);
			num(out, r[i].diff, 1);
			if (!exact)
				num(out, r[i].err2, 0);
			if (!exact && fabs(r[i].diff) > r[i].err2)
				fputs(" *", out);
		}
		fputc('\n', out);
	}
	fprintf(out, "%-*s", (int)w, "(all functions)");
	num(out, ta, 0);
	if (b) {
		num(out, tb, 0);
		num(out, tb - ta, 1);
	}
	fputc('\n', out);
	if (shown < n)
		fprintf(out, "  (%zu of %zu functions shown, by %s; --top N)\n", shown, n, b ? "|B - A|" : "A");
	if (b && !exact)
		fputs("  * the difference is beyond two standard deviations of its sample counts (Poisson)\n", out);
	fputc('\n', out);
	for (size_t i = 0; i < n; i++)
		free(r[i].name);
	free(r);
}

int kvb_profile_diff_print(struct kvb_store *s, const struct kvb_profile_diff_opts *o, FILE *out, struct kvb_error *err)
{
	struct kvb_strv specs = KVB_STRV_INIT, names = KVB_STRV_INIT;
	int64_t run = o->run_id;
	const char *va = o->a, *vb = o->b;
	size_t printed = 0;
	int rc;

	if (!run && (rc = kvb_store_latest_run(s, &run, err)))
		return rc;
	if ((rc = kvb_store_profile_variants(s, run, &names, err)) || (rc = kvb_store_profile_specs(s, run, &specs, err)))
		goto out;
	if (!names.n) {
		rc = kvb_error_set(err, KVB_ENOTFOUND,
				   "run %lld has no profile in a compared job (status ok or instrument-failed; run the agenda with "
				   "the profile instrument: config: {instruments: [profile]})",
				   (long long)run);
		goto out;
	}
	if (!va) {
		va = names.v[0];
		vb = names.n > 1 ? names.v[1] : NULL;
	}
	for (size_t i = 0; i < specs.n && !rc; i++) {
		char *spec = kvb_xstrdup(specs.v[i]), *workload = strchr(spec, '\t');
		struct kvb_profile *a = NULL, *b = NULL;
		size_t ja = 0, jb = 0;
		*workload++ = '\0';
		if (o->workload && strcmp(o->workload, workload)) {
			free(spec);
			continue;
		}
		rc = kvb_store_profile_sum(s, run, va, spec, &a, &ja, err);
		if (!rc && vb)
			rc = kvb_store_profile_sum(s, run, vb, spec, &b, &jb, err);
		if (!rc && a && (!vb || b)) {
			if (b && (a->period != b->period || strcmp(a->unit, b->unit)))
				rc = kvb_error_set(err, KVB_EINPUT,
						   "spec %s: %s sampled every %llu %s, %s every %llu %s: per-operation counts of "
						   "different periods or clocks are not compared",
						   spec, va, (unsigned long long)a->period, a->unit, vb, (unsigned long long)b->period,
						   b->unit);
			else
				print_spec(out, spec, workload, o, va, a, ja, vb, b, jb), printed++;
		}
		kvb_profile_free(a);
		kvb_profile_free(b);
		free(spec);
	}
	if (!rc && !printed)
		rc = kvb_error_set(err, KVB_ENOTFOUND, "run %lld: no workload spec%s with a profile in %s%s%s", (long long)run,
				   o->workload ? " of that workload" : "", va, vb ? " and in " : "", vb ? vb : "");
out:
	kvb_strv_release(&specs);
	kvb_strv_release(&names);
	return rc;
}
