/*
 * What one variant adds to the agenda's `build:` block: its own build settings and its
 * patches (docs/kbuild.md).
 *
 *   variants:
 *     - name: uclamp
 *       git: {rev: kvb-base, patches: [0001-sched-uclamp-fix.patch, thread.mbox]}
 *       build: {config: [uclamp.config], make_args: [KCFLAGS=-O1]}
 *
 * `build.config` items (fragments or make targets) and `make_args` come after the agenda's,
 * so a variant's fragment overrides the agenda's for the symbols it names (merge_config.sh
 * order; kbuild.c checks each symbol at its last value). The cache key covers them, so
 * variants with different settings get different images.
 *
 * `git.patches` are `git format-patch` files or mboxes (lore's t.mbox), applied in order
 * with `git am` onto the variant's revision in kvbench's own checkout of the repository
 * (obj/PAIR/src, never the user's work tree), with a fixed committer and the author's dates,
 * so the same base and patches give the same commit id (and the cached image) again.
 */
#ifndef KVB_KBUILD_VARIANT_H
#define KVB_KBUILD_VARIANT_H

#include "kbuild/kbuild.h"

extern const struct kvb_keydef kvb_variant_build_keys[];

/* The strings of a scalar or list YAML node into out (appended; no check: kvb_keys_check did it). kbuild_spec.c. */
void kvb_build_push_strlist(struct kvb_strv *out, const cJSON *v);

/*
 * dst = a deep copy of base with the variant's `build:` mapping obj appended (obj may be
 * NULL: a plain copy). path names obj in messages ("agenda.yaml: variants[2].build");
 * base_dir resolves relative fragment files. Problems go to d; KVB_EINPUT when there was one.
 */
int kvb_build_spec_extend(struct kvb_build_spec *dst, const struct kvb_build_spec *base, const cJSON *obj,
			  const char *path, const char *base_dir, struct kvb_diag *d);

/*
 * The `git.patches` list of a variant into out (absolute paths, resolved against base_dir).
 * path names the list in messages; a missing or unreadable file is a message in d.
 * KVB_EINPUT when there was a problem.
 */
int kvb_patches_load(const cJSON *list, const char *path, const char *base_dir, struct kvb_strv *out,
		     struct kvb_diag *d);

/*
 * Applies patches (absolute paths) with `git am` onto sha in src, a checkout kvbench owns,
 * leaving src detached at the result. On success out_sha gets the last commit and applied
 * one "SHA40\tSUBJECT" line per commit the patches made, oldest first. A patch that does
 * not apply is not an error: *fail gets "PATCH does not apply onto SHA12: <git am's own
 * words>" (owned), `git am --abort` leaves src at sha. Errors (git cannot run): err set.
 */
int kvb_patches_apply(const char *src, const char *sha, const struct kvb_strv *patches, char out_sha[41],
		      struct kvb_strv *applied, char **fail, struct kvb_error *err);

/*
 * The options two final .config files set differently, as "CONFIG_X: base -> this" lines
 * joined with "; " ("n" for an option that is not set), in this file's order, at most
 * max entries (then " and N more"). Owned; "" when they agree; NULL when either file
 * cannot be read.
 */
char *kvb_config_diff(const char *base_config, const char *config, int max);

#endif
