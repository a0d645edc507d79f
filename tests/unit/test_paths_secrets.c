/* Tests the output-directory guards (path components, no-follow mkdir/fopen) and platform secret redaction. */
#include "config/platform.h"
#include "core/util.h"
#include "test.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static void test_paths__agenda_names_become_one_safe_component(void)
{
	static const char *const cases[][2] = {
		{ "base", "base" },
		{ "v5.15-rc1+", "v5.15-rc1+" },
		{ "../../etc", "_._.._etc" },
		{ "..", "_." },
		{ ".hidden", "_hidden" },
		{ "/abs/path", "_abs_path" },
		{ "a b;$(x)`y`'\"\n", "a_b___x__y____" },
		{ "", "_" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = kvb_path_component(cases[i][0]);
		CHECK_STR(got, cases[i][1]);
		free(got);
	}
	{
		char long_name[200];
		char *got;
		memset(long_name, 'x', sizeof(long_name) - 1);
		long_name[sizeof(long_name) - 1] = '\0';
		got = kvb_path_component(long_name);
		CHECK(strlen(got) == 64);
		free(got);
	}
}

static void test_paths__mkdir_and_fopen_refuse_planted_symlinks(void)
{
	char dir[] = "/tmp/kvb-paths-XXXXXX";
	char *outside, *link, *file_link, *real, *target;
	FILE *f;
	CHECK(mkdtemp(dir) != NULL);
	outside = kvb_xasprintf("%s/outside", dir);
	link = kvb_xasprintf("%s/run-1", dir);
	real = kvb_xasprintf("%s/real", dir);
	file_link = kvb_xasprintf("%s/real/out.txt", dir);
	target = kvb_xasprintf("%s/outside/victim", dir);
	CHECK(mkdir(outside, 0755) == 0);
	CHECK(symlink(outside, link) == 0);
	errno = 0;
	CHECK(kvb_mkdir_nofollow(link, 0755) == -1 && errno == ELOOP);
	CHECK(kvb_mkdir_nofollow(real, 0755) == 0);
	CHECK(kvb_mkdir_nofollow(real, 0755) == 0); /* an existing directory is fine (resume) */
	CHECK(symlink(target, file_link) == 0);
	errno = 0;
	f = kvb_fopen_nofollow(file_link);
	CHECK(f == NULL && errno == ELOOP);
	if (f)
		fclose(f);
	CHECK(access(target, F_OK) == -1); /* nothing created through the link */
	unlink(file_link);
	f = kvb_fopen_nofollow(file_link);
	CHECK(f && fputs("ok", f) >= 0 && fclose(f) == 0);
	unlink(file_link);
	rmdir(real);
	unlink(link);
	rmdir(outside);
	rmdir(dir);
	free(outside);
	free(link);
	free(real);
	free(file_link);
	free(target);
}

static void test_secrets__keys_that_hold_secrets_are_recognised_whole(void)
{
	CHECK(kvb_is_secret_key("passphrase"));
	CHECK(kvb_is_secret_key("Password"));
	CHECK(kvb_is_secret_key("sudo_password"));
	CHECK(kvb_is_secret_key("api_key"));
	CHECK(kvb_is_secret_key("token"));
	CHECK(!kvb_is_secret_key("key"));           /* ssh private key *path* */
	CHECK(!kvb_is_secret_key("known_hosts"));
	CHECK(!kvb_is_secret_key("passwords_file_dir"));
	CHECK(!kvb_is_secret_key("tokens"));
}

static void test_secrets__redaction_reaches_every_depth_and_keeps_the_rest(void)
{
	const char *text = "{\"name\":\"b\",\"connection\":{\"type\":\"ssh\",\"key\":\"/k\",\"passphrase\":\"s1\"},"
			   "\"instruments\":{\"energy\":{\"probes\":[{\"host\":\"h\",\"password\":\"s2\"}],"
			   "\"token\":{\"nested\":\"s3\"}}}}";
	cJSON *root = cJSON_Parse(text), *red = kvb_redact_secrets(root);
	char *out = cJSON_PrintUnformatted(red), *orig = cJSON_PrintUnformatted(root);
	CHECK_STR(out, "{\"name\":\"b\",\"connection\":{\"type\":\"ssh\",\"key\":\"/k\",\"passphrase\":\"<redacted>\"},"
		       "\"instruments\":{\"energy\":{\"probes\":[{\"host\":\"h\",\"password\":\"<redacted>\"}],"
		       "\"token\":\"<redacted>\"}}}");
	CHECK_STR(orig, text); /* the loaded platform keeps its secret: the target needs it */
	free(out);
	free(orig);
	cJSON_Delete(red);
	cJSON_Delete(root);
}

#define TESTS                                                           \
	T(test_paths__agenda_names_become_one_safe_component)          \
	T(test_paths__mkdir_and_fopen_refuse_planted_symlinks)         \
	T(test_secrets__keys_that_hold_secrets_are_recognised_whole)   \
	T(test_secrets__redaction_reaches_every_depth_and_keeps_the_rest)
#include "test_main.h"
