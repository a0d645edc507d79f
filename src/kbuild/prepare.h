/*
 * Git variants of a run (docs/design.md#kernels-from-git): turns `git: {repo, rev}` variants,
 * or the commits of `run --series A..B` / `--series-file`, into variants
 * with a built kernel, before the engine runs; then records what each was
 * built from (table variant_build, build log artifacts) once the run exists.
 *
 * A build that fails fails only its variant (kvb_variant.unusable carries
 * the reason and the end of the log into the engine); anything the user
 * named wrong (no repository, unknown revision, dirty work tree without
 * allow_dirty, missing outputs) is an error with KVB_EINPUT.
 */
#ifndef KVB_KBUILD_PREPARE_H
#define KVB_KBUILD_PREPARE_H

#include "kbuild/kbuild.h"
#include "config/agenda.h"
#include "store/store.h"

/* One git variant and its build. */
struct kvb_build_item {
	char *variant;           /* variant name */
	char *repo;              /* work tree top (absolute) */
	char *rev;               /* as written */
	char parent[41];         /* first parent, "" for a root commit */
	int series_pos;          /* 0-based position in the series, -1 outside a series */
	struct kvb_build_result res;
};

struct kvb_build_set {
	struct kvb_build_spec spec;
	struct kvb_build_item *items;
	size_t n;
	volatile int cancel;     /* set by SIGINT/SIGTERM while building */
};

struct kvb_prepare_opts {
	const char *series;      /* "A..B" or NULL */
	const char *series_file; /* file with one revision a line ('#' comments), or NULL */
	const char *repo;        /* --repo, else build.repo, else the git variants' own */
	int allow_dirty;         /* build committed revisions of a repository with uncommitted changes */
	const char *cache_root;  /* NULL = default (kbuild.h) */
	const cJSON *platform_build; /* the platform's build: block (used when the agenda has none), or NULL */
	const char *platform_file;   /* the platform file: its directory resolves platform_build's paths */
	volatile int *cancel;    /* the caller's Ctrl-C flag (its handler stays), or NULL: catch SIGINT here */
};

/*
 * Loads the build block, expands the series into variants (replacing the
 * agenda's, which must not name kernels), builds every git variant and points
 * its kernel (and dtb/initrd/modules) at the cached files. Ctrl-C stops the
 * current build (KVB_EINTR "interrupted", as an interrupted run). set must be zeroed by the caller.
 */
int kvb_build_prepare(struct kvb_agenda *a, const struct kvb_prepare_opts *o, struct kvb_build_set *set,
		      struct kvb_error *err);
/* Replaces a's variants by one git variant per commit (named by 10 hex digits) of repo. */
void kvb_build_set_variants(struct kvb_agenda *a, const char *repo, const char *const *shas, size_t n);
/* kvb_run_opts.on_variants: writes variant_build rows and copies build logs into the run's artifacts. */
int kvb_build_record(void *set, struct kvb_store *st, int64_t run_id, struct kvb_error *err);
void kvb_build_set_release(struct kvb_build_set *set);

/* Loads the build spec only (bisect uses it with its own revisions). base_dir resolves relative paths. */
int kvb_build_spec_from_agenda(const struct kvb_agenda *a, const cJSON *platform_build, const char *platform_file,
			       struct kvb_build_spec *spec, struct kvb_error *err);
/* Checks a repository for bisect/run: top level, dirty (refused unless allow_dirty). *top owned. */
int kvb_build_check_repo(const char *dir, int allow_dirty, char **top, struct kvb_error *err);

/* Installs SIGINT/SIGTERM handlers that set *flag (restored by kvb_build_signals_restore). */
void kvb_build_signals_catch(volatile int *flag);
void kvb_build_signals_restore(void);

#endif
