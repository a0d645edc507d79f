/* Implements the rt-app per-thread log parser and the per-task statistics (format in rt_app.h). */
#include "workload/rt_app.h"
#include "workload/workload.h"
#include "core/buf.h"
#include "core/util.h"

#include <ctype.h>
#include <errno.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <stdlib.h>
#include <string.h>

#define RTAPP_MAX_COLS 32
#define RTAPP_REQUIRED (KVB_RTAPP_COL_RUN | KVB_RTAPP_COL_PERIOD | KVB_RTAPP_COL_SLACK | KVB_RTAPP_COL_WU_LAT)

/* Header names rt-app writes; c_run is the older name of c_duration. */
static const struct {
	const char *name;
	unsigned bit;
	size_t off;
} known_cols[] = {
	{ "idx", KVB_RTAPP_COL_IDX, offsetof(struct kvb_rtapp_row, idx) },
	{ "perf", KVB_RTAPP_COL_PERF, offsetof(struct kvb_rtapp_row, perf) },
	{ "run", KVB_RTAPP_COL_RUN, offsetof(struct kvb_rtapp_row, run_us) },
	{ "period", KVB_RTAPP_COL_PERIOD, offsetof(struct kvb_rtapp_row, period_us) },
	{ "start", KVB_RTAPP_COL_START, offsetof(struct kvb_rtapp_row, start_us) },
	{ "end", KVB_RTAPP_COL_END, offsetof(struct kvb_rtapp_row, end_us) },
	{ "rel_st", KVB_RTAPP_COL_REL_ST, offsetof(struct kvb_rtapp_row, rel_st_us) },
	{ "slack", KVB_RTAPP_COL_SLACK, offsetof(struct kvb_rtapp_row, slack_us) },
	{ "c_duration", KVB_RTAPP_COL_C_DURATION, offsetof(struct kvb_rtapp_row, c_duration_us) },
	{ "c_run", KVB_RTAPP_COL_C_DURATION, offsetof(struct kvb_rtapp_row, c_duration_us) },
	{ "c_period", KVB_RTAPP_COL_C_PERIOD, offsetof(struct kvb_rtapp_row, c_period_us) },
	{ "wu_lat", KVB_RTAPP_COL_WU_LAT, offsetof(struct kvb_rtapp_row, wu_lat_us) },
};

/* Column layout from the header: per position, the known column (or -1 for an unknown one). */
struct layout {
	int ncols;
	int col[RTAPP_MAX_COLS];
	char *names[RTAPP_MAX_COLS];
};

void kvb_rtapp_log_init(struct kvb_rtapp_log *log)
{
	memset(log, 0, sizeof(*log));
}

void kvb_rtapp_log_release(struct kvb_rtapp_log *log)
{
	if (!log)
		return;
	free(log->file);
	free(log->rows);
	kvb_rtapp_log_init(log);
}

static void layout_release(struct layout *l)
{
	for (int i = 0; i < l->ncols; i++)
		free(l->names[i]);
	l->ncols = 0;
}

/* Splits a line (NUL-terminated, modified) into whitespace-separated words. Returns the count, max n. */
static int split_words(char *line, char **w, int n)
{
	int k = 0;
	char *save = NULL;
	for (char *t = strtok_r(line, " \t\r\v\f", &save); t; t = strtok_r(NULL, " \t\r\v\f", &save)) {
		if (k == n)
			return n + 1;
		w[k++] = t;
	}
	return k;
}

static int parse_header(struct kvb_rtapp_log *log, struct layout *l, char *line, int lineno,
			struct kvb_error *err)
{
	char *w[RTAPP_MAX_COLS + 1];
	int n;
	unsigned have = 0;
	/* "#idx perf ..." or "# idx perf ...": drop the '#' */
	line++;
	n = split_words(line, w, RTAPP_MAX_COLS);
	if (n > RTAPP_MAX_COLS)
		return kvb_error_set(err, KVB_EINPUT, "%s:%d: header has more than %d columns", log->file, lineno,
				     RTAPP_MAX_COLS);
	for (int i = 0; i < n; i++) {
		int k = -1;
		for (size_t j = 0; j < KVB_ARRAY_SIZE(known_cols); j++)
			if (!strcmp(w[i], known_cols[j].name))
				k = (int)j;
		for (int j = 0; j < i; j++)
			if (!strcmp(w[j], w[i]) || (k >= 0 && l->col[j] >= 0 && known_cols[l->col[j]].bit == known_cols[k].bit)) {
				layout_release(l);
				return kvb_error_set(err, KVB_EINPUT, "%s:%d: column '%s' appears twice in the header",
						     log->file, lineno, w[i]);
			}
		l->col[i] = k;
		l->names[i] = kvb_xstrdup(w[i]);
		l->ncols = i + 1;
		if (k >= 0)
			have |= known_cols[k].bit;
	}
	if ((have & RTAPP_REQUIRED) != RTAPP_REQUIRED) {
		const char *miss = !(have & KVB_RTAPP_COL_RUN) ? "run"
				   : !(have & KVB_RTAPP_COL_PERIOD) ? "period"
				   : !(have & KVB_RTAPP_COL_SLACK) ? "slack" : "wu_lat";
		layout_release(l);
		return kvb_error_set(err, KVB_EINPUT, "%s:%d: header has no '%s' column", log->file, lineno, miss);
	}
	log->have = have;
	return KVB_OK;
}

static int parse_row(struct kvb_rtapp_log *log, const struct layout *l, char *line, int lineno,
		     struct kvb_error *err)
{
	char *w[RTAPP_MAX_COLS + 1];
	struct kvb_rtapp_row row;
	int n = split_words(line, w, RTAPP_MAX_COLS);

	if (n != l->ncols)
		return kvb_error_set(err, KVB_EINPUT, "%s:%d: expected %d fields as in the header, found %s%d",
				     log->file, lineno, l->ncols, n > RTAPP_MAX_COLS ? "more than " : "",
				     n > RTAPP_MAX_COLS ? RTAPP_MAX_COLS : n);
	memset(&row, 0, sizeof(row));
	for (int i = 0; i < n; i++) {
		int64_t v;
		if (kvb_parse_i64(w[i], &v))
			return kvb_error_set(err, KVB_EINPUT, "%s:%d: field '%s' is not an integer: \"%.40s\"", log->file,
					     lineno, l->names[i], w[i]);
		if (l->col[i] < 0)
			continue;
		*(int64_t *)((char *)&row + known_cols[l->col[i]].off) = v;
	}
	if (row.run_us < 0 || row.period_us < 0 || row.wu_lat_us < 0) {
		const char *what = row.run_us < 0 ? "run" : row.period_us < 0 ? "period" : "wu_lat";
		return kvb_error_set(err, KVB_EINPUT, "%s:%d: negative '%s' value", log->file, lineno, what);
	}
	if (log->n == log->alloc) {
		log->alloc = log->alloc ? log->alloc * 2 : 256;
		log->rows = kvb_xrealloc(log->rows, log->alloc * sizeof(*log->rows));
	}
	log->rows[log->n++] = row;
	return KVB_OK;
}

static int is_blank(const char *s)
{
	for (; *s; s++)
		if (!isspace((unsigned char)*s))
			return 0;
	return 1;
}

/* True for "#idx ..." / "# idx ...": the column header rather than a comment. */
static int is_header(const char *s)
{
	s++;
	while (*s == ' ' || *s == '\t')
		s++;
	return !strncmp(s, "idx", 3) && (s[3] == '\0' || isspace((unsigned char)s[3]));
}

int kvb_rtapp_log_parse(struct kvb_rtapp_log *log, const char *name, const char *text, size_t len,
			struct kvb_error *err)
{
	struct layout l = { 0 };
	size_t pos = 0;
	int lineno = 0, rc = KVB_OK, seen_header = 0;

	kvb_rtapp_log_release(log);
	log->file = kvb_xstrdup(name ? name : "rt-app log");
	if (len == 0) {
		rc = kvb_error_set(err, KVB_EINPUT, "%s:1: empty log, no '#idx ...' header", log->file);
		goto out;
	}
	while (pos < len && !rc) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - text) : len;
		char *line;
		lineno++;
		if (memchr(text + pos, '\0', end - pos)) {
			rc = kvb_error_set(err, KVB_EINPUT, "%s:%d: NUL byte in a text log (binary garbage?)", log->file,
					   lineno);
			break;
		}
		if (!nl) {
			rc = kvb_error_set(err, KVB_EINPUT, "%s:%d: truncated last line (no newline at end of file)",
					   log->file, lineno);
			break;
		}
		line = kvb_xstrndup(text + pos, end - pos);
		pos = end + 1;
		if (is_blank(line)) {
			/* nothing */
		} else if (line[0] == '#') {
			if (is_header(line)) {
				struct layout again = { 0 };
				if (!seen_header) {
					rc = parse_header(log, &l, line, lineno, err);
					seen_header = !rc;
				} else {
					/* a repeated header must be the same one */
					unsigned keep = log->have;
					rc = parse_header(log, &again, line, lineno, err);
					if (!rc && (again.ncols != l.ncols || memcmp(again.col, l.col, sizeof(int) * l.ncols)))
						rc = kvb_error_set(err, KVB_EINPUT, "%s:%d: second header differs from the first",
								   log->file, lineno);
					log->have = keep;
					layout_release(&again);
				}
			}
		} else if (!seen_header) {
			rc = kvb_error_set(err, KVB_EINPUT, "%s:%d: data before the '#idx ...' header (not an rt-app log?)",
					   log->file, lineno);
		} else {
			rc = parse_row(log, &l, line, lineno, err);
		}
		free(line);
	}
	if (!rc && !seen_header)
		rc = kvb_error_set(err, KVB_EINPUT, "%s:%d: no '#idx ...' header in the log", log->file, lineno);
out:
	layout_release(&l);
	if (rc) {
		free(log->rows);
		log->rows = NULL;
		log->n = log->alloc = 0;
		log->have = 0;
	}
	return rc;
}

int kvb_rtapp_log_load(struct kvb_rtapp_log *log, const char *path, struct kvb_error *err)
{
	struct kvb_buf b = KVB_BUF_INIT;
	int rc;
	if (kvb_buf_read_file(&b, path)) {
		kvb_rtapp_log_release(log);
		return kvb_error_set(err, KVB_EINPUT, "cannot read rt-app log '%s': %s", path, strerror(errno));
	}
	rc = kvb_rtapp_log_parse(log, path, b.data, b.len, err);
	kvb_buf_release(&b);
	return rc;
}

enum kvb_err kvb_rtapp_log_name(const char *path, const char *basename, char **thread, long *index)
{
	const char *f = strrchr(path, '/');
	size_t blen = strlen(basename), flen;
	const char *rest, *dash, *suffix;
	char *end;
	long idx;

	f = f ? f + 1 : path;
	flen = strlen(f);
	if (flen < blen + 1 + 4 || strncmp(f, basename, blen) || f[blen] != '-' || strcmp(f + flen - 4, ".log"))
		return KVB_EINPUT;
	rest = f + blen + 1;
	suffix = f + flen - 4;
	/* last '-' before ".log" separates the thread name from the index */
	dash = NULL;
	for (const char *p = rest; p < suffix; p++)
		if (*p == '-')
			dash = p;
	if (!dash || dash == rest || dash + 1 == suffix)
		return KVB_EINPUT;
	for (const char *p = dash + 1; p < suffix; p++)
		if (!isdigit((unsigned char)*p))
			return KVB_EINPUT;
	errno = 0;
	idx = strtol(dash + 1, &end, 10);
	if (errno || end != suffix)
		return KVB_EINPUT;
	*thread = kvb_xstrndup(rest, (size_t)(dash - rest));
	*index = idx;
	return KVB_OK;
}

const char *kvb_rtapp_task_of(const char *thread, const char *const *tasks)
{
	const char *best = NULL;
	size_t best_len = 0;
	for (size_t i = 0; tasks && tasks[i]; i++) {
		size_t n = strlen(tasks[i]);
		const char *p;
		if (!strcmp(thread, tasks[i]))
			return tasks[i];
		if (strncmp(thread, tasks[i], n) || thread[n] != '-' || !thread[n + 1])
			continue;
		for (p = thread + n + 1; *p && isdigit((unsigned char)*p); p++)
			;
		if (!*p && n > best_len) {
			best = tasks[i];
			best_len = n;
		}
	}
	return best;
}

int kvb_rtapp_stats(const struct kvb_rtapp_log *const *logs, size_t nlogs, struct kvb_rtapp_stats *st,
		    struct kvb_error *err)
{
	size_t n = 0, k = 0, neg = 0;
	double *slack, *wu, *run, *period;

	memset(st, 0, sizeof(*st));
	for (size_t i = 0; i < nlogs; i++)
		n += logs[i]->n;
	if (n == 0)
		return nlogs ? kvb_error_set(err, KVB_EINPUT, "no completed phase in '%s'%s", logs[0]->file,
					     nlogs > 1 ? " nor in the task's other logs" : "")
			     : kvb_error_set(err, KVB_EINPUT, "no completed phase: no log");
	slack = kvb_xmalloc(4 * n * sizeof(double));
	wu = slack + n;
	run = wu + n;
	period = run + n;
	for (size_t i = 0; i < nlogs; i++) {
		for (size_t j = 0; j < logs[i]->n; j++, k++) {
			const struct kvb_rtapp_row *r = &logs[i]->rows[j];
			slack[k] = (double)r->slack_us;
			wu[k] = (double)r->wu_lat_us;
			run[k] = (double)r->run_us;
			period[k] = (double)r->period_us;
			neg += r->slack_us < 0;
		}
	}
	st->activations = n;
	st->slack_mean_us = gsl_stats_mean(slack, 1, n);
	st->slack_min_us = gsl_stats_min(slack, 1, n);
	st->negative_slack_pct = 100.0 * (double)neg / (double)n;
	st->wu_lat_mean_us = gsl_stats_mean(wu, 1, n);
	gsl_sort(wu, 1, n);
	st->wu_lat_p99_us = gsl_stats_quantile_from_sorted_data(wu, 1, n, 0.99);
	st->run_mean_us = gsl_stats_mean(run, 1, n);
	st->period_mean_us = gsl_stats_mean(period, 1, n);
	free(slack);
	return KVB_OK;
}

void kvb_rtapp_metrics_add(struct kvb_metrics *m, const char *task, const struct kvb_rtapp_stats *st)
{
	const struct {
		const char *name;
		double v;
		const char *units;
		int lower;
	} all[] = {
		{ "slack_mean", st->slack_mean_us, "us", 0 },
		{ "slack_min", st->slack_min_us, "us", 0 },
		{ "negative_slack_pct", st->negative_slack_pct, "%", 1 },
		{ "wu_lat_mean", st->wu_lat_mean_us, "us", 1 },
		{ "wu_lat_p99", st->wu_lat_p99_us, "us", 1 },
		{ "run_mean", st->run_mean_us, "us", 1 },
		{ "period_mean", st->period_mean_us, "us", KVB_NO_DIRECTION },
		{ "activations", (double)st->activations, "count", 0 },
	};
	for (size_t i = 0; i < KVB_ARRAY_SIZE(all); i++)
		kvb_metric_classify(kvb_metrics_add(m, all[i].name, all[i].v, all[i].units, all[i].lower), "task", task);
}

struct task_group {
	char *task;
	struct kvb_rtapp_log **logs;
	size_t nlogs;
};

int kvb_rtapp_parse_logs(const char *const *paths, size_t npaths, const char *basename,
			 const char *const *tasks, struct kvb_metrics *m, struct kvb_error *err)
{
	struct task_group *g = NULL;
	struct kvb_rtapp_stats *st;
	unsigned char *empty;
	size_t ng = 0, nempty = 0;
	int rc = KVB_OK;

	for (size_t i = 0; tasks && tasks[i]; i++) {
		g = kvb_xrealloc(g, (ng + 1) * sizeof(*g));
		g[ng++] = (struct task_group){ .task = kvb_xstrdup(tasks[i]) };
	}
	for (size_t i = 0; i < npaths && !rc; i++) {
		char *thread = NULL;
		const char *task;
		long idx;
		size_t k;
		struct kvb_rtapp_log *log;

		if (kvb_rtapp_log_name(paths[i], basename, &thread, &idx)) {
			rc = kvb_error_set(err, KVB_EINPUT, "'%s' is not named like an rt-app log ('%s-THREAD-INDEX.log')",
					   paths[i], basename);
			break;
		}
		task = kvb_rtapp_task_of(thread, tasks);
		if (!task)
			task = thread;
		for (k = 0; k < ng && strcmp(g[k].task, task); k++)
			;
		if (k == ng) {
			g = kvb_xrealloc(g, (ng + 1) * sizeof(*g));
			g[ng++] = (struct task_group){ .task = kvb_xstrdup(task) };
		}
		free(thread);
		log = kvb_xmalloc(sizeof(*log));
		kvb_rtapp_log_init(log);
		g[k].logs = kvb_xrealloc(g[k].logs, (g[k].nlogs + 1) * sizeof(*g[k].logs));
		g[k].logs[g[k].nlogs++] = log;
		rc = kvb_rtapp_log_load(log, paths[i], err);
	}
	/* all tasks first, so a failure adds no partial set of metrics */
	st = kvb_xcalloc(ng ? ng : 1, sizeof(*st));
	empty = kvb_xcalloc(ng ? ng : 1, sizeof(*empty));
	for (size_t k = 0; k < ng && !rc; k++) {
		size_t rows = 0;
		if (!g[k].nlogs) {
			rc = kvb_error_set(err, KVB_EINPUT, "no rt-app log for task '%s'", g[k].task);
			break;
		}
		for (size_t j = 0; j < g[k].nlogs; j++)
			rows += g[k].logs[j]->n;
		/* A task that never completed a phase is recorded, not a failure of the others (as lkp does). */
		if (!rows && ng > 1) {
			empty[k] = 1;
			nempty++;
			continue;
		}
		rc = kvb_rtapp_stats((const struct kvb_rtapp_log *const *)g[k].logs, g[k].nlogs, &st[k], err);
		if (rc)
			kvb_error_prefix(err, "task '%s'", g[k].task);
	}
	if (!rc && ng && nempty == ng)
		rc = kvb_error_set(err, KVB_EINPUT, "no task completed a phase (first log: '%s')", g[0].logs[0]->file);
	for (size_t k = 0; k < ng && !rc; k++) {
		if (!empty[k]) {
			kvb_rtapp_metrics_add(m, g[k].task, &st[k]);
			continue;
		}
		kvb_metric_classify(kvb_metrics_add(m, "activations", 0, "count", 0), "task", g[k].task);
		kvb_metrics_note(m, "rt-app task '%s' completed no phase (log '%s'%s): activations = 0, no other metric",
				 g[k].task, g[k].logs[0]->file, g[k].nlogs > 1 ? " and its other instances" : "");
	}
	free(st);
	free(empty);
	for (size_t k = 0; k < ng; k++) {
		for (size_t j = 0; j < g[k].nlogs; j++) {
			kvb_rtapp_log_release(g[k].logs[j]);
			free(g[k].logs[j]);
		}
		free(g[k].logs);
		free(g[k].task);
	}
	free(g);
	return rc;
}

/* The report's reader of "rt-app-log" artifacts: every row's slack (set 0) and wake-up latency (set 1),
 * us, keyed by task ("rt-app-<thread>-<index>.log", an instance "<task>-<n>" counted as its task). */
static int read_log_for_plot(const char *path, void (*add)(void *arg, size_t set, const char *key, double x),
			     void *arg, char *why, size_t why_len)
{
	struct kvb_rtapp_log log;
	struct kvb_error e;
	char *task = NULL, *dash;
	long index;
	int rc = 0;
	if (kvb_rtapp_log_name(path, "rt-app", &task, &index))
		task = kvb_xstrdup(path);
	else if ((dash = strrchr(task, '-')) && dash[1] && strspn(dash + 1, "0123456789") == strlen(dash + 1))
		*dash = '\0';
	kvb_rtapp_log_init(&log);
	if (kvb_rtapp_log_load(&log, path, &e)) {
		snprintf(why, why_len, "%s", e.msg);
		rc = -1;
	} else {
		for (size_t i = 0; i < log.n; i++) {
			add(arg, 0, task, (double)log.rows[i].slack_us);
			add(arg, 1, task, (double)log.rows[i].wu_lat_us);
		}
	}
	kvb_rtapp_log_release(&log);
	free(task);
	return rc;
}

const struct kvb_artifact_plot kvb_rtapp_artifact_plots[] = {
	{ "rt-app-log", "rt-app slack and wake-up latency", "rt-app",
	  "Per task, every phase of every job (rt-app logs): slack (negative = overran its period) and wake-up "
	  "latency after the timer.",
	  "us", { "slack_mean", "wu_lat_mean" }, 2, { "slack CDF", "wake-up latency CDF" },
	  { "slack (us)", "wake-up latency (us)" }, read_log_for_plot },
	{ NULL, NULL, NULL, NULL, NULL, { NULL, NULL }, 0, { NULL, NULL }, { NULL, NULL }, NULL },
};
