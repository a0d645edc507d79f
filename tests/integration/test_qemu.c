/* Tests the qemu target on real Debian kernels: boot, identity, cmdline, exec/push, panic and timeout handling. */
#include "test.h"
#include "engine/catalog.h"
#include "config/platform.h"
#include "core/buf.h"
#include "core/util.h"
#include "flash/kimage.h"
#include "target/qemu.h"

#include <glob.h>
#include <stdlib.h>
#include <unistd.h>

#define BOOT_TIMEOUT_MS 120000u

/* The vmlinuz of the flavour ("cloud-amd64", "amd64") scripts/get-kernels fetched, or NULL. Owned. */
static char *find_kernel(const char *flavour)
{
	const char *dir = getenv("KVB_KERNELS_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char *base = dir ? kvb_xstrdup(dir)
			 : xdg ? kvb_xasprintf("%s/kvbench/kernels", xdg) : kvb_xasprintf("%s/.cache/kvbench/kernels", home);
	char *pat = kvb_xasprintf("%s/*/boot/vmlinuz-[0-9]*-[0-9]*-%s", base, flavour), *found = NULL;
	glob_t g;
	if (!glob(pat, 0, NULL, &g) && g.gl_pathc > 0)
		found = kvb_xstrdup(g.gl_pathv[g.gl_pathc - 1]);
	else
		fprintf(stderr, "SKIP: no kernel matches '%s' (run scripts/get-kernels)\n", pat);
	if (!found || access("/usr/bin/qemu-system-x86_64", X_OK)) {
		if (found)
			fprintf(stderr, "SKIP: qemu-system-x86_64 is not installed\n");
		free(found);
		found = NULL;
	}
	globfree(&g);
	free(pat);
	free(base);
	return found;
}

static int open_board(struct kvb_platform *plat, struct kvb_target *t)
{
	struct kvb_diag d;
	struct kvb_error err = { 0 };
	int rc;
	kvb_diag_init(&d, NULL);
	rc = kvb_platform_load(plat, KVB_SOURCE_DIR "/platforms/qemu-x86_64", &kvb_catalog, &d);
	for (size_t i = 0; i < d.msgs.n; i++)
		fprintf(stderr, "%s\n", d.msgs.v[i]);
	kvb_diag_release(&d);
	CHECK(rc == KVB_OK);
	if (rc)
		return rc;
	rc = kvb_target_open(t, plat, &err);
	if (rc)
		fprintf(stderr, "open: %s\n", err.msg);
	CHECK(rc == KVB_OK);
	return rc;
}

static char *run_out(struct kvb_target *t, const char *const *argv)
{
	struct kvb_exec_result r;
	struct kvb_error err = { 0 };
	char *out = NULL;
	kvb_exec_result_init(&r);
	if (kvb_target_run_ok(t, argv, 30000, &r, &err)) {
		fprintf(stderr, "%s: %s\n", argv[0], err.msg);
	} else {
		while (r.out.len && r.out.data[r.out.len - 1] == '\n')
			r.out.data[--r.out.len] = '\0';
		out = kvb_buf_detach(&r.out);
	}
	kvb_exec_result_release(&r);
	return out;
}

static char *tmp_path(const char *name)
{
	const char *b = getenv("KVB_BUILD_DIR");
	return kvb_xasprintf("%s/%s", b ? b : "/tmp", name);
}

/* Boots kernel with cmdline and checks the guest runs that very kernel with that cmdline. */
static void boot_and_check_identity(const char *flavour, const char *cmdline, const char *preempt_expect)
{
	char *kernel = find_kernel(flavour), *console = tmp_path("test_qemu-console.log");
	struct kvb_platform plat;
	struct kvb_target t;
	struct kvb_kimage_id id;
	struct kvb_error err = { 0 };
	struct kvb_qemu_status st;
	uint64_t t0;
	int rc;

	if (!kernel)
		goto out_nokernel;
	CHECK(kvb_kimage_identify(kernel, &id, &err) == KVB_OK);
	if (open_board(&plat, &t))
		goto out;
	t0 = kvb_mono_ns();
	rc = kvb_qemu_boot(&t, kernel, NULL, cmdline, BOOT_TIMEOUT_MS, console, &err);
	if (rc)
		fprintf(stderr, "boot: %s\n", err.msg);
	CHECK(rc == KVB_OK);
	if (!rc) {
		const char *uname_r[] = { "uname", "-r", NULL }, *uname_v[] = { "uname", "-v", NULL };
		const char *cat_cmdline[] = { "cat", "/proc/cmdline", NULL };
		const char *preempt[] = { "cat", "/sys/kernel/debug/sched/preempt", NULL };
		char *r = run_out(&t, uname_r), *v = run_out(&t, uname_v), *c = run_out(&t, cat_cmdline);
		struct kvb_buf cons = KVB_BUF_INIT;

		CHECK(kvb_qemu_status(&t, &st) == KVB_OK);
		fprintf(stderr, "  %s: console marker after %llu ms, ssh ready after %llu ms (boot call %.1f s), port %d\n",
			flavour, (unsigned long long)st.marker_ms, (unsigned long long)st.ready_ms,
			(double)(kvb_mono_ns() - t0) / 1e9, st.ssh_port);
		CHECK(st.running == 1);
		CHECK(st.ssh_port > 0);
		CHECK(st.marker_ms > 0 && st.ready_ms >= st.marker_ms);
		CHECK_STR(r, id.release);
		CHECK_STR(v, id.version);
		CHECK_CONTAINS(c, cmdline);
		CHECK_CONTAINS(c, "root=/dev/vda");
		if (preempt_expect) {
			char *pm = run_out(&t, preempt);
			CHECK_CONTAINS(pm, preempt_expect);
			free(pm);
		}
		CHECK(kvb_buf_read_file(&cons, console) == 0);
		CHECK_CONTAINS(cons.data, KVB_QEMU_READY_MARKER);
		kvb_buf_release(&cons);
		free(r);
		free(v);
		free(c);
	}
	CHECK(kvb_qemu_poweroff(&t, &err) == KVB_OK);
	CHECK(kvb_qemu_status(&t, &st) == KVB_OK);
	CHECK(st.running == 0);
	kvb_target_close(&t);
out:
	kvb_platform_release(&plat);
	kvb_kimage_id_release(&id);
out_nokernel:
	free(kernel);
	free(console);
}

static void test_qemu__cloud_kernel_boots_with_its_release_and_cmdline(void)
{
	boot_and_check_identity("cloud-amd64", "kvb_test_marker=4242", NULL);
}

/* The generic kernel needs ext4 from the initrd; preempt=none must show in debugfs. */
static void test_qemu__generic_kernel_boots_with_preempt_none(void)
{
	boot_and_check_identity("amd64", "preempt=none kvb_variant=B", "(none)");
}

static void test_qemu__boots_kernel_directory_and_moves_files_over_ssh(void)
{
	char *kernel = find_kernel("cloud-amd64"), *local = tmp_path("test_qemu-push.txt"),
	     *back = tmp_path("test_qemu-pull.txt");
	struct kvb_platform plat;
	struct kvb_target t;
	struct kvb_error err = { 0 };
	struct kvb_exec_result r;
	struct kvb_buf b = KVB_BUF_INIT;
	const char *cat[] = { "cat", "/tmp/kvb-pushed.txt", NULL };
	const char *fail[] = { "sh", "-c", "echo out; echo err >&2; exit 7", NULL };
	FILE *f;

	if (!kernel)
		goto out_nokernel;
	if (open_board(&plat, &t))
		goto out;
	/* Boot from the get-kernels directory (KVER/boot/vmlinuz-KVER -> KVER) rather than the file. */
	*strrchr(kernel, '/') = '\0';
	*strrchr(kernel, '/') = '\0';
	if (kvb_qemu_boot(&t, kernel, NULL, NULL, BOOT_TIMEOUT_MS, NULL, &err)) {
		fprintf(stderr, "boot: %s\n", err.msg);
		CHECK(0);
		goto close;
	}
	{
		struct kvb_qemu_status st;
		CHECK(kvb_qemu_status(&t, &st) == KVB_OK);
		CHECK_CONTAINS(st.kernel, "/boot/vmlinuz-");
		CHECK_CONTAINS(st.initrd, "/initrd/");
	}
	f = fopen(local, "w");
	fputs("it's \"quoted\" $(not run)\n", f);
	fclose(f);
	CHECK(kvb_target_push(&t, local, "/tmp/kvb-pushed.txt", &err) == KVB_OK);
	kvb_exec_result_init(&r);
	CHECK(kvb_target_exec(&t, cat, 30000, &r, &err) == KVB_OK);
	CHECK_STR(r.out.data, "it's \"quoted\" $(not run)\n");
	CHECK(kvb_target_exec(&t, fail, 30000, &r, &err) == KVB_OK);
	CHECK(r.exit_code == 7);
	CHECK_STR(r.out.data, "out\n");
	CHECK_STR(r.err.data, "err\n");
	kvb_exec_result_release(&r);
	unlink(back);
	CHECK(kvb_target_pull(&t, "/etc/hostname", back, &err) == KVB_OK);
	CHECK(kvb_buf_read_file(&b, back) == 0);
	CHECK_STR(b.data, "kvb-qemu\n");
	kvb_buf_release(&b);
close:
	kvb_target_close(&t);
out:
	kvb_platform_release(&plat);
out_nokernel:
	unlink(local);
	unlink(back);
	free(local);
	free(back);
	free(kernel);
}

static void test_qemu__panicking_kernel_fails_within_timeout_and_keeps_console(void)
{
	char *kernel = find_kernel("cloud-amd64"), *console = tmp_path("test_qemu-panic-console.log");
	struct kvb_platform plat;
	struct kvb_target t;
	struct kvb_error err = { 0 };
	struct kvb_qemu_status st;
	struct kvb_buf cons = KVB_BUF_INIT;
	uint64_t t0, timeout_ms = 60000;
	double took;
	int rc;

	if (!kernel)
		goto out_nokernel;
	if (open_board(&plat, &t))
		goto out;
	t0 = kvb_mono_ns();
	rc = kvb_qemu_boot(&t, kernel, NULL, "root=/dev/nonexistent", timeout_ms, console, &err);
	took = (double)(kvb_mono_ns() - t0) / 1e6;
	fprintf(stderr, "  panic boot failed after %.0f ms: %s\n", took, err.msg);
	CHECK(rc == KVB_ETARGET);
	CHECK(took < (double)timeout_ms);
	CHECK_CONTAINS(err.msg, "panicked");
	CHECK_CONTAINS(err.msg, console);
	CHECK(kvb_buf_read_file(&cons, console) == 0);
	CHECK_CONTAINS(cons.data, "Kernel panic - not syncing");
	CHECK_CONTAINS(cons.data, "cannot mount root '/dev/nonexistent'");
	CHECK(kvb_qemu_status(&t, &st) == KVB_OK);
	CHECK(st.running == 0);
	kvb_buf_release(&cons);
	kvb_target_close(&t);
out:
	kvb_platform_release(&plat);
out_nokernel:
	free(kernel);
	free(console);
}

static void test_qemu__boot_timeout_stops_qemu_and_says_what_was_missing(void)
{
	char *kernel = find_kernel("cloud-amd64");
	struct kvb_platform plat;
	struct kvb_target t;
	struct kvb_error err = { 0 };
	struct kvb_qemu_status st;
	const char *argv[] = { "true", NULL };
	struct kvb_exec_result r;
	uint64_t t0;

	if (!kernel)
		goto out_nokernel;
	if (open_board(&plat, &t))
		goto out;
	/* Exec with no guest fails plainly instead of trying to connect. */
	kvb_exec_result_init(&r);
	CHECK(kvb_target_exec(&t, argv, 1000, &r, &err) == KVB_ETARGET);
	CHECK_CONTAINS(err.msg, "no guest is running");
	kvb_exec_result_release(&r);
	/* Make sure the board and initrd exist so the 1.5 s below are all boot. */
	CHECK(kvb_qemu_boot(&t, kernel, NULL, NULL, BOOT_TIMEOUT_MS, NULL, &err) == KVB_OK);
	t0 = kvb_mono_ns();
	CHECK(kvb_qemu_boot(&t, kernel, NULL, NULL, 1500, NULL, &err) == KVB_ETARGET);
	CHECK(kvb_mono_ns() - t0 < 20000000000ull);
	CHECK_CONTAINS(err.msg, "did not come up within 1500 ms");
	CHECK(kvb_qemu_status(&t, &st) == KVB_OK);
	CHECK(st.running == 0);
	kvb_target_close(&t);
out:
	kvb_platform_release(&plat);
out_nokernel:
	free(kernel);
}

/* A board whose root key is not the one the guest authorises: fails on the login, well before the boot timeout. */
static void test_qemu__refused_login_fails_after_grace_not_timeout(void)
{
	char *kernel = find_kernel("cloud-amd64"), *bd = tmp_path("test_qemu-board"), *yaml = NULL;
	const char *home = getenv("XDG_CACHE_HOME");
	char *real = home ? kvb_xasprintf("%s/kvbench/qemu-x86_64", home) : kvb_qemu_default_board_dir();
	const char *links[] = { "rootfs.ext4", "stamp", "ssh_host_ed25519_key.pub", "known_hosts" };
	struct kvb_platform plat;
	struct kvb_diag d;
	struct kvb_target t;
	struct kvb_error err = { 0 };
	struct kvb_exec_result r;
	uint64_t t0;
	double took;
	FILE *f;

	if (!kernel)
		goto out;
	{
		/* The links below need the real board: build it if this test runs alone. */
		const char *build[] = { KVB_SOURCE_DIR "/scripts/qemu-board", "-d", real, "build", NULL };
		const char *rm[] = { "rm", "-rf", bd, NULL };
		struct kvb_spawn_opts o = { .argv = build, .timeout_ms = 1800000 };
		kvb_exec_result_init(&r);
		CHECK(kvb_spawn_run(&o, &r, &err) == KVB_OK && r.exit_code == 0);
		o.argv = rm;
		kvb_spawn_run(&o, &r, &err);
		kvb_exec_result_release(&r);
	}
	CHECK(kvb_mkdir_p(bd, 0755) == 0);
	for (size_t i = 0; i < KVB_ARRAY_SIZE(links); i++) {
		char *from = kvb_xasprintf("%s/%s", real, links[i]), *to = kvb_xasprintf("%s/%s", bd, links[i]);
		CHECK(symlink(from, to) == 0);
		free(from);
		free(to);
	}
	{
		char *key = kvb_xasprintf("%s/id_ed25519", bd);
		const char *kg[] = { "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key, NULL };
		struct kvb_spawn_opts o = { .argv = kg, .timeout_ms = 10000 };
		kvb_exec_result_init(&r);
		CHECK(kvb_spawn_run(&o, &r, &err) == KVB_OK && r.exit_code == 0);
		kvb_exec_result_release(&r);
		free(key);
	}
	yaml = kvb_xasprintf("%s/platform.yaml", bd);
	f = fopen(yaml, "w");
	fprintf(f, "name: qemu-wrong-key\nconnection: {type: qemu, board_dir: %s}\nboot: {timeout_s: 120}\n", bd);
	fclose(f);
	kvb_diag_init(&d, NULL);
	CHECK(kvb_platform_load(&plat, yaml, &kvb_catalog, &d) == KVB_OK);
	kvb_diag_release(&d);
	CHECK(kvb_target_open(&t, &plat, &err) == KVB_OK);
	t0 = kvb_mono_ns();
	CHECK(kvb_qemu_boot(&t, kernel, NULL, NULL, 120000, NULL, &err) == KVB_ETARGET);
	took = (double)(kvb_mono_ns() - t0) / 1e9;
	fprintf(stderr, "  wrong key: failed after %.1f s: %s\n", took, err.msg);
	CHECK(took < 90);
	CHECK_CONTAINS(err.msg, "sshd answers but ssh fails");
	kvb_target_close(&t);
	kvb_platform_release(&plat);
out:
	free(yaml);
	free(real);
	free(bd);
	free(kernel);
}

#define TESTS                                                                                  \
	T(test_qemu__cloud_kernel_boots_with_its_release_and_cmdline)                          \
	T(test_qemu__generic_kernel_boots_with_preempt_none)                                   \
	T(test_qemu__boots_kernel_directory_and_moves_files_over_ssh)                          \
	T(test_qemu__panicking_kernel_fails_within_timeout_and_keeps_console)                  \
	T(test_qemu__boot_timeout_stops_qemu_and_says_what_was_missing)                        \
	T(test_qemu__refused_login_fails_after_grace_not_timeout)
#include "test_main.h"
