/* Implements `kvbench diff`: option parsing around kvb_diff_print. */
#include "cli/cli.h"
#include "core/metric_alias.h"
#include "results/pload.h"
#include "core/util.h"
#include "report/diff.h"
#include "report/format.h"
#include "report/series.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --layout's names, in enum kvb_layout's order (report/diff.h). */
static const char *const layouts[] = { "long", "wide", "mail" };

/* name -> *out; KVB_EUSAGE naming the layouts. */
static int parse_layout(const char *name, enum kvb_layout *out)
{
	for (size_t i = 0; i < KVB_ARRAY_SIZE(layouts); i++)
		if (!strcmp(name, layouts[i])) {
			*out = (enum kvb_layout)i;
			return KVB_OK;
		}
	return kvb_cli_usage("diff", "--layout '%s': expected long, wide or mail", name);
}

int cmd_diff(struct kvb_cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "run", required_argument, NULL, 'r' },
		{ "baseline", required_argument, NULL, 'b' }, { "by", required_argument, NULL, 'B' },
		{ "metric", required_argument, NULL, 'm' },   { "workload", required_argument, NULL, 'w' },
		{ "stat", required_argument, NULL, 's' },     { "alpha", required_argument, NULL, 'a' },
		{ "format", required_argument, NULL, 'f' },   { "layout", required_argument, NULL, 'l' },
		{ "margin", required_argument, NULL, 'M' },
		{ "series", no_argument, NULL, 'S' }, { "all", no_argument, NULL, 'A' },
		{ NULL, 0, NULL, 0 },
	};
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
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
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
				return kvb_cli_usage("diff", "--stat '%s': expected mean, median, max, min or p95", optarg);
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
			if ((rc = parse_layout(optarg, &o.layout)))
				return rc;
			break;
		case 'S': series = 1; break;
		case 'A': o.all = 1; break;
		default: return kvb_cli_bad_option("diff", opts, argv);
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
