/* Implements the git helpers: argv spawns of `git -C REPO ...` and their error messages. */
#include "kbuild/git.h"
#include "core/buf.h"

#include <stdlib.h>
#include <string.h>

/* A git command is local and quick, but a huge repository can take a while to stat. */
#define GIT_TIMEOUT_MS (10u * 60u * 1000u)

static void chomp(struct kvb_buf *b)
{
	while (b->len && (b->data[b->len - 1] == '\n' || b->data[b->len - 1] == '\r'))
		b->data[--b->len] = '\0';
}

int kvb_git(const char *repo, const char *const *argv, struct kvb_exec_result *r, const char *what,
	    struct kvb_error *err)
{
	struct kvb_strv a = KVB_STRV_INIT;
	struct kvb_spawn_opts o = { 0 };
	/* git must not ask anything, nor page, nor pick up a user's hooks-changing config for bisect */
	static const char *const env[] = { "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "LC_ALL=C", "GIT_DIR",
					   "GIT_WORK_TREE", NULL };
	int rc;
	kvb_strv_push(&a, "git");
	kvb_strv_push(&a, "-C");
	kvb_strv_push(&a, repo);
	for (size_t i = 0; argv[i]; i++)
		kvb_strv_push(&a, argv[i]);
	o.argv = kvb_strv_argv(&a);
	o.env = env;
	o.timeout_ms = GIT_TIMEOUT_MS;
	rc = kvb_spawn_run(&o, r, err);
	if (!rc && r->exit_code != 0) {
		struct kvb_buf cmd = KVB_BUF_INIT;
		const char *e = r->err.len ? r->err.data : r->out.data ? r->out.data : "";
		size_t n = strcspn(e, "\n");
		for (size_t i = 3; i < a.n; i++)
			kvb_buf_addf(&cmd, " %s", a.v[i]);
		if (what)
			rc = kvb_error_set(err, KVB_EINPUT, "%s: %.*s", what, (int)n, e);
		else
			rc = kvb_error_set(err, KVB_EINPUT, "git -C %s%s: %.*s", repo, cmd.data ? cmd.data : "", (int)n, e);
		kvb_buf_release(&cmd);
	}
	kvb_strv_release(&a);
	return rc;
}

int kvb_git_line(const char *repo, const char *const *argv, char **out, const char *what, struct kvb_error *err)
{
	struct kvb_exec_result r;
	int rc;
	kvb_exec_result_init(&r);
	*out = NULL;
	rc = kvb_git(repo, argv, &r, what, err);
	if (!rc) {
		chomp(&r.out);
		*out = r.out.data ? kvb_buf_detach(&r.out) : kvb_xstrdup("");
	}
	kvb_exec_result_release(&r);
	return rc;
}

int kvb_git_toplevel(const char *dir, char **top, struct kvb_error *err)
{
	static const char *const argv[] = { "rev-parse", "--show-toplevel", NULL };
	struct kvb_error e2;
	*top = NULL;
	if (!kvb_is_dir(dir))
		return kvb_error_set(err, KVB_EINPUT, "%s: no such directory (git repository expected)", dir);
	if (kvb_git_line(dir, argv, top, NULL, &e2) || !**top) {
		free(*top);
		*top = NULL;
		return kvb_error_set(err, KVB_EINPUT, "%s: not a git repository", dir);
	}
	return KVB_OK;
}

int kvb_git_commit(const char *repo, const char *rev, char sha[41], struct kvb_error *err)
{
	char *spec = kvb_xasprintf("%s^{commit}", rev), *line = NULL;
	const char *argv[] = { "rev-parse", "--verify", "--quiet", "--end-of-options", spec, NULL };
	struct kvb_error e2;
	int rc = KVB_OK;
	if (!*rev || rev[0] == '-' || kvb_git_line(repo, argv, &line, NULL, &e2) || strlen(line) != 40)
		rc = kvb_error_set(err, KVB_EINPUT, "unknown revision '%s' in %s", rev, repo);
	else
		memcpy(sha, line, 41);
	free(line);
	free(spec);
	return rc;
}

char *kvb_git_describe(const char *repo, const char *sha)
{
	const char *argv[] = { "describe", "--always", "--tags", "--abbrev=12", sha, NULL };
	struct kvb_error e2;
	char *out = NULL;
	if (kvb_git_line(repo, argv, &out, NULL, &e2)) {
		free(out);
		return kvb_xstrndup(sha, 12);
	}
	return out;
}

char *kvb_git_subject(const char *repo, const char *sha)
{
	const char *argv[] = { "log", "-1", "--format=%s", sha, NULL };
	struct kvb_error e2;
	char *out = NULL;
	if (kvb_git_line(repo, argv, &out, NULL, &e2)) {
		free(out);
		return kvb_xstrdup("");
	}
	return out;
}

int kvb_git_is_ancestor(const char *repo, const char *anc, const char *desc, struct kvb_error *err)
{
	const char *argv[] = { "merge-base", "--is-ancestor", anc, desc, NULL };
	struct kvb_exec_result r;
	struct kvb_error e2;
	int rc;
	kvb_exec_result_init(&r);
	rc = kvb_git(repo, argv, &r, NULL, &e2);
	if (rc == KVB_ETARGET) {
		*err = e2;
		rc = -1;
	} else {
		/* exit 1: not an ancestor; anything else is an error */
		rc = r.exit_code == 0 ? 1 : r.exit_code == 1 ? 0 : (kvb_error_set(err, KVB_EINPUT, "%s", e2.msg), -1);
	}
	kvb_exec_result_release(&r);
	return rc;
}

int kvb_git_dirty(const char *repo, char **what, struct kvb_error *err)
{
	static const char *const argv[] = { "status", "--porcelain", "--untracked-files=no", NULL };
	char *out = NULL;
	int rc;
	*what = NULL;
	if ((rc = kvb_git_line(repo, argv, &out, NULL, err)))
		return -1;
	rc = *out != '\0';
	if (rc) {
		/* the first few paths, enough to say what is dirty */
		size_t n = 0;
		const char *p = out;
		for (int lines = 0; *p && lines < 3; lines++) {
			p += strcspn(p, "\n");
			if (*p)
				p++;
		}
		n = (size_t)(p - out);
		while (n && out[n - 1] == '\n')
			n--;
		*what = kvb_xstrndup(out, n);
	}
	free(out);
	return rc;
}

int kvb_git_series(const char *repo, const char *range, struct kvb_strv *out, struct kvb_error *err)
{
	const char *dots = strstr(range, "..");
	char a[41], b[41], *lo, *hi, *list = NULL;
	int rc;
	if (!dots || dots == range || !dots[2] || dots[2] == '.' || strstr(dots + 2, ".."))
		return kvb_error_set(err, KVB_EUSAGE, "--series '%s': expected A..B (two revisions)", range);
	lo = kvb_xstrndup(range, (size_t)(dots - range));
	hi = kvb_xstrdup(dots + 2);
	if ((rc = kvb_git_commit(repo, lo, a, err)) || (rc = kvb_git_commit(repo, hi, b, err)))
		goto out;
	if ((rc = kvb_git_is_ancestor(repo, a, b, err)) != 1) {
		if (rc == 0)
			kvb_error_set(err, KVB_EINPUT, "--series %s: %s is not an ancestor of %s in %s", range, lo, hi, repo);
		rc = KVB_EINPUT;
		goto out;
	}
	{
		char *spec = kvb_xasprintf("%s..%s", a, b);
		const char *argv[] = { "rev-list", "--reverse", "--first-parent", spec, NULL };
		rc = kvb_git_line(repo, argv, &list, NULL, err);
		free(spec);
	}
	if (rc)
		goto out;
	kvb_strv_push(out, a);
	for (char *save = NULL, *l = strtok_r(list, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		kvb_strv_push(out, l);
	if (out->n < 2)
		rc = kvb_error_set(err, KVB_EINPUT, "--series %s: no commits between %s and %s", range, lo, hi);
out:
	free(list);
	free(lo);
	free(hi);
	return rc;
}
