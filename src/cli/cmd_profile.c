/* Implements `kvbench profile`: option parsing around kvb_profile_diff_print (report/profile_diff.h). */
#include "cli/cli.h"
#include "core/util.h"
#include "report/profile_diff.h"

#include <stdio.h>
#include <string.h>

static const char *const synopsis[] = { "profile [<options>] [<A> [<B>]]", NULL };

static const struct kvb_option options[] = {
	KVB_OPT_DB(),
	KVB_OPT_VALUE('r', "run", "id", "the run (default: the latest)"),
	KVB_OPT_VALUE('w', "workload", "name", "only that workload's specs"),
	KVB_OPT_VALUE('n', "top", "n", "rows per spec (default 20; 0: every function)"),
	KVB_OPT_END(),
};

const struct kvb_cmd_usage kvb_usage_profile = {
	synopsis, options,
	"The jobs' profiles of the profile instrument (perf record -a -e cpu-clock:I -c PERIOD around\n"
	"each job; docs/profile.md) summed per variant and workload spec: per function, samples x\n"
	"period / operations (instructions per op on a board whose clock counts instructions, e.g.\n"
	"qemu-x86_64-icount; ns of CPU time per op elsewhere), for A, B, B - A and two standard\n"
	"deviations of the difference from the sample counts (* beyond them), rows by |B - A|.\n"
	"Operations come from the workload (sched_pipe: loops; hackbench: groups x fds x fds x loops);\n"
	"a workload that does not say gives values per job.\n"
	"A, B: variants of the run (default: its first two with a profile; A alone lists A's profile).\n",
	NULL,
};

int kvb_cmd_profile(struct kvb_cli *cli, int argc, char **argv)
{
	struct kvb_getopt g;
	struct kvb_profile_diff_opts o;
	struct kvb_store *st = NULL;
	struct kvb_error err;
	int c, rc;
	int64_t x;

	memset(&o, 0, sizeof(o));
	o.top = 20;
	if (kvb_getopt_init(&g, "profile", &kvb_usage_profile, NULL))
		return KVB_EINTERNAL;
	while ((c = kvb_getopt_next(&g, argc, argv)) != -1) {
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
		default: return kvb_getopt_bad(&g, argv);
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
