/*
 * Variant artifacts (kernel, dtb, initrd, boot image, modules) from a path or
 * a URL (http, https, file) to a verified local file (docs/design.md#the-job-lifecycle):
 *
 *  - URLs are fetched with libcurl (redirects followed, 3 retries with
 *    backoff, an interrupted download resumed from the partial file) into
 *    the cache ${XDG_CACHE_HOME:-~/.cache}/kvbench/artifacts/<sha256>;
 *    a cached file whose sha256 matches is reused without a download.
 *  - A URL without an expected sha256 is refused unless allow_unverified.
 *  - A mismatch between expected and actual sha256 is always refused.
 *  - Local paths are hashed in place (and checked when a sha256 is given).
 */
#ifndef KVB_FETCH_H
#define KVB_FETCH_H

#include "core/error.h"

struct kvb_fetched {
	char *path;        /* local file to use (owned) */
	char sha256[65];   /* of that file */
	long long bytes;
};

/* Cache directory (created). Owned. $KVB_CACHE_DIR overrides. */
char *kvb_fetch_cache_dir(void);

/*
 * Resolves src (path or URL) into out. expected_sha256 may be NULL.
 * what names the artifact in messages ("variant 'new' kernel").
 * Returns KVB_OK, KVB_EINPUT (refused: mismatch, unverified URL, missing file)
 * or KVB_ETARGET (download failed after retries).
 */
int kvb_fetch(const char *src, const char *expected_sha256, int allow_unverified, const char *what,
	      struct kvb_fetched *out, struct kvb_error *err);
void kvb_fetched_release(struct kvb_fetched *f);

#endif
