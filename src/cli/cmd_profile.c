/* Implements `kvbench profile`: option parsing around kvb_profile_diff_print (report/profile_diff.h). */
#include "cli/cli.h"
#include "core/util.h"
#include "report/profile_diff.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

int cmd_profile(struct kvb_cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "run", required_argument, NULL, 'r' },
		{ "workload", required_argument, NULL, 'w' },
		{ "top", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	struct kvb_profile_diff_opts o;
	struct kvb_store *st = NULL;
	struct kvb_error err;
	int c, rc;
	int64_t x;

	memset(&o, 0, sizeof(o));
	o.top = 20;
	optind = 1;
	while ((c = getopt_long(argc, argv, "n:", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			if (kvb_parse_i64(optarg, &o.run_id) || o.run_id < 1)
				return kvb_cli_usage("profile", "--run '%s': expected a run id", optarg);
			break;
		case 'w': o.workload = optarg; break;
		case 'n':
			if (kvb_parse_i64(optarg, &x) || x < 0)
				return kvb_cli_usage("profile", "--top '%s': expected a number of rows (0: all)", optarg);
			o.top = (size_t)x;
			break;
		default: return kvb_cli_bad_option("profile", opts, argv);
		}
	}
	if (argc - optind > 2)
		return kvb_cli_usage("profile", "unexpected argument '%s' (at most two variants: A B)", argv[optind + 2]);
	if (optind < argc)
		o.a = argv[optind];
	if (optind + 1 < argc)
		o.b = argv[optind + 1];
	if ((rc = kvb_cli_store(cli, &st, &err)) || (rc = kvb_profile_diff_print(st, &o, stdout, &err)))
		kvb_cli_fail(&err);
	return rc;
}
