/* Implements `kvbench show runs|variants|jobs|metrics|witnesses|events`: human listings of the store. */
#include "cli/cli.h"
#include "core/buf.h"
#include "core/suggest.h"
#include "core/util.h"
#include "report/format.h"
#include "report/sqltable.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Durations are stored as numbers and shown rounded: json and csv keep every digit (docs/report.md). */
static const struct kvb_sql_decimals run_decimals[] = { { "duration_s", 1 }, { NULL, 0 } };
static const struct kvb_sql_decimals job_decimals[] = { { "duration_s", 2 }, { NULL, 0 } };

static const struct {
	const char *what;
	const char *sql_all;  /* ?1 = run id (0 = all runs) */
	const struct kvb_sql_decimals *decimals; /* display rounding of numeric columns, or NULL */
} listings[] = {
	{ "runs",
	  "SELECT r.id AS run, datetime(r.started_ns / 1000000000, 'unixepoch') AS started, r.status, r.platform,"
	  " r.agenda_path AS agenda, r.rounds,"
	  " (SELECT group_concat(name, ',') FROM (SELECT name FROM variant WHERE run_id = r.id ORDER BY position)) AS variants,"
	  " (SELECT count(*) FROM job WHERE run_id = r.id AND status IN ('ok', 'warmup')) || '/' ||"
	  " (SELECT count(*) FROM job WHERE run_id = r.id) AS jobs_ok,"
	  /* never negative: a finish before the start is no duration (results-schema 0016) */
	  " CASE WHEN coalesce(r.finished_ns, r.started_ns) >= r.started_ns"
	  "  THEN (coalesce(r.finished_ns, r.started_ns) - r.started_ns) / 1e9 END AS duration_s"
	  " FROM run r WHERE ?1 = 0 OR r.id = ?1 ORDER BY r.id", run_decimals },
	{ "variants",
	  "SELECT v.run_id AS run, v.name AS variant, v.status, v.kernel, v.kernel_sha256 AS sha256, v.cmdline,"
	  " (SELECT group_concat(DISTINCT b.running_release) FROM boot b WHERE b.variant_id = v.id) AS running_release,"
	  /* a boot row per boot (a round booted again by --resume has two, the first interrupted: both
	   * hold jobs and count); on a run whose rounds shared one boot (boots_each_round 0: flash none,
	   * e.g. local) they are one boot, as in the results view and diff */
	  " (SELECT CASE WHEN r.status <> 'imported' AND r.boots_each_round = 0 THEN min(count(*), 1) ELSE count(*) END"
	  "  FROM boot b JOIN run r ON r.id = v.run_id WHERE b.variant_id = v.id"
	  "  AND b.status IN ('ok', 'interrupted')) AS boots, v.error"
	  " FROM variant v WHERE ?1 = 0 OR v.run_id = ?1 ORDER BY v.run_id, v.position", NULL },
	{ "jobs",
	  "SELECT j.job_id AS job, j.run_id AS run, j.variant,"
	  " CASE WHEN r.status <> 'imported' AND r.boots_each_round = 0 THEN 1 ELSE j.boot END AS boot,"
	  " j.spec_id AS spec, j.iteration, j.status, j.attempts, j.duration_s,"
	  /* what was checked to believe the job's numbers (docs/design.md#witnesses): "5 ok, 1 changed" */
	  " (SELECT group_concat(n || ' ' || verdict, ', ') FROM (SELECT verdict, count(*) AS n FROM witness w"
	  "  WHERE w.job_id = j.job_id GROUP BY verdict ORDER BY verdict <> 'ok', verdict)) AS witnesses, j.error"
	  " FROM jobs j JOIN run r ON r.id = j.run_id WHERE ?1 = 0 OR j.run_id = ?1 ORDER BY j.run_id, j.seq",
	  job_decimals },
	{ "metrics",
	  "SELECT run_id AS run, job_id AS job, variant, boot, workload, metric, value, units, lower_is_better,"
	  " classifiers FROM results WHERE ?1 = 0 OR run_id = ?1 ORDER BY run_id, job_id, metric_id", NULL },
	{ "witnesses",
	  "SELECT run_id AS run, job_id AS job, variant, round, workload, kind, subject, expected, observed, verdict,"
	  " detail FROM witnesses WHERE ?1 = 0 OR run_id = ?1 ORDER BY run_id, witness_id", NULL },
	{ "events",
	  "SELECT run_id AS run, datetime(t_ns / 1000000000, 'unixepoch') AS time, job_id AS job, level, message FROM event"
	  " WHERE ?1 = 0 OR run_id = ?1 ORDER BY id", NULL },
};

static const char *const synopsis[] = { "show runs|variants|jobs|metrics|witnesses|events [<options>]", NULL };

static const struct kvb_option options[] = {
	KVB_OPT_DB(),
	KVB_OPT_VALUE('r', "run", "id", "only this run (default every run)"),
	KVB_OPT_VALUE('s', "status", "status", "jobs, variants or runs with this status (ok, failed, skipped,\n"
					       "instrument-failed, ...)"),
	KVB_OPT_SHORT_CHOICE('f', "format", "format", kvb_values_formats,
			     "output format: @values@\n(default table; json: rows as objects)"),
	KVB_OPT_END(),
};

const struct kvb_cmd_usage kvb_usage_show = {
	synopsis, options,
	"witnesses: what was checked to believe each job's numbers (knobs read back, meter coverage, ...)\n",
	NULL,
};

int kvb_cmd_show(struct kvb_cli *cli, int argc, char **argv)
{
	struct kvb_getopt g;
	const char *format = "table", *status = NULL;
	int64_t run = 0;
	struct kvb_store *st = NULL;
	struct kvb_error err;
	size_t rows, i;
	int c, rc;
	if (kvb_getopt_init(&g, "show", &kvb_usage_show, NULL))
		return KVB_EINTERNAL;
	while ((c = kvb_getopt_next(&g, argc, argv)) != -1) {
		if (c == 'f')
			format = optarg;
		else if (c == 's')
			status = optarg;
		else if (c == 'r') {
			if (kvb_parse_i64(optarg, &run) || run < 1)
				return kvb_cli_usage("show", "--run '%s': expected a run id", optarg);
		} else
			return kvb_getopt_bad(&g, argv);
	}
	for (i = 0; optind == argc - 1 && i < KVB_ARRAY_SIZE(listings); i++)
		if (!strcmp(listings[i].what, argv[optind]))
			break;
	if (optind != argc - 1 || i == KVB_ARRAY_SIZE(listings)) {
		/* the listings' names from their table, for the message and the suggestion */
		struct kvb_buf names = KVB_BUF_INIT, bar = KVB_BUF_INIT;
		char *near;
		for (size_t k = 0; k < KVB_ARRAY_SIZE(listings); k++) {
			kvb_buf_addf(&names, "%s%s", k ? ", " : "", listings[k].what);
			kvb_buf_addf(&bar, "%s%s", k ? "|" : "", listings[k].what);
		}
		near = optind == argc - 1 ? kvb_suggest_choices(argv[optind], bar.data) : NULL;
		if (optind != argc - 1)
			rc = kvb_cli_usage("show", "expected one of %s", names.data);
		else
			rc = kvb_cli_usage("show", "'%s': expected one of %s%s%s%s", argv[optind], names.data,
					   near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
		free(near);
		kvb_buf_release(&names);
		kvb_buf_release(&bar);
		return rc;
	}
	if (!kvb_format_find(format, &err))
		return kvb_cli_usage("show", "%s", err.msg);
	if ((rc = kvb_cli_store(cli, &st, &err)))
		goto out;
	/* ?1 appears twice in the SQL: one bound value; 0 means all runs. */
	if (status) {
		/* every listing with a status column can be filtered by it; the value is bound, not pasted */
		char *sql;
		if (strcmp(argv[optind], "runs") && strcmp(argv[optind], "variants") && strcmp(argv[optind], "jobs"))
			return kvb_cli_usage("show", "--status applies to runs, variants and jobs");
		sql = kvb_xasprintf("SELECT * FROM (%s) WHERE status = ?2", listings[i].sql_all);
		rc = kvb_sql_print2(st, sql, run, status, listings[i].decimals, format, stdout, &rows, &err);
		free(sql);
	} else {
		rc = kvb_sql_print2(st, listings[i].sql_all, run, NULL, listings[i].decimals, format, stdout, &rows, &err);
	}
out:
	if (rc)
		kvb_cli_fail(&err);
	return rc;
}
