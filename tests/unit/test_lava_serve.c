/* Tests for kvbench's HTTP server of LAVA jobs' files (src/target/lava_serve.c), spoken to with libcurl on loopback. */
#include "core/buf.h"
#include "core/error.h"
#include "core/util.h"
#include "target/lava_serve.h"

#include "test.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static size_t on_body(char *p, size_t sz, size_t n, void *arg)
{
	kvb_buf_add((struct kvb_buf *)arg, p, sz * n);
	return sz * n;
}

/* status of one request; body in *b (NUL-terminated); *len Content-Length (-1 none) */
static long fetch(const char *method, const char *url, struct kvb_buf *b, double *len)
{
	CURL *c = curl_easy_init();
	long status = 0;
	curl_off_t cl = -1;
	kvb_buf_reset(b);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_PATH_AS_IS, 1L); /* send ../ as written */
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, b);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
	if (!strcmp(method, "HEAD"))
		curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
	else if (!strcmp(method, "POST"))
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, "x");
	if (curl_easy_perform(c) == CURLE_OK) {
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
		curl_easy_getinfo(c, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl);
	}
	if (len)
		*len = (double)cl;
	kvb_buf_addf(b, "%s", "");
	curl_easy_cleanup(c);
	return status;
}

static char *make_file(const char *dir, const char *name, const char *text)
{
	char *p = kvb_xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	return p;
}

static void test_lava_serve__serves_offered_files_only_while_offered(void)
{
	char dir[] = "/tmp/kvb-serve-XXXXXX", *a, *b, *ua = NULL, *ub = NULL, *other;
	struct kvb_buf body = KVB_BUF_INIT;
	struct kvb_error err;
	double len;
	CHECK(mkdtemp(dir) != NULL);
	a = make_file(dir, "vmlinuz-6.1.0-57-cloud-amd64", "kernel bytes\n");
	b = make_file(dir, "initrd lava+1.cpio.gz", "initrd\n");
	CHECK(kvb_lava_serve_start("127.0.0.1", 0, NULL, &err) == KVB_OK);
	CHECK(kvb_lava_serve_offer(a, &ua, &err) == KVB_OK);
	CHECK(kvb_lava_serve_offer(b, &ub, &err) == KVB_OK);
	CHECK(ua && !strncmp(ua, "http://127.0.0.1:", 17));
	/* /<32 hex>/<base name>, the name escaped (LAVA names the download after the URL's last part) */
	CHECK(ua && strlen(strrchr(ua, '/') - 32) > 33 && !strcmp(strrchr(ua, '/'), "/vmlinuz-6.1.0-57-cloud-amd64"));
	CHECK(ub && !strcmp(strrchr(ub, '/'), "/initrd%20lava%2B1.cpio.gz"));
	CHECK(fetch("GET", ua, &body, NULL) == 200);
	CHECK_STR(body.data, "kernel bytes\n");
	CHECK(fetch("GET", ub, &body, NULL) == 200);
	CHECK_STR(body.data, "initrd\n");
	/* LAVA's validate step asks HEAD for the size */
	CHECK(fetch("HEAD", ua, &body, &len) == 200);
	CHECK(len == 13.0);
	CHECK(fetch("POST", ua, &body, NULL) == 405);
	/* anything else: another name under the token, a traversal, the directory, a guessed token */
	other = kvb_xasprintf("%.*s/passwd", (int)(strrchr(ua, '/') - ua), ua);
	CHECK(fetch("GET", other, &body, NULL) == 404);
	free(other);
	other = kvb_xasprintf("%.*s/../../../etc/passwd", (int)(strrchr(ua, '/') - ua), ua);
	CHECK(fetch("GET", other, &body, NULL) == 404);
	free(other);
	other = kvb_xasprintf("%.*s/", (int)(strrchr(ua, '/') - ua), ua);
	CHECK(fetch("GET", other, &body, NULL) == 404);
	free(other);
	other = kvb_xasprintf("%.*s/00000000000000000000000000000000/vmlinuz-6.1.0-57-cloud-amd64",
			      (int)(strchr(ua + 7, '/') - ua), ua);
	CHECK(fetch("GET", other, &body, NULL) == 404);
	free(other);
	/* withdrawn: gone, and it says how often it was fetched (GET, not HEAD) */
	CHECK(kvb_lava_serve_withdraw(ua) == 1);
	CHECK(fetch("GET", ua, &body, NULL) == 404);
	CHECK(fetch("GET", ub, &body, NULL) == 200);
	CHECK(kvb_lava_serve_withdraw(ub) == 2);
	kvb_lava_serve_stop();
	CHECK(fetch("GET", ub, &body, NULL) == 0); /* nobody listens */
	unlink(a);
	unlink(b);
	rmdir(dir);
	free(a);
	free(b);
	free(ua);
	free(ub);
	kvb_buf_release(&body);
}

static void test_lava_serve__host_and_bad_addresses(void)
{
	struct kvb_error err;
	char *u = NULL;
	CHECK(kvb_lava_serve_start("lava.example.org", 0, NULL, &err) == KVB_EINPUT);
	CHECK(strstr(err.msg, "not a numeric IPv4 or IPv6 address") != NULL);
	CHECK(kvb_lava_serve_start("0.0.0.0", 0, NULL, &err) == KVB_EINPUT);
	CHECK(strstr(err.msg, "serve_host") != NULL);
	CHECK(kvb_lava_serve_start("127.0.0.1", 70000, NULL, &err) == KVB_EINPUT);
	CHECK(kvb_lava_serve_offer("/etc/hostname", &u, &err) == KVB_ETARGET); /* not started */
	/* the URL carries the name the worker knows this host by; a second target joins the same server */
	CHECK(kvb_lava_serve_start("127.0.0.1", 0, "kvbench-host.lab", &err) == KVB_OK);
	CHECK(kvb_lava_serve_start("127.0.0.1", 0, "kvbench-host.lab", &err) == KVB_OK);
	CHECK(kvb_lava_serve_start("127.0.0.1", 8, NULL, &err) == KVB_EINPUT);
	CHECK(kvb_lava_serve_offer("/etc", &u, &err) == KVB_EINPUT); /* a directory */
	CHECK(kvb_lava_serve_offer("/etc/hostname", &u, &err) == KVB_OK);
	CHECK(u && !strncmp(u, "http://kvbench-host.lab:", 24));
	kvb_lava_serve_withdraw(u);
	free(u);
	kvb_lava_serve_stop();
	kvb_lava_serve_stop();
	/* IPv6 literals are bracketed */
	if (kvb_lava_serve_start("::1", 0, NULL, &err) == KVB_OK) {
		CHECK(kvb_lava_serve_offer("/etc/hostname", &u, &err) == KVB_OK);
		CHECK(u && !strncmp(u, "http://[::1]:", 13));
		kvb_lava_serve_withdraw(u);
		free(u);
		kvb_lava_serve_stop();
	}
}

#define TESTS                                                                                                          \
	T(test_lava_serve__serves_offered_files_only_while_offered)                                                    \
	T(test_lava_serve__host_and_bad_addresses)
#include "test_main.h"
