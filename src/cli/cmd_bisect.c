/*
 * Implements `kvbench bisect`: the options read into a request (or the session to resume), the
 * platform loaded and the agenda checked; the bisect itself is src/bisect (bisect.h says how it
 * goes, docs/design.md#kernels-from-git).
 */
#include "bisect/bisect.h"
#include "engine/catalog.h"
#include "cli/cli.h"
#include "config/agenda.h"
#include "core/buf.h"
#include "core/log.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the command line asked for. */
struct bisect_args {
	struct kvb_bisect_request req;
	int resume;
	int64_t resume_id;             /* 0: the latest bisect */
};

static const char *const synopsis[] = {
	"bisect <agenda> -p <platform> --repo <dir> --good <rev> --bad <rev> --metric <workload/metric>\n"
	"                      [<options>]",
	"bisect --resume [<id>] [-d <db>]", NULL
};

static const struct kvb_option options[] = {
	KVB_OPT_DB(),
	KVB_OPT_SHORT('p', "platform", "platform", "platform name or path to platform.yaml"),
	KVB_OPT_VALUE('G', "repo", "dir", "the kernel repository bisected (left as it was: git bisect reset)"),
	KVB_OPT_VALUE('g', "good", "rev", "a commit without the regression"),
	KVB_OPT_VALUE('b', "bad", "rev", "a commit with it"),
	KVB_OPT_VALUE('m', "metric", "workload/metric", "the metric that got worse"),
	KVB_OPT_VALUE('t', "threshold", "pct", "bad must be worse than good by at least PCT % (default 5)"),
	KVB_OPT_VALUE('r', "rounds", "n", "boots of a commit's first run (default 2: two boots a side that\n"
					  "decide are enough)"),
	KVB_OPT_VALUE('M', "max-rounds", "n", "an undecided step or endpoint gets more boots up to N (default 6)"),
	KVB_OPT_FLAG('D', "allow-dirty", "build although the repository has uncommitted changes"),
	KVB_OPT_FLAG('R', "resume", "go on with an interrupted bisect (default the latest)"),
	KVB_OPT_END(),
};

const struct kvb_cmd_usage kvb_usage_bisect = {
	synopsis, options,
	"Measures good and bad (an undecided endpoint gets one more boot up to --max-rounds; a good\n"
	"worse than bad: exit 3), then lets git bisect pick commits; each is built (the agenda's build:\n"
	"block), booted and measured (a stored run) and judged against both endpoints with the\n"
	"boot-aware verdict: good, bad, skip (build/flash/boot/identity failed) or abort (board\n"
	"unusable). Jobs the host disturbed in every attempt are never judged; a step whose runs keep\n"
	"losing jobs to the host stops the bisect after 3 spare runs (exit 1: the host was too busy to\n"
	"decide it). The end prints the first bad commit, its change against good and the steps;\n"
	"`git bisect log` is stored. The repository is left as it was (git bisect reset), also after\n"
	"Ctrl-C; --resume goes on.\n",
	NULL,
};

/* Reads the options and operands into a. Returns KVB_OK, or KVB_EUSAGE
 * with the message printed. */
static int parse_args(int argc, char **argv, struct bisect_args *a)
{
	struct kvb_getopt g;
	int c;
	if (kvb_getopt_init(&g, "bisect", &kvb_usage_bisect, NULL))
		return KVB_EINTERNAL;
	while ((c = kvb_getopt_next(&g, argc, argv)) != -1) {
		int64_t v;
		switch (c) {
		case 'p': a->req.platform = optarg; break;
		case 'G': a->req.repo = optarg; break;
		case 'g': a->req.good = optarg; break;
		case 'b': a->req.bad = optarg; break;
		case 'm': a->req.metric = optarg; break;
		case 't':
			if (kvb_parse_double(optarg, &a->req.threshold_pct) || !(a->req.threshold_pct >= 0 && a->req.threshold_pct < 1000))
				return kvb_cli_usage("bisect", "--threshold '%s': expected a percentage", optarg);
			break;
		case 'r':
		case 'M':
			if (kvb_parse_i64(optarg, &v) || v < 1 || v > 100)
				return kvb_cli_usage("bisect", "--%s '%s': expected a number from 1 to 100",
						     c == 'r' ? "rounds" : "max-rounds", optarg);
			if (c == 'r')
				a->req.rounds = (int)v;
			else
				a->req.max_rounds = (int)v;
			break;
		case 'D': a->req.allow_dirty = 1; break;
		case 'R': a->resume = 1; break;
		default: return kvb_getopt_bad(&g, argv);
		}
	}
	for (int i = optind; i < argc; i++) {
		int64_t v;
		if (a->resume && !a->resume_id && !kvb_parse_i64(argv[i], &v) && v > 0)
			a->resume_id = v;
		else if (!a->resume && !a->req.agenda_path)
			a->req.agenda_path = argv[i];
		else
			return kvb_cli_usage("bisect", "unexpected argument '%s'", argv[i]);
	}
	if (!a->resume && (!a->req.agenda_path || !a->req.platform || !a->req.repo || !a->req.good || !a->req.bad || !a->req.metric))
		return kvb_cli_usage("bisect", "needs AGENDA -p PLATFORM --repo DIR --good REV --bad REV --metric W/M");
	return KVB_OK;
}

/* Loads the platform and checks the agenda before anything is built; prints their
 * messages. Returns KVB_OK or KVB_EINPUT. */
static int load_platform_and_check_agenda(struct kvb_bisect *b)
{
	struct kvb_diag d;
	int rc;
	kvb_diag_init(&d, NULL);
	rc = kvb_platform_load(&b->plat, b->row.platform, &kvb_catalog, &d);
	if (!rc) {
		struct kvb_agenda a;
		memset(&a, 0, sizeof(a));
		rc = kvb_agenda_load(&a, b->row.agenda_path, &kvb_catalog, &d);
		kvb_agenda_release(&a);
	}
	for (size_t i = 0; i < d.msgs.n; i++)
		fprintf(stderr, "%s\n", d.msgs.v[i]);
	kvb_diag_release(&d);
	return rc ? KVB_EINPUT : KVB_OK;
}

int kvb_cmd_bisect(struct kvb_cli *cli, int argc, char **argv)
{
	struct kvb_bisect b;
	struct bisect_args a = { .req = { .threshold_pct = 5.0, .max_rounds = 6 } };
	struct kvb_error err;
	struct kvb_buf cmdline = KVB_BUF_INIT;
	int rc;

	memset(&b, 0, sizeof(b));
	kvb_error_clear(&err);
	if ((rc = parse_args(argc, argv, &a)))
		goto out; /* the usage message is printed */
	for (int i = 0; i < cli->argc_given; i++) /* as typed, with -d */
		kvb_buf_addf(&cmdline, "%s%s", i ? " " : "kvbench ", cli->argv_given[i]);
	a.req.command_line = cmdline.data;
	if ((rc = kvb_cli_store(cli, &b.st, &err)))
		goto fail;
	if (a.resume) {
		if ((rc = kvb_bisect_load(&b, a.resume_id, cmdline.data, &err)))
			goto fail;
		kvb_info("bisect %lld: resuming (%s..%s in %s)", (long long)b.row.id, b.row.good, b.row.bad, b.row.repo);
	} else if ((rc = kvb_bisect_new(&b, &a.req, &err))) {
		goto fail;
	}
	if ((rc = kvb_bisect_check_repo(&b, &err)))
		goto fail;
	if ((rc = load_platform_and_check_agenda(&b)))
		goto out; /* its messages are printed */
	if ((rc = kvb_bisect_begin(&b, &err)) || (rc = kvb_bisect_run(&b, stdout, &err)))
		goto fail;
	goto out;
fail:
	kvb_bisect_reset(&b);
	kvb_cli_fail(&err);
out:
	kvb_bisect_release(&b);
	kvb_buf_release(&cmdline);
	return rc;
}
