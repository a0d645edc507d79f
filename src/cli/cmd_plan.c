/* Implements `kvbench plan`: option parsing around kvb_plan_print. */
#include "cli/cli.h"
#include "core/metric_alias.h"
#include "core/util.h"
#include "report/sizing.h"
#include "stats/stats.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

int cmd_plan(struct kvb_cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "run", required_argument, NULL, 'r' },
		{ "metric", required_argument, NULL, 'm' },    { "workload", required_argument, NULL, 'w' },
		{ "detect", required_argument, NULL, 'D' },    { "alpha", required_argument, NULL, 'a' },
		{ "boot-cost", required_argument, NULL, 'B' }, { "run-cost", required_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 },
	};
	struct kvb_plan_opts o;
	int64_t run = 0;
	struct kvb_store *st = NULL;
	struct kvb_error err;
	int c, rc;

	memset(&o, 0, sizeof(o));
	o.detect = 0.05;
	o.alpha = KVB_STATS_ALPHA;
	o.power = 0.8;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
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
		default: return kvb_cli_usage("plan", "unknown option");
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
