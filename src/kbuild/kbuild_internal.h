/*
 * The kernel builder's own header, shared by kbuild/kbuild*.c and by nothing else: a build in
 * progress and what one of these files calls in another.
 */
#ifndef KVB_KBUILD_KBUILD_INTERNAL_H
#define KVB_KBUILD_KBUILD_INTERNAL_H

#include "kbuild/kbuild.h"
#include "kbuild/git.h"
#include "kbuild/variant.h"
#include "core/buf.h"
#include "core/log.h"
#include "core/sha256.h"
#include "core/spawn.h"
#include "flash/kimage.h"

struct step {
	const char *title;          /* progress line prefix: "build 1a2b3c4d5e6f" */
	const char *log, *errlog;   /* stdout and stderr files (appended to) */
	uint64_t t0_ns, deadline_ns;
	const struct kvb_build_opts *o;
};

/* One build of a pair: its paths (owned), the steps' environment and make command line, its step runner. */
struct build {
	const struct kvb_build_spec *s;
	struct step st;
	char *src, *out, *stamp, *dotconfig;  /* PAIR/src, PAIR/out, out's config key and .config */
	struct kvb_strv env;                  /* KBUILD_BUILD_VERSION, ccache's (depend mode), KVB_SRC, KVB_OUT */
	struct kvb_strv base;                 /* make -C SRC O=OUT -jN MAKE_ARGS [CC=ccache CC] */
};

/* kbuild_steps.c */
/* Checks out sha from repo into src (kvbench's own worktree of the pair); KVB_E* with git's words. */
int kvb_kbuild_checkout(const char *repo, const char *src, const char *sha, struct kvb_error *err);
void kvb_kbuild_rm_rf(const char *dir);
/*
 * What the fragments among config (file paths; make targets are skipped) asked that the final
 * .config at dotconfig does not hold, as Kconfig reads a fragment (CRLF line ends, "=n" as "not
 * set"); a symbol a later fragment sets again is checked at its last value only (a variant's
 * fragment overrides the agenda's, as merge_config.sh merges it). NULL when all hold, else the
 * unmet lines (at most 8, then "and N more"; owned).
 */
char *kvb_kbuild_config_unmet(const struct kvb_strv *config, const char *dotconfig);
int kvb_kbuild_do_build(const struct kvb_build_spec *s, const char *repo, const char *cc, const char *pair,
	     const char *tmpdir, const struct kvb_build_opts *o, struct kvb_build_result *r, char **fail,
	     struct kvb_error *err);

#endif
