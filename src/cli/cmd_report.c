/* Implements `kvbench report`: option parsing around kvb_page_write. */
#include "cli/cli.h"
#include "core/metric_alias.h"
#include "core/util.h"
#include "report/format.h"
#include "report/page.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

int cmd_report(struct kvb_cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "run", required_argument, NULL, 'r' },
		{ "baseline", required_argument, NULL, 'b' }, { "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'f' },   { "max-points", required_argument, NULL, 'P' },
		{ "metric", required_argument, NULL, 'm' },   { "workload", required_argument, NULL, 'w' },
		{ "variant", required_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct kvb_page_opts o;
	int64_t runs[64];
	const char *metrics[64], *workloads[64], *variants[64];
	struct kvb_store *st = NULL;
	struct kvb_error err;
	const struct kvb_format *fmt;
	int c, rc;

	memset(&o, 0, sizeof(o));
	o.runs = runs;
	o.metrics = metrics;
	o.workloads = workloads;
	o.variants = variants;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		int64_t v;
		switch (c) {
		case 'r':
			if (kvb_parse_i64(optarg, &v) || v < 1 || o.nruns == KVB_ARRAY_SIZE(runs))
				return kvb_cli_usage("report", "--run '%s': expected a run id", optarg);
			runs[o.nruns++] = v;
			break;
		case 'b': o.baseline = optarg; break;
		case 'm':
		case 'w':
		case 'V': {
			const char **v = c == 'm' ? metrics : c == 'w' ? workloads : variants;
			size_t *n = c == 'm' ? &o.nmetrics : c == 'w' ? &o.nworkloads : &o.nvariants;
			if (*n == KVB_ARRAY_SIZE(metrics))
				return kvb_cli_usage("report", "at most %zu patterns per option", KVB_ARRAY_SIZE(metrics));
			v[(*n)++] = optarg;
			break;
		}
		case 'o': o.out_path = optarg; break;
		case 'f': o.format = optarg; break;
		case 'P':
			if (kvb_parse_i64(optarg, &v) || v < 2 || v > 100000)
				return kvb_cli_usage("report", "--max-points '%s': expected 2..100000", optarg);
			o.max_points = (size_t)v;
			break;
		default: return kvb_cli_usage("report", "unknown option");
		}
	}
	kvb_metric_alias_resolve(metrics, o.nmetrics);
	if (optind < argc)
		return kvb_cli_usage("report", "unexpected argument '%s'", argv[optind]);
	if (!(fmt = kvb_format_find(o.format ? o.format : "html", &err)))
		return kvb_cli_usage("report", "%s", err.msg);
	/* a page with plots wants a file of its own; text formats go to stdout unless -o says otherwise */
	if (!o.out_path && (fmt->caps & KVB_FMT_PLOTS))
		return kvb_cli_usage("report", "-o FILE is required for --format %s ('-' for stdout)", fmt->name);
	if (!o.out_path)
		o.out_path = "-";
	if ((rc = kvb_cli_store(cli, &st, &err)) || (rc = kvb_page_write(st, &o, &err)))
		kvb_cli_fail(&err);
	return rc;
}
