/*
 * Tests that no platform key turns off ssh host key checking: against a real
 * sshd whose key is NOT in known_hosts, every connection key of the ssh
 * target (from its own key table, so a key added later is covered too) set
 * to every value that might mean "don't check" either fails validation or
 * leaves the connection refused before authentication, with known_hosts
 * untouched. The one documented exception is `host_key: accept-new`
 * (trust on first use: it records the key; test_ssh covers it and that a
 * changed key is still refused).
 */
#include "config/platform.h"
#include "engine/catalog.h"
#include "core/buf.h"
#include "core/util.h"
#include "sshd_fixture.h"
#include "target/target.h"
#include "test.h"

#include <stdlib.h>
#include <sys/stat.h>

static const char *const strs[] = { "no", "off", "false", "none", "ignore", "insecure", "yes", "accept-any",
				    "accept-all", "disabled", "/dev/null", "" };
#define NCANDIDATES (6 + (int)(sizeof(strs) / sizeof(strs[0])))

/* Value i (0 <= i < NCANDIDATES) of those someone might hope disable checking, of every JSON type. */
static cJSON *candidate(int i)
{
	switch (i) {
	case 0: return cJSON_CreateTrue();
	case 1: return cJSON_CreateFalse();
	case 2: return cJSON_CreateNumber(0);
	case 3: return cJSON_CreateNumber(1);
	case 4: return cJSON_CreateNumber(-1);
	case 5: return cJSON_CreateNull();
	default: return cJSON_CreateString(strs[i - 6]);
	}
}

static off_t file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) ? -1 : st.st_size;
}

/*
 * Writes a platform reaching s with known_hosts = an empty file and conn[key] = value, loads it,
 * and opens the target. Returns 1 when it loaded (and then the open must have been refused), 0 when
 * validation refused it.
 */
static int try_one(const struct kvb_sshd *s, const cJSON *base, const char *key, cJSON *value, const char *kh)
{
	cJSON *root = cJSON_Duplicate(base, 1), *conn = cJSON_GetObjectItemCaseSensitive(root, "connection");
	char *path = kvb_xasprintf("%s/hk.json", s->dir), *text, *shown = cJSON_PrintUnformatted(value);
	struct kvb_platform p;
	struct kvb_diag d;
	struct kvb_target t;
	struct kvb_error err = { 0 };
	FILE *f;
	int loaded = 0;

	cJSON_DeleteItemFromObjectCaseSensitive(conn, "known_hosts");
	cJSON_AddStringToObject(conn, "known_hosts", kh);
	cJSON_DeleteItemFromObjectCaseSensitive(conn, key);
	cJSON_AddItemToObject(conn, key, value);
	text = cJSON_Print(root);
	f = fopen(path, "w");
	CHECK(f && fputs(text, f) >= 0 && !fclose(f));
	kvb_diag_init(&d, NULL);
	if (!kvb_platform_load(&p, path, &kvb_catalog, &d)) {
		int rc = kvb_target_open(&t, &p, &err);
		if (!rc)
			rc = kvb_target_wait_ready(&t, 5000, &err);
		if (rc != KVB_ETARGET)
			fprintf(stderr, "%s: %s did not refuse the connection (rc %d)\n", key, shown, rc);
		CHECK(rc == KVB_ETARGET);
		if (rc == KVB_ETARGET && !strstr(err.msg, "host key") && !strstr(err.msg, "known_hosts"))
			fprintf(stderr, "%s: %s refused for another reason: %s\n", key, shown, err.msg);
		kvb_target_close(&t);
		loaded = 1;
	}
	kvb_platform_release(&p);
	kvb_diag_release(&d);
	CHECK(file_size(kh) <= 0); /* nothing recorded */
	free(text);
	free(shown);
	free(path);
	cJSON_Delete(root);
	return loaded;
}

static void test_hostkey__no_connection_key_disables_host_key_checking(void)
{
	struct kvb_sshd s;
	struct kvb_doc doc;
	struct kvb_diag d;
	const struct kvb_target_ops *ops = kvb_target_find("ssh");
	static const char *const basics[] = { "host", "port", "user", "key", NULL };
	static const char *const invented[] = { "StrictHostKeyChecking", "strict_host_key_checking", "UserKnownHostsFile",
						"verify_host_key", "insecure", "check_host_key", NULL };
	char *kh;
	int loaded = 0, tried = 0;

	memset(&s, 0, sizeof(s));
	CHECK(ops && ops->conn_keys);
	if (!ops || kvb_sshd_start(&s)) {
		CHECK(0);
		return;
	}
	kh = kvb_xasprintf("%s/empty_known_hosts", s.dir);
	fclose(fopen(kh, "w"));
	kvb_diag_init(&d, NULL);
	CHECK(kvb_doc_load(&doc, s.platform, &d) == KVB_OK);
	for (const struct kvb_keydef *def = ops->conn_keys; def->key; def++) {
		int basic = 0;
		for (size_t b = 0; basics[b]; b++)
			basic |= !strcmp(def->key, basics[b]);
		if (basic)
			continue;
		for (int i = 0; i < NCANDIDATES; i++) {
			cJSON *v = candidate(i);
			if (!strcmp(def->key, "host_key") && cJSON_IsString(v) && !strcmp(v->valuestring, "accept-new")) {
				cJSON_Delete(v);
				continue;
			}
			loaded += try_one(&s, doc.root, def->key, v, kh);
			tried++;
		}
		/* and every documented choice of an enumerated key, but accept-new */
		for (const char *c = def->choices; c && *c;) {
			size_t n = strcspn(c, "|");
			char *choice = kvb_xstrndup(c, n);
			if (strcmp(def->key, "host_key") || strcmp(choice, "accept-new")) {
				loaded += try_one(&s, doc.root, def->key, cJSON_CreateString(choice), kh);
				tried++;
			}
			free(choice);
			c += n + (c[n] == '|');
		}
	}
	for (size_t i = 0; invented[i]; i++)
		for (int v = 0; v < 3; v++) {
			CHECK(try_one(&s, doc.root, invented[i], candidate(v == 0 ? 1 : v == 1 ? 6 : 2), kh) == 0);
			tried++;
		}
	fprintf(stderr, "%d combinations tried, %d loaded and were refused\n", tried, loaded);
	CHECK(loaded >= 20); /* the loop really connected, many times */
	CHECK(kvb_sshd_log_count(&s, "Accepted publickey") == 0);
	d.doc = NULL;
	kvb_doc_release(&doc);
	kvb_diag_release(&d);
	free(kh);
	kvb_sshd_release(&s);
}

#define TESTS T(test_hostkey__no_connection_key_disables_host_key_checking)
#include "test_main.h"
