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

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the command line asked for. */
struct bisect_args {
	struct kvb_bisect_request req;
	int resume;
	int64_t resume_id;             /* 0: the latest bisect */
};

/* Reads the options and operands into a. Returns KVB_OK, or KVB_EUSAGE
 * with the message printed. */
static int parse_args(int argc, char **argv, struct bisect_args *a)
{
	static const struct option opts[] = {
		{ "platform", required_argument, NULL, 'p' },
		{ "repo", required_argument, NULL, 'G' },     { "good", required_argument, NULL, 'g' },
		{ "bad", required_argument, NULL, 'b' },      { "metric", required_argument, NULL, 'm' },
		{ "threshold", required_argument, NULL, 't' }, { "rounds", required_argument, NULL, 'r' },
		{ "max-rounds", required_argument, NULL, 'M' }, { "allow-dirty", no_argument, NULL, 'D' },
		{ "resume", no_argument, NULL, 'R' },          { NULL, 0, NULL, 0 },
	};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "p:", opts, NULL)) != -1) {
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
		default: return kvb_cli_bad_option("bisect", opts, argv);
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

int cmd_bisect(struct kvb_cli *cli, int argc, char **argv)
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
