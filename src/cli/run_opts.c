/* Implements the command line of `kvbench run` (cli/run.h). */
#include "cli/run.h"
#include "core/log.h"
#include "core/util.h"
#include "engine/hostwatch.h"
#include "stats/verdict.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kvb_run_args_release(struct run_args *r)
{
	kvb_strv_release(&r->plats);
	kvb_strv_release(&r->variants);
	kvb_decide_opts_release(&r->dec);
}

void kvb_run_setup_release(struct run_setup *s)
{
	kvb_build_set_release(&s->builds);
	kvb_agenda_release(&s->a);
	if (s->p.file || s->p.name)
		kvb_platform_release(&s->p);
	for (size_t i = 0; i < s->nmore; i++) {
		kvb_platform_release(s->more[i]);
		free(s->more[i]);
	}
	free(s->more);
}

/* The options, into r. Returns KVB_EUSAGE (printed) on a bad one. */
int kvb_run_parse_options(struct run_args *r, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "platform", required_argument, NULL, 'p' }, { "variant", required_argument, NULL, 'V' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "resume", no_argument, NULL, 'R' },         { "dry-run", no_argument, NULL, 'n' },
		{ "no-diff", no_argument, NULL, 'N' },        { "max-jobs", required_argument, NULL, 'M' },
		{ "allow-unverified", no_argument, NULL, 'U' }, { "keep-going", no_argument, NULL, 'K' },
		{ "until-decided", no_argument, NULL, 'u' },  { "margin", required_argument, NULL, 'g' },
		{ "max-rounds", required_argument, NULL, 'x' }, { "max-time", required_argument, NULL, 't' },
		{ "metric", required_argument, NULL, 'm' },
		{ "series", required_argument, NULL, 'S' },   { "series-file", required_argument, NULL, 'F' },
		{ "repo", required_argument, NULL, 'G' },     { "allow-dirty", no_argument, NULL, 'D' },
		{ "host-limit", required_argument, NULL, 'H' }, { "quiet-host", optional_argument, NULL, 'Q' },
		{ "max-disturbed", required_argument, NULL, 'X' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "p:V:", opts, NULL)) != -1) {
		int64_t v;
		switch (c) {
		case 'p': /* more than once: a pool of boards of one kind (docs/design.md#pools-and-lava) */
			if (r->plat_name)
				kvb_strv_push(&r->plats, optarg);
			else
				r->plat_name = optarg;
			break;
		case 'V': kvb_strv_push(&r->variants, optarg); break;
		case 'r':
			if (kvb_parse_i64(optarg, &v) || v < 1 || v > 1000)
				return kvb_cli_usage("run", "--rounds '%s': expected a number from 1 to 1000", optarg);
			r->rounds = (int)v;
			break;
		case 'M':
			if (kvb_parse_i64(optarg, &v) || v < 1)
				return kvb_cli_usage("run", "--max-jobs '%s': expected a positive number", optarg);
			r->max_jobs = (int)v;
			break;
		case 'R': r->resume = 1; break;
		case 'n': r->dry = 1; break;
		case 'N': r->nodiff = 1; break;
		case 'U': r->unverified = 1; break;
		case 'S': r->prep.series = optarg; break;
		case 'F': r->prep.series_file = optarg; break;
		case 'G': r->prep.repo = optarg; break;
		case 'D': r->prep.allow_dirty = 1; break;
		case 'u': r->until = 1; break;
		case 'g':
			if (kvb_parse_double(optarg, &r->dec.margin) || !(r->dec.margin > 0 && r->dec.margin < 100))
				return kvb_cli_usage("run", "--margin '%s': expected a percentage between 0 and 100", optarg);
			r->dec.margin /= 100;
			break;
		case 'x':
			if (kvb_parse_i64(optarg, &v) || v < 2 || v > 1000)
				return kvb_cli_usage("run", "--max-rounds '%s': expected a number from 2 to 1000", optarg);
			r->dec.max_rounds = (int)v;
			break;
		case 't':
			if (kvb_decide_parse_duration(optarg, &r->dec.max_time_s))
				return kvb_cli_usage("run", "--max-time '%s': expected a duration (90, 90s, 30m, 2h)", optarg);
			break;
		case 'm': kvb_strv_push(&r->dec.metrics, optarg); break;
		case 'K': r->keep_going = 1; break;
		case 'H':
			if (kvb_parse_double(optarg, &r->host_limit_pct) || !(r->host_limit_pct > 0 && r->host_limit_pct <= 100))
				return kvb_cli_usage("run", "--host-limit '%s': expected a percentage in (0, 100]", optarg);
			break;
		case 'Q':
			r->quiet_host = 1;
			if (optarg && strcmp(optarg, "0") && kvb_decide_parse_duration(optarg, &r->quiet_wait_s))
				return kvb_cli_usage("run", "--quiet-host='%s': expected how long to wait (0, 90s, 30m, 2h)", optarg);
			break;
		case 'X':
			if (kvb_parse_i64(optarg, &v) || v < 0 || v > 1000)
				return kvb_cli_usage("run", "--max-disturbed '%s': expected a number from 0 to 1000", optarg);
			r->dec.spare_rounds = (int)v;
			break;
		default: return kvb_cli_bad_option("run", opts, argv);
		}
	}
	return KVB_OK;
}

/* The operands (AGENDA, or --resume's RUN) and the options that go together. KVB_EUSAGE (printed). */
int kvb_run_check_operands(struct run_args *r, int argc, char **argv)
{
	for (int i = optind; i < argc; i++) {
		int64_t v;
		if (r->resume && !r->resume_run && !kvb_parse_i64(argv[i], &v) && v > 0)
			r->resume_run = v;
		else if (!r->agenda_file)
			r->agenda_file = argv[i];
		else
			return kvb_cli_usage("run", "unexpected argument '%s'", argv[i]);
	}
	if (r->until && r->rounds)
		return kvb_cli_usage("run", "--until-decided plans --max-rounds rounds: drop --rounds");
	if (!r->until && (r->dec.metrics.n || r->dec.max_time_s > 0))
		return kvb_cli_usage("run", "--metric and --max-time go with --until-decided");
	if (!r->resume && !r->agenda_file)
		return kvb_cli_usage("run", "missing AGENDA");
	if (r->prep.series && r->prep.series_file)
		return kvb_cli_usage("run", "--series and --series-file exclude each other");
	if (!r->resume && !r->plat_name)
		return kvb_cli_usage("run", "missing -p PLATFORM (`kvbench platform list` shows them)");
	return KVB_OK;
}
