/* Implements artifact fetching with libcurl into a sha256-addressed cache, and verification. */
#include "flash/fetch.h"
#include "core/log.h"
#include "core/sha256.h"
#include "core/util.h"

#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *kvb_fetch_cache_dir(void)
{
	const char *env = getenv("KVB_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char *d;
	if (env && *env)
		d = kvb_xasprintf("%s/artifacts", env);
	else if (xdg && *xdg)
		d = kvb_xasprintf("%s/kvbench/artifacts", xdg);
	else
		d = kvb_xasprintf("%s/.cache/kvbench/artifacts", home && *home ? home : "/tmp");
	kvb_mkdir_p(d, 0755);
	return d;
}

static int is_url(const char *s)
{
	return !strncmp(s, "http://", 7) || !strncmp(s, "https://", 8) || !strncmp(s, "file://", 7);
}

static int valid_sha(const char *s)
{
	if (!s || strlen(s) != 64)
		return 0;
	for (const char *p = s; *p; p++)
		if (!isxdigit((unsigned char)*p))
			return 0;
	return 1;
}

/* How a download attempt ended: done, worth another attempt, or not (the server refused: 4xx). */
enum download_result { DOWNLOAD_DONE, DOWNLOAD_RETRY, DOWNLOAD_GIVE_UP };

/* One download attempt into part (appending from its current size); why in curlmsg when not done. */
static enum download_result download(const char *url, const char *part, char *curlmsg, size_t n)
{
	struct stat st;
	curl_off_t from = 0;
	FILE *f;
	CURL *c;
	CURLcode cc;
	long code = 0;
	if (!stat(part, &st))
		from = (curl_off_t)st.st_size;
	f = fopen(part, from ? "ab" : "wb");
	if (!f) {
		snprintf(curlmsg, n, "cannot write %s: %s", part, strerror(errno));
		return DOWNLOAD_RETRY;
	}
	c = curl_easy_init();
	if (!c) {
		fclose(f);
		snprintf(curlmsg, n, "curl_easy_init failed");
		return DOWNLOAD_RETRY;
	}
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, f);
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(c, CURLOPT_FAILONERROR, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 30L);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1024L);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, 60L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https,file");
	curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	if (from)
		curl_easy_setopt(c, CURLOPT_RESUME_FROM_LARGE, from);
	cc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	curl_easy_cleanup(c);
	if (fclose(f) && cc == CURLE_OK) {
		snprintf(curlmsg, n, "writing %s: %s", part, strerror(errno));
		return DOWNLOAD_RETRY;
	}
	if (cc == CURLE_RANGE_ERROR || (from && code == 416)) {
		/* the server cannot resume: start over */
		unlink(part);
		snprintf(curlmsg, n, "server cannot resume; restarting");
		return DOWNLOAD_RETRY;
	}
	if (cc != CURLE_OK) {
		snprintf(curlmsg, n, "%s%s", curl_easy_strerror(cc), code >= 400 ? " (HTTP error)" : "");
		if (code >= 400 && code < 500)
			return DOWNLOAD_GIVE_UP;
		return DOWNLOAD_RETRY;
	}
	return DOWNLOAD_DONE;
}

int kvb_fetch(const char *src, const char *expected_sha256, int allow_unverified, const char *what,
	      struct kvb_fetched *out, struct kvb_error *err)
{
	char hex[65];
	int64_t bytes = 0;
	memset(out, 0, sizeof(*out));
	if (expected_sha256 && !valid_sha(expected_sha256))
		return kvb_error_set(err, KVB_EINPUT, "%s: sha256 '%s' is not 64 hex digits", what, expected_sha256);
	if (!is_url(src)) {
		if (kvb_sha256_file(src, hex, &bytes))
			return kvb_error_set(err, KVB_EINPUT, "%s: cannot read '%s': %s", what, src, strerror(errno));
		if (expected_sha256 && strcasecmp(hex, expected_sha256))
			return kvb_error_set(err, KVB_EINPUT, "%s: '%s' has sha256 %s, expected %s", what, src, hex,
					     expected_sha256);
		out->path = kvb_xstrdup(src);
		memcpy(out->sha256, hex, sizeof(hex));
		out->bytes = bytes;
		return KVB_OK;
	}
	if (!expected_sha256 && !allow_unverified)
		return kvb_error_set(err, KVB_EINPUT,
				     "%s: refusing URL '%s' without a sha256 (give sha256, or --allow-unverified)", what, src);
	{
		char *dir = kvb_fetch_cache_dir(), *final = NULL, *part;
		char msg[512] = "";
		int rc = KVB_OK, attempt;
		if (expected_sha256) {
			char lower[65];
			for (int i = 0; i < 65; i++)
				lower[i] = (char)tolower((unsigned char)expected_sha256[i]);
			final = kvb_xasprintf("%s/%s", dir, lower);
			if (!kvb_sha256_file(final, hex, &bytes) && !strcmp(hex, lower)) {
				kvb_debug("%s: cached %s", what, final);
				goto done;
			}
		}
		part = kvb_xasprintf("%s/.partial-%llu-%d", dir, (unsigned long long)kvb_mono_ns(), (int)getpid());
		if (expected_sha256) {
			free(part);
			part = kvb_xasprintf("%s.part", final);
		}
		curl_global_init(CURL_GLOBAL_DEFAULT);
		for (attempt = 1; attempt <= 4; attempt++) {
			enum download_result d = download(src, part, msg, sizeof(msg));
			if (d == DOWNLOAD_DONE)
				break;
			if (d == DOWNLOAD_GIVE_UP || attempt == 4) {
				rc = kvb_error_set(err, KVB_ETARGET, "%s: cannot fetch '%s': %s", what, src, msg);
				break;
			}
			kvb_warn("%s: fetching '%s' failed (%s); retry %d", what, src, msg, attempt);
			kvb_sleep_ms(500ull << attempt);
		}
		curl_global_cleanup();
		if (!rc) {
			if (kvb_sha256_file(part, hex, &bytes)) {
				rc = kvb_error_set(err, KVB_ETARGET, "%s: cannot read %s: %s", what, part, strerror(errno));
			} else if (expected_sha256 && strcasecmp(hex, expected_sha256)) {
				rc = kvb_error_set(err, KVB_EINPUT, "%s: '%s' has sha256 %s, expected %s", what, src, hex,
						   expected_sha256);
				unlink(part);
			} else {
				free(final);
				final = kvb_xasprintf("%s/%s", dir, hex);
				if (rename(part, final))
					rc = kvb_error_set(err, KVB_ETARGET, "%s: cannot store %s: %s", what, final,
							   strerror(errno));
			}
		}
		free(part);
		if (rc) {
			free(final);
			free(dir);
			return rc;
		}
	done:
		out->path = final;
		memcpy(out->sha256, hex, sizeof(hex));
		out->bytes = bytes;
		free(dir);
		return KVB_OK;
	}
}

void kvb_fetched_release(struct kvb_fetched *f)
{
	free(f->path);
	memset(f, 0, sizeof(*f));
}
