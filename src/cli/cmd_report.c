/* Implements `kvbench report`: option parsing around kvb_page_write. */
#include "cli/cli.h"
#include "core/metric_alias.h"
#include "core/util.h"
#include "report/format.h"
#include "report/page.h"

#include <stdio.h>
#include <string.h>

static const char *const synopsis[] = { "report [<options>] -o <file.html>",
					 "report [<options>] --format <format> [-o <file>]", NULL };

static const struct kvb_option options[] = {
	KVB_OPT_DB(),
	KVB_OPT_VALUE('r', "run", "id", "a run to show (repeatable; default the latest)"),
	KVB_OPT_VALUE('b', "baseline", "variant", "the variant the others are compared with (default the first)"),
	KVB_OPT_SHORT('o', "output", "file", "where the page goes (- for stdout); required for html, the text\n"
					     "formats go to stdout without it, with no plot and no text about plots"),
	KVB_OPT_CHOICE('f', "format", "format", kvb_values_formats,
		       "@values@ (default html; the same sections, without plots in text)"),
	KVB_OPT_VALUE('P', "max-points", "n", "power over time decimated to N points per channel (default 1000)"),
	KVB_OPT_VALUE('m', "metric", "glob", "show only metrics matching the fnmatch glob (repeatable)"),
	KVB_OPT_VALUE('w', "workload", "glob", "show only workloads matching (repeatable)"),
	KVB_OPT_VALUE('V', "variant", "glob", "show only variants matching (repeatable; the baseline always shows)"),
	KVB_OPT_END(),
};

const struct kvb_cmd_usage kvb_usage_report = {
	synopsis, options,
	"A name passing any pattern of --metric, --workload or --variant passes.\n"
	"The page opens with a summary: every compared cell's change against the baseline with the\n"
	"95 % CI of that change (the numbers of diff --format json), coloured by verdict, the \"same\"\n"
	"margin shaded; a row links to its samples. Then the diff table, mmtests-style quantile rows per\n"
	"variant, a metric against a swept classifier, energy against performance, and for --series\n"
	"and bisect DBs the metric along the commits with its change points; per-job plots are folded.\n"
	"Run metadata (platform, agenda, kernels with sha256, the identity seen after each boot, cmdline,\n"
	"knobs), failures and events, the diff table with verdicts, and plots drawn with d3 (Debian\n"
	"node-d3, inlined): samples per metric as dots over a box coloured by boot, Jankbench\n"
	"frame-duration CDFs (keep_frames), power over time per channel per job and energy per job,\n"
	"rt-app slack and wake-up latency CDFs per task, per-CPU utilisation and frequency residency\n"
	"where the util and cpufreq instruments ran.\n"
	"The page needs no network. It is written to a temporary file renamed to FILE. -o - writes stdout.\n"
	"FILE must be new or a regular file (renamed over) or a FIFO (written into); the results DB\n"
	"itself (same device and inode), a symlink, a directory or a device is refused (exit 3).\n"
	"Exit 1 (page still written) when the runs have no result at all.\n",
	NULL,
};

int kvb_cmd_report(struct kvb_cli *cli, int argc, char **argv)
{
	struct kvb_getopt g;
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
	if (kvb_getopt_init(&g, "report", &kvb_usage_report, NULL))
		return KVB_EINTERNAL;
	while ((c = kvb_getopt_next(&g, argc, argv)) != -1) {
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
		default: return kvb_getopt_bad(&g, argv);
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
