/*
 * What was built for a variant that names a git revision (results-schema/0007_build.sql:
 * variant_build): `git:` variants, `run --series`, bisect steps. KVB_OK or KVB_ESTORE.
 */
#ifndef KVB_STORE_BUILD_H
#define KVB_STORE_BUILD_H

#include "store/store.h"

/* One variant's build; strings borrowed, NULL where the column is NULL. */
struct kvb_variant_build {
	const char *repo;        /* absolute path of the repository */
	const char *rev;         /* the revision as the user wrote it */
	const char *sha;         /* 40 hex */
	const char *describe, *subject;
	const char *parent_sha;  /* NULL for a root commit */
	int series_pos;          /* 0-based position in a --series, -1 when not in one */
	const char *config_hash; /* 16 hex */
	const char *toolchain;
	double build_s;          /* wall time of the build that made the image, s */
	int cached;              /* 1: the image came from the cache */
	const char *build_log;   /* path of the build log */
	const char *error;       /* why the build failed, NULL when it did not */
	const char *config_diff; /* final .config against the run's first built variant's, NULL unknown */
	const char *patched_onto;/* the revision patches went onto (40 hex), NULL without patches */
	const char *const *patches; /* "SHA40\tSUBJECT" per patch commit, oldest first */
	size_t npatches;
};

/* Stores (or replaces) variant_id's build and its patch commits (variant_patch). */
int kvb_store_variant_build(struct kvb_store *s, int64_t variant_id, const struct kvb_variant_build *b,
			    struct kvb_error *err);

#endif
