/* Implements a bisect session's life (bisect.h): new or loaded, begun, run with Ctrl-C caught, reset. */
#include "bisect/steps.h"
#include "core/log.h"
#include "core/util.h"
#include "kbuild/git.h"
#include "kbuild/prepare.h"

#include <stdlib.h>
#include <string.h>

void kvb_bisect_runs_add(struct kvb_bisect_runs *r, int64_t id)
{
	if (r->n == r->alloc) {
		r->alloc = r->alloc ? 2 * r->alloc : 8;
		r->v = kvb_xrealloc(r->v, r->alloc * sizeof(*r->v));
	}
	r->v[r->n++] = id;
}

void kvb_bisect_runs_release(struct kvb_bisect_runs *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}

int kvb_bisect_git(struct kvb_bisect *b, const char *const *args, char **out, struct kvb_error *err)
{
	const char *argv[8] = { "bisect" };
	size_t n = 1;
	struct kvb_exec_result r;
	int rc;
	for (size_t i = 0; args[i] && n < 7; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	kvb_exec_result_init(&r);
	rc = kvb_git(b->row.repo, argv, &r, NULL, err);
	if (!rc && out)
		*out = kvb_xstrdup(r.out.data ? r.out.data : "");
	kvb_exec_result_release(&r);
	return rc;
}

/* row.metric into workload and metric_name. */
static int split_metric(struct kvb_bisect *b, struct kvb_error *err)
{
	const char *m = b->row.metric, *slash = strchr(m, '/');
	if (!slash || slash == m || !slash[1] || strchr(slash + 1, '/'))
		return kvb_error_set(err, KVB_EUSAGE, "--metric '%s': expected WORKLOAD/METRIC (e.g. sched_pipe/usecs_per_op)",
				     m);
	b->workload = kvb_xstrndup(m, (size_t)(slash - m));
	b->metric_name = kvb_xstrdup(slash + 1);
	return KVB_OK;
}

int kvb_bisect_new(struct kvb_bisect *b, const struct kvb_bisect_request *req, struct kvb_error *err)
{
	char *abs = realpath(req->agenda_path, NULL);
	int rc;
	b->row.metric = kvb_xstrdup(req->metric);
	b->row.agenda_path = abs ? abs : kvb_xstrdup(req->agenda_path); /* --resume may start elsewhere */
	b->row.platform = kvb_xstrdup(req->platform);
	b->row.command_line = kvb_xstrdup(req->command_line);
	b->row.threshold_pct = req->threshold_pct;
	b->row.rounds = req->rounds;
	b->row.max_rounds = req->max_rounds;
	if ((rc = split_metric(b, err)) || (rc = kvb_build_check_repo(req->repo, req->allow_dirty, &b->row.repo, err)))
		return rc;
	if ((rc = kvb_git_commit(b->row.repo, req->good, b->row.good, err)) ||
	    (rc = kvb_git_commit(b->row.repo, req->bad, b->row.bad, err)))
		return rc;
	if (!strcmp(b->row.good, b->row.bad))
		return kvb_error_set(err, KVB_EINPUT, "--good and --bad are the same commit %.12s", b->row.good);
	rc = kvb_git_is_ancestor(b->row.repo, b->row.good, b->row.bad, err);
	if (rc == 1)
		return KVB_OK;
	if (rc == 0)
		kvb_error_set(err, KVB_EINPUT, "--good %s (%.12s) is not an ancestor of --bad %s (%.12s) in %s", req->good,
			      b->row.good, req->bad, b->row.bad, b->row.repo);
	return KVB_EINPUT;
}

int kvb_bisect_load(struct kvb_bisect *b, int64_t id, const char *command_line, struct kvb_error *err)
{
	int rc = kvb_store_bisect_load(b->st, id, &b->row, err);
	int64_t *ends = NULL;
	size_t n = 0;
	if (rc)
		return rc;
	if (!strcmp(b->row.status, "done"))
		return kvb_error_set(err, KVB_EINPUT, "bisect %lld is done: nothing to resume", (long long)b->row.id);
	if (!b->row.command_line)
		b->row.command_line = kvb_xstrdup(command_line ? command_line : "kvbench bisect");
	if ((rc = split_metric(b, err)) || (rc = kvb_store_bisect_endpoint_runs(b->st, b->row.id, &ends, &n, err)))
		return rc;
	for (size_t i = 0; i < n; i++)
		kvb_bisect_runs_add(&b->ends, ends[i]);
	free(ends);
	return KVB_OK;
}

int kvb_bisect_check_repo(struct kvb_bisect *b, struct kvb_error *err)
{
	static const char *const args[] = { "rev-parse", "--git-path", "BISECT_START", NULL };
	char *path = NULL;
	int rc;
	if ((rc = kvb_git_line(b->row.repo, args, &path, NULL, err)))
		return rc;
	if (path[0] != '/') {
		char *abs = kvb_xasprintf("%s/%s", b->row.repo, path);
		free(path);
		path = abs;
	}
	if (kvb_is_file(path))
		rc = kvb_error_set(err, KVB_EINPUT,
				   "%s is already being bisected (%s exists): finish it with `git bisect reset` first",
				   b->row.repo, path);
	free(path);
	return rc;
}

int kvb_bisect_begin(struct kvb_bisect *b, struct kvb_error *err)
{
	if (b->row.id)
		return kvb_store_bisect_resumed(b->st, b->row.id, err);
	return kvb_store_bisect_add(b->st, &b->row, &b->row.id, err);
}

void kvb_bisect_reset(struct kvb_bisect *b)
{
	static const char *const args[] = { "reset", NULL };
	struct kvb_error e2;
	if (b->started && kvb_bisect_git(b, args, NULL, &e2))
		kvb_warn("git bisect reset in %s: %s", b->row.repo, e2.msg);
	b->started = 0;
}

int kvb_bisect_run(struct kvb_bisect *b, FILE *out, struct kvb_error *err)
{
	int rc;
	kvb_info("bisect %lld: %.12s (good) .. %.12s (bad) in %s on %s, threshold %.1f%%", (long long)b->row.id,
		 b->row.good, b->row.bad, b->row.repo, b->row.metric, b->row.threshold_pct);
	kvb_build_signals_catch(&b->cancel);
	rc = kvb_bisect_steps(b, out, err);
	kvb_bisect_reset(b);
	kvb_build_signals_restore();
	if (rc && b->cancel && rc != KVB_ESTORE)
		rc = err->code = KVB_EINTR; /* interrupted, whatever else the step met: as a run */
	if (rc) {
		struct kvb_error e2;
		const char *status = b->cancel ? "interrupted" : rc == KVB_ETARGET ? "aborted" : "failed";
		if (kvb_store_bisect_ended(b->st, b->row.id, status, err->msg, &e2))
			kvb_warn("%s", e2.msg);
		if (b->cancel)
			kvb_info("bisect %lld interrupted; continue with `kvbench bisect --resume %lld`", (long long)b->row.id,
				 (long long)b->row.id);
	}
	return rc;
}

void kvb_bisect_release(struct kvb_bisect *b)
{
	/* b->st is the caller's */
	if (b->plat.file || b->plat.name)
		kvb_platform_release(&b->plat);
	kvb_store_bisect_release(&b->row);
	free(b->workload);
	free(b->metric_name);
	kvb_bisect_runs_release(&b->ends);
	b->workload = b->metric_name = NULL;
}
