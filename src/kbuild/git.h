/*
 * git as kvbench needs it: every call is `git -C REPO ARGS...` through
 * kvb_spawn_run (argv, never a shell string). Used by the builder (worktrees,
 * revisions), `run --series` (rev-list) and `kvbench bisect` (git's own
 * bisect: start/good/bad/skip/log/reset).
 *
 * Errors: KVB_EINPUT for what the user named wrong (not a repository, unknown
 * revision), KVB_ETARGET when git itself cannot be run. Messages quote the
 * repository and the revision and carry git's own stderr line.
 */
#ifndef KVB_KBUILD_GIT_H
#define KVB_KBUILD_GIT_H

#include "core/error.h"
#include "core/spawn.h"
#include "core/util.h"

/*
 * Runs `git -C repo argv...` (argv NULL-terminated, without "git"), waits.
 * r (initialised by the caller) gets the output. KVB_OK when git exited 0;
 * otherwise KVB_EINPUT with "git ARGS: <first stderr line>" (what = NULL) or
 * "<what>: <stderr line>".
 */
int kvb_git(const char *repo, const char *const *argv, struct kvb_exec_result *r, const char *what,
	    struct kvb_error *err);
/* Like kvb_git; *out gets stdout without the trailing newline (owned). */
int kvb_git_line(const char *repo, const char *const *argv, char **out, const char *what, struct kvb_error *err);

/* The top of the work tree containing dir (absolute, owned); KVB_EINPUT "DIR: not a git repository". */
int kvb_git_toplevel(const char *dir, char **top, struct kvb_error *err);
/* Full 40-hex commit id of rev (rev^{commit}); KVB_EINPUT "unknown revision 'REV' in REPO". */
int kvb_git_commit(const char *repo, const char *rev, char sha[41], struct kvb_error *err);
/* `git describe --always --tags` of sha (owned). Never fails: falls back to the short sha. */
char *kvb_git_describe(const char *repo, const char *sha);
/* First line of the commit message (owned, "" when unreadable). */
char *kvb_git_subject(const char *repo, const char *sha);
/* 1 when anc is an ancestor of (or equal to) desc, 0 when not; -1 on error (err set). */
int kvb_git_is_ancestor(const char *repo, const char *anc, const char *desc, struct kvb_error *err);
/* Tracked files modified in repo's work tree or index: 1 dirty (first paths in err-free *what, owned), 0 clean. */
int kvb_git_dirty(const char *repo, char **what, struct kvb_error *err);
/*
 * Commits of "A..B" (or "A...B" refused) oldest first, A itself first: the
 * series whose first commit is the baseline (LISA's test_series compares
 * every commit with the first). Pushes 40-hex ids to out.
 */
int kvb_git_series(const char *repo, const char *range, struct kvb_strv *out, struct kvb_error *err);

#endif
