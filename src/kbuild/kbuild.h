/*
 * Building one kernel revision (docs/design.md#kernels-from-git): a `build:` block (agenda or
 * platform) applied to a commit of a git repository, the finished files kept
 * in a cache keyed by (commit, config hash, toolchain, make args).
 *
 * Layout under the cache root (default ${XDG_CACHE_HOME:-~/.cache}/kvbench):
 *   obj/<REPO16>-<KEY16>/src     a `git clone --shared` of the repository:
 *                                switched from revision to revision with
 *                                `git checkout`, so only the files a commit
 *                                changes get new mtimes (a fresh git worktree
 *                                per revision would give every file a new
 *                                mtime and new absolute paths, and make would
 *                                rebuild everything). Nothing is registered
 *                                in the user's repository.
 *   obj/<REPO16>-<KEY16>/out     the out-of-tree object directory (make O=)
 *   obj/<REPO16>-<KEY16>.lock    flock while a build uses the pair (removed after)
 *   images/<SHA12>-<KEY16>/      the declared outputs (kernel, dtb, initrd,
 *                                modules), build.log and info.json; a
 *                                directory there is complete (written under
 *                                a temporary name, renamed at the end)
 *   ccache/                      CCACHE_DIR when ccache is installed (CCACHE_DEPEND=1: a miss
 *                                is not preprocessed twice)
 * KEY16: 16 hex digits of sha256 over the config targets, the contents of
 * the fragment files, the make args, the command and the toolchain version.
 *
 * Every build runs with KBUILD_BUILD_VERSION=<SHA12> (init/Makefile: the
 * "#N" of `uname -v`), and the built image must say so: that is how the
 * identity check confirms that the board runs the commit that was built.
 */
#ifndef KVB_KBUILD_KBUILD_H
#define KVB_KBUILD_KBUILD_H

#include "config/doc.h"
#include "config/keys.h"
#include "core/error.h"
#include "core/util.h"

#include <stdint.h>

enum kvb_bout { KVB_BOUT_KERNEL, KVB_BOUT_DTB, KVB_BOUT_INITRD, KVB_BOUT_MODULES, KVB_BOUT_N };
extern const char *const kvb_bout_names[KVB_BOUT_N];

/* A `build:` block, validated. Relative fragment files and `command` are resolved against base_dir. */
struct kvb_build_spec {
	char *repo;                 /* default repository of git variants, or NULL */
	struct kvb_strv config;     /* make targets ("tinyconfig") or fragment files (absolute paths) */
	struct kvb_strv make_args;  /* "ARCH=arm64", "LLVM=1" ... */
	char *command;              /* vendor build: run instead of make (gets KVB_SRC, KVB_OUT), or NULL */
	char *outputs[KVB_BOUT_N];  /* paths relative to the object directory (make) or KVB_OUT (command) */
	int jobs;                   /* make -j; 0 = number of online CPUs */
	unsigned timeout_s;         /* whole build; default 3 h */
};

extern const struct kvb_keydef kvb_build_keys[];

/*
 * Reads a `build:` mapping (obj may be NULL: no build block). path names it in
 * messages ("agenda.yaml: build"); base_dir resolves relative files. Every
 * problem goes to d; returns KVB_EINPUT when there was one.
 */
int kvb_build_spec_load(struct kvb_build_spec *s, const cJSON *obj, const char *path, const char *base_dir,
			struct kvb_diag *d);
void kvb_build_spec_release(struct kvb_build_spec *s);

/* What one finished build gave. Strings owned; release with kvb_build_result_release. */
struct kvb_build_result {
	char sha[41];
	char *describe;              /* git describe --always --tags */
	char *subject;               /* first line of the commit message */
	char key[17];                /* config hash (KEY16 above) */
	char *toolchain;             /* first line of `CC --version` */
	char *dir;                   /* images/<SHA12>-<KEY16> */
	char *files[KVB_BOUT_N];     /* absolute paths of the declared outputs, NULL when not declared */
	char *log;                   /* build.log (whole make output) */
	double build_s;              /* wall time of the build that made it, s */
	int cached;                  /* 1 when it came from the cache without building */
	char *error;                 /* failed build: the reason and the end of the log; NULL on success */
	char *config;                /* the final .config kept with the image (images/.../config), or NULL */
	char base_sha[41];           /* patched builds: the revision the patches went onto; "" otherwise */
	struct kvb_strv patches;     /* patched builds: "SHA40\tSUBJECT" per commit the patches made */
};
void kvb_build_result_release(struct kvb_build_result *r);

struct kvb_build_opts {
	const char *cache_root;      /* NULL = ${XDG_CACHE_HOME:-$HOME/.cache}/kvbench */
	volatile int *cancel;        /* set to 1 (Ctrl-C) to stop the build; it then fails "interrupted" */
	int quiet;                   /* no progress line */
	const char *label;           /* what is built, for the progress line ("uclamp-off 1/4": the variant and
					its place among the agenda's variants), or NULL (then the commit says) */
};

/*
 * Builds repo at commit sha with spec (or finds it in the cache). Returns
 * KVB_OK with r->error == NULL on success; KVB_OK with r->error set when the
 * build ran and failed (a broken commit: the caller fails that variant);
 * an error code when the build could not be attempted (git, I/O, lock,
 * interrupted: err set). Nothing is left in the repository.
 */
int kvb_build_rev(const struct kvb_build_spec *spec, const char *repo, const char *sha,
		  const struct kvb_build_opts *o, struct kvb_build_result *r, struct kvb_error *err);

/* Absolute path of p (relative to base_dir, ~/ to $HOME; realpath when it exists). Owned. */
char *kvb_build_resolve(const char *base_dir, const char *p);
/* 1 when a config item names a fragment file ("*.config" or a path), 0 for a make target. */
int kvb_build_is_fragment(const char *item);

/*
 * Like kvb_build_rev, with patch files (git format-patch output or mboxes, absolute paths)
 * applied by `git am` onto sha in the build's own checkout first (kbuild/variant.h): the
 * image is that of the patched commit (r->sha), r->base_sha is sha, r->patches lists what
 * was applied. A patch that does not apply is a failed build (r->error holds git's words).
 * patches NULL or empty: kvb_build_rev.
 */
int kvb_build_rev_patched(const struct kvb_build_spec *spec, const char *repo, const char *sha,
			  const struct kvb_strv *patches, const struct kvb_build_opts *o, struct kvb_build_result *r,
			  struct kvb_error *err);

/* The cache root (owned). */
char *kvb_build_cache_root(const char *override);

#endif
