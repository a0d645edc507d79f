/* Implements `kvbench diff`: option parsing around kvb_diff_print. */
#include "cli/cli.h"
#include "core/metric_alias.h"
#include "results/pload.h"
#include "core/util.h"
#include "report/diff.h"
#include "report/format.h"
#include "report/series.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const synopsis[] = { "diff [<options>]", "diff --series [<options>]", NULL };

static const struct kvb_option options[] = {
	KVB_OPT_DB(),
	KVB_OPT_VALUE('r', "run", "id", "the run to compare (repeatable: runs side by side; default the latest)"),
	KVB_OPT_VALUE('b', "baseline", "variant", "the variant the others are compared with (default the first)"),
	KVB_OPT_VALUE('B', "by", "key", "spread a classifier into columns (cgroup_depth -> root, level1, ...)"),
	KVB_OPT_VALUE('m', "metric", "glob", "only metrics matching the fnmatch glob (repeatable:\n"
					     "--metric ops_per_sec --metric time is pipe and hackbench together)"),
	KVB_OPT_VALUE('w', "workload", "name", "only this workload"),
	KVB_OPT_CHOICE('s', "stat", "stat", kvb_values_stats, "the statistic compared: @values@ (default mean)"),
	KVB_OPT_VALUE('a', "alpha", "a", "significance level (default 0.05)"),
	KVB_OPT_VALUE('M', "margin", "pct", "\"same\" when the change's 95% CI is within +-PCT %\n"
					    "(default the agenda's config.margins, else 1)"),
	KVB_OPT_SHORT_CHOICE('f', "format", "format", kvb_values_formats, "output format: @values@ (default table)"),
	KVB_OPT_CHOICE('l', "layout", "layout", kvb_values_layouts, "table layout: @values@ (default long)"),
	KVB_OPT_FLAG('S', "series", "a run made with `run --series`: each commit against the first and\nagainst its parent"),
	KVB_OPT_FLAG('A', "all", "every metric group, the instruments' too (table, markdown: without\n--metric or --workload the table is a front page of the workloads' metrics and energy)"),
	KVB_OPT_END(),
};

const struct kvb_cmd_usage kvb_usage_diff = {
	synopsis, options,
	"Columns: n values, boots they came from, the statistic (--stat), stdev (n-1), CoV,\n"
	"perc_diff = (variant - baseline) / |baseline| x 100 (its sign is the direction, also for a\n"
	"negative baseline), p and verdict. With >= 2 boots per variant, p is Welch's on the boot\n"
	"means and a change is significant (*) when that p < alpha AND the hierarchical-bootstrap\n"
	"95% CI of the change excludes none (of the ratio where both sides stay positive, else of the\n"
	"difference). With one boot, p is the larger of Welch's and Mann-Whitney's (both must be\n"
	"< alpha); \"(1 boot)\" marks it when the variants ran in different boots. verdict: better /\n"
	"worse (significant; the direction from the difference's sign and lower_is_better), same (the\n"
	"95% CI of the change within +-margin), undecided (~N boots: the boots per variant estimated\n"
	"to decide it). cliff: Cliff's delta; a dagger marks multimodal runs.\n"
	"--stat median|p95: p and verdict test that statistic (a bootstrap of it over boots, then runs,\n"
	"and Welch on each boot's value; p95 from 20 runs a side); --stat min|max: untested, no p\n"
	"and no verdict (a bootstrap cannot test an extreme).\n"
	"--layout wide --by KEY: the mailing-list table, one per metric: rows are KEY's values (root,\n"
	"level1, ...), columns `mean(±cov%)` per variant and the diff per variant (* significant).\n"
	"--layout mail: a table to paste into a mail, one per metric: n once in its title, per variant\n"
	"`mean (±cov%)`, per compared variant the % diff (* significant) and the verdict word, the\n"
	"legend once at the end; two variants fit 80 columns (--format table or markdown).\n"
	"For people (table, markdown) rows come in the order of what changed: decided changes first,\n"
	"then undecided, then same; csv, tsv and json keep the order of the results.\n"
	"--format json carries every statistic, p-value, CI and the raw values.\n"
	"--series: each commit against the first and against its parent with the same verdict, and the\n"
	"commits where a metric shifts (E-Divisive, Matteson & James 2014; a permutation test at\n"
	"--alpha, default 0.05); --format table or json; --run, --metric, --workload, --stat, --alpha.\n",
	NULL,
};

int kvb_cmd_diff(struct kvb_cli *cli, int argc, char **argv)
{
	struct kvb_diff_opts o;
	int64_t runs[64];
	const char *metrics[64]; /* --metric is repeatable: pipe and hackbench in one table */
	size_t nmetrics = 0;
	size_t nruns = 0;
	struct kvb_store *st = NULL;
	struct kvb_error err;
	int c, rc, series = 0;
	const char *format = "table";

	memset(&o, 0, sizeof(o));
	o.layout = KVB_LAYOUT_LONG;
	o.alpha = KVB_STATS_ALPHA;
	struct kvb_getopt g;
	if (kvb_getopt_init(&g, "diff", &kvb_usage_diff, NULL))
		return KVB_EINTERNAL;
	while ((c = kvb_getopt_next(&g, argc, argv)) != -1) {
		int64_t v;
		switch (c) {
		case 'r':
			if (kvb_parse_i64(optarg, &v) || v < 1 || nruns == KVB_ARRAY_SIZE(runs))
				return kvb_cli_usage("diff", "--run '%s': expected a run id", optarg);
			runs[nruns++] = v;
			break;
		case 'b': o.sel.baseline = optarg; break;
		case 'B': o.sel.by = optarg; break;
		case 'm':
			if (nmetrics == KVB_ARRAY_SIZE(metrics))
				return kvb_cli_usage("diff", "--metric: at most %zu patterns", KVB_ARRAY_SIZE(metrics));
			metrics[nmetrics++] = optarg;
			break;
		case 'w': o.sel.workload = optarg; break;
		case 's':
			if (kvb_stat_parse(optarg, &o.stat))
				return kvb_getopt_bad_value(&g, c, optarg);
			break;
		case 'a':
			if (kvb_parse_double(optarg, &o.alpha) || !(o.alpha > 0 && o.alpha < 1))
				return kvb_cli_usage("diff", "--alpha '%s': expected a number between 0 and 1", optarg);
			break;
		case 'M':
			if (kvb_parse_double(optarg, &o.margin) || !(o.margin > 0 && o.margin < 100))
				return kvb_cli_usage("diff", "--margin '%s': expected a percentage between 0 and 100", optarg);
			o.margin /= 100;
			break;
		case 'f': format = optarg; break;
		case 'l':
			if (kvb_layout_parse(optarg, &o.layout))
				return kvb_getopt_bad_value(&g, c, optarg);
			break;
		case 'S': series = 1; break;
		case 'A': o.all = 1; break;
		default: return kvb_getopt_bad(&g, argv);
		}
	}
	if (optind < argc)
		return kvb_cli_usage("diff", "unexpected argument '%s'", argv[optind]);
	kvb_metric_alias_resolve(metrics, nmetrics);
	o.sel.metric_globs = metrics;
	o.sel.nmetric_globs = nmetrics;
	/* format and layout are resolved here, once: what computes and renders asks their bits */
	if (!(o.fmt = kvb_format_find(format, &err)))
		return kvb_cli_usage("diff", "%s", err.msg);
	if (o.layout == KVB_LAYOUT_MAIL && (series || !(o.fmt->caps & KVB_FMT_PROSE)))
		return kvb_cli_usage("diff", "--layout mail is text for people (--format table or markdown, no --series); "
				     "%s carries every column in --layout long or wide", series ? "--series" : o.fmt->name);
	o.sel.runs = runs;
	o.sel.nruns = nruns;
	rc = kvb_cli_store(cli, &st, &err);
	if (!rc)
		kvb_report_pload_warn(st, runs, nruns); /* rt-app variants calibrated differently */
	if (rc || (rc = (series ? kvb_series_print : kvb_diff_print)(st, &o, stdout, &err)))
		kvb_cli_fail(&err);
	return rc;
}
