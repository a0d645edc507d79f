/* Implements `kvbench plan`: option parsing around kvb_plan_print. */
#include "cli/cli.h"
#include "core/metric_alias.h"
#include "core/util.h"
#include "report/sizing.h"
#include "stats/stats.h"

#include <stdio.h>
#include <string.h>

static const char *const synopsis[] = { "plan [<options>]", NULL };

static const struct kvb_option options[] = {
	KVB_OPT_DB(),
	KVB_OPT_VALUE('r', "run", "id", "the run whose variance is used (default the latest)"),
	KVB_OPT_VALUE('m', "metric", "glob", "only metrics matching the fnmatch glob"),
	KVB_OPT_VALUE('w', "workload", "name", "only this workload"),
	KVB_OPT_VALUE('D', "detect", "pct", "the change to detect with 80% power, in % (default 5)"),
	KVB_OPT_VALUE('a', "alpha", "a", "significance level (default 0.05)"),
	KVB_OPT_VALUE('B', "boot-cost", "s", "seconds a boot costs, where the DB has none (imported results)"),
	KVB_OPT_VALUE('R', "run-cost", "s", "seconds a run costs, where the DB has none"),
	KVB_OPT_END(),
};

const struct kvb_cmd_usage kvb_usage_plan = {
	synopsis, options,
	"Per metric and variant with >= 2 boots: boot-to-boot and run-to-run variance components,\n"
	"the boot and job times measured in the DB, Kalibera & Jones' optimal runs per boot and the\n"
	"boots per variant that detect a --detect PCT change with 80% power.\n",
	NULL,
};

int kvb_cmd_plan(struct kvb_cli *cli, int argc, char **argv)
{
	struct kvb_getopt g;
	struct kvb_plan_opts o;
	int64_t run = 0;
	struct kvb_store *st = NULL;
	struct kvb_error err;
	int c, rc;

	memset(&o, 0, sizeof(o));
	o.detect = 0.05;
	o.alpha = KVB_STATS_ALPHA;
	o.power = 0.8;
	if (kvb_getopt_init(&g, "plan", &kvb_usage_plan, NULL))
		return KVB_EINTERNAL;
	while ((c = kvb_getopt_next(&g, argc, argv)) != -1) {
		switch (c) {
		case 'r':
			if (kvb_parse_i64(optarg, &run) || run < 1)
				return kvb_cli_usage("plan", "--run '%s': expected a run id", optarg);
			break;
		case 'm': o.sel.metric_glob = kvb_metric_alias(optarg) ? kvb_metric_alias(optarg) : optarg; break;
		case 'w': o.sel.workload = optarg; break;
		case 'D':
			if (kvb_parse_double(optarg, &o.detect) || !(o.detect > 0 && o.detect < 100))
				return kvb_cli_usage("plan", "--detect '%s': expected a percentage between 0 and 100", optarg);
			o.detect /= 100;
			break;
		case 'a':
			if (kvb_parse_double(optarg, &o.alpha) || !(o.alpha > 0 && o.alpha < 1))
				return kvb_cli_usage("plan", "--alpha '%s': expected a number between 0 and 1", optarg);
			break;
		case 'B':
		case 'R': {
			double x;
			if (kvb_parse_double(optarg, &x) || !(x > 0))
				return kvb_cli_usage("plan", "--%s '%s': expected seconds > 0", c == 'B' ? "boot-cost" : "run-cost",
						     optarg);
			*(c == 'B' ? &o.boot_cost_s : &o.run_cost_s) = x;
			break;
		}
		default: return kvb_getopt_bad(&g, argv);
		}
	}
	if (optind < argc)
		return kvb_cli_usage("plan", "unexpected argument '%s'", argv[optind]);
	if (run) {
		o.sel.runs = &run;
		o.sel.nruns = 1;
	}
	if ((rc = kvb_cli_store(cli, &st, &err)) || (rc = kvb_plan_print(st, &o, stdout, &err)))
		kvb_cli_fail(&err);
	return rc;
}
