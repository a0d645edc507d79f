/*
 * Integration tests of the ssh-copy and command flashers: ssh-copy against a
 * real OpenSSH server on loopback (tests/integration/sshd-fixture.sh) whose
 * sessions find a fake `reboot` and a `cat` that reports a new boot_id after
 * it (this host must not reboot), command with real hook scripts on the
 * local target. The identity check then compares the host's own `uname -r`
 * / `uname -v` with synthetic kernel images.
 */
#include "test.h"
#include "engine/catalog.h"

#include "config/platform.h"
#include "core/sha256.h"
#include "core/util.h"
#include "engine/identity.h"
#include "flash/flash.h"
#include "flash/kimage.h"
#include "sshd_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

static void put_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

static char *read_text(const char *path)
{
	struct kvb_buf b = KVB_BUF_INIT;
	if (kvb_buf_read_file(&b, path))
		return kvb_xstrdup("(unreadable)");
	return kvb_buf_detach(&b);
}

static int exists(const char *path)
{
	return !access(path, F_OK);
}

/* An Image-like kernel: noise, then the banner of RELEASE and VERSION, then noise. */
static void make_kernel(const char *path, const char *release, const char *version)
{
	FILE *f = fopen(path, "wb");
	CHECK(f != NULL);
	if (!f)
		return;
	for (int i = 0; i < 30000; i++)
		fputc((i * 131 + 7) & 0xff, f);
	fprintf(f, "Linux version %s (kvb@build) (gcc (Debian 12.2.0-14) 12.2.0, GNU ld 2.40) %s\n", release, version);
	fputc(0, f);
	for (int i = 0; i < 5000; i++)
		fputc((i * 17) & 0xff, f);
	fclose(f);
}

/* A variant as the engine hands it to a flasher: files fetched, identity read from the image. */
static void make_variant(struct kvb_variant *v, const char *name, const char *kernel, const char *dtb)
{
	struct kvb_kimage_id id;
	struct kvb_error err;
	memset(v, 0, sizeof(*v));
	v->name = kvb_xstrdup(name);
	v->kernel = kvb_xstrdup(kernel);
	v->local[KVB_VF_KERNEL] = kvb_xstrdup(kernel);
	if (dtb) {
		v->dtb = kvb_xstrdup(dtb);
		v->local[KVB_VF_DTB] = kvb_xstrdup(dtb);
	}
	CHECK(kvb_kimage_identify(kernel, &id, &err) == KVB_OK);
	v->expected_release = id.release ? kvb_xstrdup(id.release) : NULL;
	v->expected_version = id.version ? kvb_xstrdup(id.version) : NULL;
	kvb_kimage_id_release(&id);
}

static void variant_release(struct kvb_variant *v)
{
	free(v->name);
	free(v->kernel);
	free(v->dtb);
	free(v->cmdline);
	for (int i = 0; i < KVB_VF_N; i++)
		free(v->local[i]);
	free(v->expected_release);
	free(v->expected_version);
	memset(v, 0, sizeof(*v));
}

static int load_platform(struct kvb_platform *p, const char *file)
{
	struct kvb_diag d;
	int rc;
	kvb_diag_init(&d, NULL);
	rc = kvb_platform_load(p, file, &kvb_catalog, &d);
	for (size_t i = 0; i < d.msgs.n; i++)
		fprintf(stderr, "%s\n", d.msgs.v[i]);
	kvb_diag_release(&d);
	return rc;
}

/* ---- ssh-copy ------------------------------------------------------------------------------ */

struct board {
	char dir[64];
	struct kvb_sshd s;
	struct kvb_platform plat;
	struct kvb_target t;
	int ok;
};

static void board_start(struct board *b)
{
	char *p, *env, *yaml;
	struct kvb_error err;
	memset(b, 0, sizeof(*b));
	snprintf(b->dir, sizeof(b->dir), "/tmp/kvb-flash-XXXXXX");
	CHECK(mkdtemp(b->dir) != NULL);
	p = kvb_xasprintf("%s/bin", b->dir);
	kvb_mkdir_p(p, 0755);
	free(p);
	p = kvb_xasprintf("%s/boot", b->dir);
	kvb_mkdir_p(p, 0755);
	free(p);
	/* `reboot` starts a "new boot": a fresh boot_id that `cat` reports from then on */
	p = kvb_xasprintf("%s/bin/reboot", b->dir);
	yaml = kvb_xasprintf("#!/bin/sh\n/bin/cat /proc/sys/kernel/random/uuid > '%s/boot_id'\n"
			     "echo rebooted >> '%s/reboots'\n", b->dir, b->dir);
	put_file(p, yaml, 0755);
	free(yaml);
	free(p);
	p = kvb_xasprintf("%s/bin/cat", b->dir);
	yaml = kvb_xasprintf("#!/bin/sh\n"
			     "if [ $# -eq 1 ] && [ \"$1\" = /proc/sys/kernel/random/boot_id ] && [ -f '%s/boot_id' ]; then\n"
			     "  exec /bin/cat '%s/boot_id'\nfi\nexec /bin/cat \"$@\"\n", b->dir, b->dir);
	put_file(p, yaml, 0755);
	free(yaml);
	free(p);
	env = kvb_xasprintf("PATH=%s/bin:/usr/bin:/bin", b->dir);
	CHECK(kvb_sshd_start_in(&b->s, b->dir, env, NULL) == 0);
	free(env);
	yaml = kvb_xasprintf("name: juno-sim\n"
			     "connection: {type: ssh, host: 127.0.0.1, port: %d, user: %s, key: %s, known_hosts: %s, "
			     "connect_timeout_s: 5}\n"
			     "flash: {method: ssh-copy, boot_path: %s/boot, dtb_name: board.dtb}\n"
			     "boot: {timeout_s: 20, ready: 'true', expect: ''}\n",
			     b->s.port, b->s.user, b->s.key, b->s.known_hosts, b->dir);
	p = kvb_xasprintf("%s/platform.yaml", b->dir);
	put_file(p, yaml, 0644);
	free(yaml);
	CHECK(load_platform(&b->plat, p) == KVB_OK);
	free(p);
	b->ok = kvb_target_open(&b->t, &b->plat, &err) == KVB_OK;
	if (!b->ok)
		fprintf(stderr, "open: %s\n", err.msg);
	CHECK(b->ok);
}

static void board_stop(struct board *b)
{
	const char *rm[] = { "rm", "-rf", b->dir, NULL };
	kvb_target_close(&b->t);
	kvb_platform_release(&b->plat);
	kvb_sshd_release(&b->s);
	kvb_sshd_run(rm, NULL);
}

static int flash(struct kvb_target *t, const struct kvb_platform *p, const struct kvb_variant *v, const char *artdir,
		 uint64_t timeout_ms, struct kvb_error *err)
{
	struct kvb_flash_ctx ctx = {
		.target = t, .plat = p, .variant = v, .artifact_dir = artdir, .round = 2, .timeout_ms = timeout_ms,
	};
	const struct kvb_flasher_ops *fl = kvb_flasher_find(p->flash_method);
	int rc;
	CHECK(fl != NULL);
	if (!fl)
		return -1;
	rc = fl->flash(&ctx, err);
	free(ctx.console_log);
	return rc;
}

static void check_same_file(const char *a, const char *b)
{
	char ha[65], hb[65];
	CHECK(kvb_sha256_file(a, ha, NULL) == 0);
	if (kvb_sha256_file(b, hb, NULL)) {
		fprintf(stderr, "  '%s' missing\n", b);
		CHECK(0);
		return;
	}
	CHECK_STR(ha, hb);
}

static void test_flash__ssh_copy_installs_files_reboots_and_identity_matches_host_kernel(void)
{
	struct board b;
	struct kvb_variant v;
	struct kvb_identity id;
	struct kvb_error err = { 0 };
	struct utsname u;
	char kernel[128], dtb[128], *p, *txt;
	board_start(&b);
	CHECK(uname(&u) == 0);
	snprintf(kernel, sizeof(kernel), "%s/Image-host", b.dir);
	snprintf(dtb, sizeof(dtb), "%s/juno-r2.dtb", b.dir);
	make_kernel(kernel, u.release, u.version);
	put_file(dtb, "\xd0\x0d\xfe\xed dtb bytes", 0644);
	make_variant(&v, "host", kernel, dtb);
	if (b.ok) {
		int rc = flash(&b.t, &b.plat, &v, NULL, 20000, &err);
		if (rc)
			fprintf(stderr, "  flash: %s\n", err.msg);
		CHECK(rc == KVB_OK);
		p = kvb_xasprintf("%s/boot/Image", b.dir); /* kernel_name defaults to Image */
		check_same_file(kernel, p);
		free(p);
		p = kvb_xasprintf("%s/boot/board.dtb", b.dir); /* dtb_name from the platform */
		check_same_file(dtb, p);
		free(p);
		p = kvb_xasprintf("%s/boot/.Image.kvbench-new", b.dir);
		CHECK(!exists(p)); /* moved into place */
		free(p);
		p = kvb_xasprintf("%s/reboots", b.dir);
		txt = read_text(p);
		CHECK_STR(txt, "rebooted\n");
		free(txt);
		free(p);
		/* the image carries this host's strings: the running kernel matches it */
		rc = kvb_identity_check(&b.t, &v, &id, &err);
		if (rc)
			fprintf(stderr, "  identity: %s\n", err.msg);
		CHECK(rc == KVB_OK);
		CHECK_STR(id.release, u.release);
		kvb_identity_release(&id);
	}
	variant_release(&v);
	board_stop(&b);
}

static void test_flash__ssh_copy_of_another_kernel_fails_identity_check(void)
{
	struct board b;
	struct kvb_variant v;
	struct kvb_identity id;
	struct kvb_error err = { 0 };
	struct utsname u;
	char kernel[128], *p, *want;
	board_start(&b);
	CHECK(uname(&u) == 0);
	snprintf(kernel, sizeof(kernel), "%s/vmlinuz-other", b.dir);
	make_kernel(kernel, "6.6.6-not-this-host", "#9 SMP PREEMPT another build");
	make_variant(&v, "other", kernel, NULL);
	if (b.ok) {
		/* two flashes in a row: each waits for its own new boot */
		CHECK(flash(&b.t, &b.plat, &v, NULL, 20000, &err) == KVB_OK);
		CHECK(flash(&b.t, &b.plat, &v, NULL, 20000, &err) == KVB_OK);
		p = kvb_xasprintf("%s/boot/Image", b.dir);
		check_same_file(kernel, p);
		free(p);
		p = kvb_xasprintf("%s/boot/board.dtb", b.dir);
		CHECK(!exists(p)); /* no dtb in this variant */
		free(p);
		CHECK(kvb_identity_check(&b.t, &v, &id, &err) == KVB_ETARGET);
		want = kvb_xasprintf("flashed 6.6.6-not-this-host but running %s", u.release);
		CHECK_STR(err.msg, want);
		free(want);
		kvb_identity_release(&id);
	}
	variant_release(&v);
	board_stop(&b);
}

static void test_flash__ssh_copy_names_missing_boot_path_in_platform_check(void)
{
	char dir[] = "/tmp/kvb-flashp-XXXXXX", *file;
	struct kvb_platform p;
	struct kvb_diag d;
	struct kvb_buf all = KVB_BUF_INIT;
	CHECK(mkdtemp(dir) != NULL);
	file = kvb_xasprintf("%s/platform.yaml", dir);
	put_file(file, "name: x\nconnection: {type: local}\n"
		       "flash: {method: ssh-copy, partitions: {boot: bootimage}}\n", 0644);
	kvb_diag_init(&d, NULL);
	CHECK(kvb_platform_load(&p, file, &kvb_catalog, &d) == KVB_EINPUT);
	for (size_t i = 0; i < d.msgs.n; i++)
		kvb_buf_addf(&all, "%s\n", d.msgs.v[i]);
	CHECK_CONTAINS(all.data, "method ssh-copy needs boot_path");
	/* partitions is fastboot's key: each flasher has its own key table */
	CHECK_CONTAINS(all.data, "flash.partitions: unknown key 'partitions' for flash method ssh-copy");
	CHECK_CONTAINS(all.data, "platform.yaml:3");
	kvb_buf_release(&all);
	kvb_diag_release(&d);
	kvb_platform_release(&p);
	unlink(file);
	free(file);
	rmdir(dir);
}

/* ---- command ------------------------------------------------------------------------------- */

struct hookenv {
	char dir[64];
	struct kvb_platform plat;
	struct kvb_target t;
};

/* A local-target platform whose flash hook is `hook` (script text). */
static void hook_start(struct hookenv *h, const char *hook)
{
	char *p;
	struct kvb_error err;
	memset(h, 0, sizeof(*h));
	snprintf(h->dir, sizeof(h->dir), "/tmp/kvb-hook-XXXXXX");
	CHECK(mkdtemp(h->dir) != NULL);
	p = kvb_xasprintf("%s/hooks", h->dir);
	kvb_mkdir_p(p, 0755);
	free(p);
	p = kvb_xasprintf("%s/hooks/flash", h->dir);
	put_file(p, hook, 0755);
	free(p);
	p = kvb_xasprintf("%s/art", h->dir);
	kvb_mkdir_p(p, 0755);
	free(p);
	p = kvb_xasprintf("%s/platform.yaml", h->dir);
	put_file(p, "name: hooked\nconnection: {type: local}\nflash: {method: command, command: hooks/flash}\n", 0644);
	CHECK(load_platform(&h->plat, p) == KVB_OK);
	free(p);
	CHECK(kvb_target_open(&h->t, &h->plat, &err) == KVB_OK);
}

static void hook_stop(struct hookenv *h)
{
	const char *rm[] = { "rm", "-rf", h->dir, NULL };
	kvb_target_close(&h->t);
	kvb_platform_release(&h->plat);
	kvb_sshd_run(rm, NULL);
}

static char *hook_file(struct hookenv *h, const char *name)
{
	char *p = kvb_xasprintf("%s/art/%s", h->dir, name), *t = read_text(p);
	free(p);
	return t;
}

static void test_flash__command_hook_gets_variant_in_env_never_through_a_shell(void)
{
	/* each variable written as printenv prints it (value + newline), "unset" when absent; $# proves no arguments */
	static const char hook[] =
		"#!/bin/sh\n"
		"cd \"$KVB_ARTIFACT_DIR\" || exit 9\n"
		"for n in KVB_KERNEL KVB_DTB KVB_INITRD KVB_BOOT_IMAGE KVB_MODULES KVB_CMDLINE KVB_VARIANT KVB_ROUND "
		"KVB_PLATFORM_DIR; do\n"
		"  printenv \"$n\" > \"$n\" || printf 'unset\\n' > \"$n\"\n"
		"done\n"
		"printf '%s' \"$#\" > nargs\n"
		"echo installed\n";
	static const char cmdline[] = "quiet kvb='x\" $(touch /tmp/kvb-pwned-by-cmdline) ; `id` | rm -rf / #";
	char *want;
	struct hookenv h;
	struct kvb_variant v;
	struct kvb_error err = { 0 };
	struct utsname u;
	char kernel[128], *t, *art;
	int rc;
	unlink("/tmp/kvb-pwned-by-cmdline");
	hook_start(&h, hook);
	CHECK(uname(&u) == 0);
	snprintf(kernel, sizeof(kernel), "%s/Image", h.dir);
	make_kernel(kernel, u.release, u.version);
	make_variant(&v, "with space's", kernel, NULL);
	v.cmdline = kvb_xstrdup(cmdline);
	setenv("KVB_DTB", "/inherited/from/kvbench", 1); /* must not leak into the hook */
	art = kvb_xasprintf("%s/art", h.dir);
	rc = flash(&h.t, &h.plat, &v, art, 10000, &err);
	unsetenv("KVB_DTB");
	if (rc)
		fprintf(stderr, "  flash: %s\n", err.msg);
	CHECK(rc == KVB_OK);
	t = hook_file(&h, "KVB_CMDLINE");
	want = kvb_xasprintf("%s\n", cmdline);
	CHECK_STR(t, want);
	free(want);
	free(t);
	CHECK(!exists("/tmp/kvb-pwned-by-cmdline"));
	t = hook_file(&h, "KVB_KERNEL");
	want = kvb_xasprintf("%s\n", kernel);
	CHECK_STR(t, want);
	free(want);
	free(t);
	t = hook_file(&h, "KVB_VARIANT");
	CHECK_STR(t, "with space's\n");
	free(t);
	t = hook_file(&h, "KVB_ROUND");
	CHECK_STR(t, "2\n");
	free(t);
	t = hook_file(&h, "KVB_PLATFORM_DIR");
	want = kvb_xasprintf("%s\n", h.dir);
	CHECK_STR(t, want);
	free(want);
	free(t);
	for (size_t i = 0; i < 4; i++) {
		static const char *const absent[] = { "KVB_DTB", "KVB_INITRD", "KVB_BOOT_IMAGE", "KVB_MODULES" };
		t = hook_file(&h, absent[i]);
		CHECK_STR(t, "unset\n");
		free(t);
	}
	t = hook_file(&h, "nargs");
	CHECK_STR(t, "0");
	free(t);
	t = hook_file(&h, "flash-hook.log");
	CHECK_CONTAINS(t, "installed");
	free(t);
	/* the local target "booted" nothing: this host's identity matches the host-string image */
	CHECK(kvb_identity_compare(&(struct kvb_identity){ .release = u.release, .version = u.version, .cmdline = "" },
				   v.expected_release, v.expected_version, NULL, &err) == KVB_OK);
	free(art);
	variant_release(&v);
	hook_stop(&h);
}

static void test_flash__command_hook_failure_quotes_stderr_and_timeout_is_bounded(void)
{
	struct hookenv h;
	struct kvb_variant v;
	struct kvb_error err = { 0 };
	char kernel[128];
	uint64_t t0;
	double took;
	hook_start(&h, "#!/bin/sh\necho 'progress on stdout'\necho 'relay 3 stuck: board on fire' >&2\nexit 3\n");
	snprintf(kernel, sizeof(kernel), "%s/Image", h.dir);
	make_kernel(kernel, "6.1.0-x", "#1 x");
	make_variant(&v, "a", kernel, NULL);
	CHECK(flash(&h.t, &h.plat, &v, NULL, 10000, &err) == KVB_ETARGET);
	CHECK_CONTAINS(err.msg, "hooks/flash' failed (exit status 3): relay 3 stuck: board on fire");
	hook_stop(&h);

	hook_start(&h, "#!/bin/sh\necho started >&2\nsleep 30\n");
	t0 = kvb_mono_ns();
	CHECK(flash(&h.t, &h.plat, &v, NULL, 1500, &err) == KVB_ETARGET);
	took = (double)(kvb_mono_ns() - t0) / 1e9;
	CHECK(took > 1.3 && took < 6.0);
	CHECK_CONTAINS(err.msg, "timed out");
	hook_stop(&h);
	variant_release(&v);
}

#define TESTS                                                                         \
	T(test_flash__ssh_copy_names_missing_boot_path_in_platform_check)             \
	T(test_flash__ssh_copy_installs_files_reboots_and_identity_matches_host_kernel) \
	T(test_flash__ssh_copy_of_another_kernel_fails_identity_check)                \
	T(test_flash__command_hook_gets_variant_in_env_never_through_a_shell)         \
	T(test_flash__command_hook_failure_quotes_stderr_and_timeout_is_bounded)
#include "test_main.h"
