/*
 * Integration tests of the adb target: Debian's real adb client and server
 * (a private server on a free port, killed at exit) talking to adbd_sim, the
 * simulated device (tests/sim/adbd_sim.c), over loopback TCP.
 */
#include "test.h"
#include "engine/catalog.h"

#include "adb_fixture.h"

#include "config/platform.h"
#include "core/sha256.h"
#include "core/spawn.h"
#include "core/util.h"
#include "engine/identity.h"
#include "target/adb.h"
#include "target/target.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static char *read_text(const char *path)
{
	struct kvb_buf b = KVB_BUF_INIT;
	if (kvb_buf_read_file(&b, path))
		return kvb_xstrdup("(unreadable)");
	return kvb_buf_detach(&b);
}

/* Starts adbd_sim with extra options (NULL-terminated) and opens a target on it (d->open_rc). */
static void sim_start(struct kvb_adbsim *d, const char *const *extra)
{
	CHECK(kvb_adbsim_start(d, "/tmp/kvb-adbsim-XXXXXX", extra) == 0);
	kvb_adbsim_open(d, "simdev", NULL);
}

/* Path inside the sandbox (owned). */
static char *sim_path(struct kvb_adbsim *d, const char *rel)
{
	return kvb_xasprintf("%s/root/%s", d->dir, rel);
}

static double secs_since(uint64_t t0)
{
	return (double)(kvb_mono_ns() - t0) / 1e9;
}

static void test_adb__exec_returns_remote_exit_codes_0_3_255(void)
{
	struct kvb_adbsim d;
	struct kvb_exec_result r;
	struct kvb_error e;
	const int codes[] = { 0, 3, 255 };
	sim_start(&d, NULL);
	CHECK(d.open_rc == 0);
	kvb_exec_result_init(&r);
	for (size_t i = 0; i < KVB_ARRAY_SIZE(codes); i++) {
		char script[32];
		snprintf(script, sizeof(script), "exit %d", codes[i]);
		const char *argv[] = { "sh", "-c", script, NULL };
		CHECK(kvb_target_exec(&d.t, argv, 20000, &r, &e) == KVB_OK);
		CHECK(r.exit_code == codes[i]);
		CHECK_STR(r.out.data, "");
		CHECK_STR(r.err.data, "");
	}
	/* A program that is not there: the device shell's 127, not an adb failure. */
	const char *missing[] = { "kvb-no-such-program", NULL };
	CHECK(kvb_target_exec(&d.t, missing, 20000, &r, &e) == KVB_OK);
	CHECK(r.exit_code == 127);
	kvb_exec_result_release(&r);
	CHECK(kvb_adbsim_stop(&d) == 0);
}

static void test_adb__exec_keeps_stdout_and_stderr_apart(void)
{
	struct kvb_adbsim d;
	struct kvb_exec_result r;
	struct kvb_error e;
	/* stderr without a final newline must come back without one (the end marker is removed exactly). */
	const char *argv[] = { "sh", "-c", "echo out1; printf 'err1\\nerr2' >&2; printf out2", NULL };
	sim_start(&d, NULL);
	kvb_exec_result_init(&r);
	CHECK(kvb_target_exec(&d.t, argv, 20000, &r, &e) == KVB_OK);
	CHECK(r.exit_code == 0);
	CHECK_STR(r.out.data, "out1\nout2");
	CHECK_STR(r.err.data, "err1\nerr2");
	kvb_exec_result_release(&r);
	CHECK(kvb_adbsim_stop(&d) == 0);
}

static void test_adb__awkward_argv_round_trips_byte_exact(void)
{
	struct kvb_adbsim d;
	struct kvb_exec_result r;
	struct kvb_error e;
	const char *args[] = { "a'b",        "\"dq\"",      "; echo pwned", "$(echo sub)", "`echo bt`", "l1\nl2",
			       "\xc3\xa9\xe2\x98\x83", "*",  "  sp  ",       "back\\slash", "",          "$HOME",
			       "!x",         "-n",          "a|b&c>d<e",    "'",           "\t",         NULL };
	struct kvb_strv argv = KVB_STRV_INIT;
	struct kvb_buf want = KVB_BUF_INIT;
	sim_start(&d, NULL);
	kvb_strv_push(&argv, "printf");
	kvb_strv_push(&argv, "<%s>\\n");
	for (size_t i = 0; args[i]; i++) {
		kvb_strv_push(&argv, args[i]);
		kvb_buf_addf(&want, "<%s>\n", args[i]);
	}
	kvb_exec_result_init(&r);
	CHECK(kvb_target_exec(&d.t, kvb_strv_argv(&argv), 20000, &r, &e) == KVB_OK);
	CHECK(r.exit_code == 0);
	CHECK_STR(r.out.data, want.data);
	CHECK_STR(r.err.data, "");
	kvb_exec_result_release(&r);
	kvb_strv_release(&argv);
	kvb_buf_release(&want);
	CHECK(kvb_adbsim_stop(&d) == 0);
}

/* Writes n deterministic pseudo-random bytes (all 256 values occur). */
static void write_blob(const char *path, size_t n)
{
	FILE *f = fopen(path, "wb");
	uint32_t x = 12345;
	for (size_t i = 0; f && i < n; i++) {
		x = x * 1103515245u + 12345u;
		fputc((int)(x >> 16) & 0xff, f);
	}
	if (f)
		fclose(f);
}

static void test_adb__push_pull_round_trip_keeps_sha256(void)
{
	struct kvb_adbsim d;
	struct kvb_exec_result r;
	struct kvb_error e;
	char h_local[65], h_remote[65], h_back[65];
	sim_start(&d, NULL);
	char *local = kvb_xasprintf("%s/blob.bin", d.dir);
	char *remote = sim_path(&d, "data/local/tmp/kvb/new dir/blob.bin"); /* parents do not exist yet */
	char *back = kvb_xasprintf("%s/back.bin", d.dir);
	write_blob(local, 1500000 + 7);
	CHECK(kvb_target_push(&d.t, local, remote, &e) == KVB_OK);
	CHECK(kvb_sha256_file(local, h_local, NULL) == 0);
	CHECK(kvb_sha256_file(remote, h_remote, NULL) == 0);
	CHECK_STR(h_remote, h_local);
	/* The device computes the same digest. */
	const char *argv[] = { "sha256sum", remote, NULL };
	kvb_exec_result_init(&r);
	CHECK(kvb_target_exec(&d.t, argv, 20000, &r, &e) == KVB_OK);
	CHECK(!strncmp(r.out.data, h_local, 64));
	kvb_exec_result_release(&r);
	CHECK(kvb_target_pull(&d.t, remote, back, &e) == KVB_OK);
	CHECK(kvb_sha256_file(back, h_back, NULL) == 0);
	CHECK_STR(h_back, h_local);
	/* A missing remote file is a target error that names the file. */
	CHECK(kvb_target_pull(&d.t, "/nonexistent/kvb-file", back, &e) == KVB_ETARGET);
	CHECK_CONTAINS(e.msg, "/nonexistent/kvb-file");
	free(local);
	free(remote);
	free(back);
	CHECK(kvb_adbsim_stop(&d) == 0);
}

static void test_adb__directory_push_and_pull_copy_trees_without_nesting(void)
{
	struct kvb_adbsim d;
	struct kvb_error e;
	sim_start(&d, NULL);
	char *src = kvb_xasprintf("%s/tree", d.dir), *f = kvb_xasprintf("%s/tree/sub/deep.txt", d.dir);
	char *sub = kvb_xasprintf("%s/tree/sub", d.dir), *top = kvb_xasprintf("%s/tree/top.txt", d.dir);
	char *remote = sim_path(&d, "data/local/tmp/tree");
	char *back = kvb_xasprintf("%s/back", d.dir);
	kvb_mkdir_p(sub, 0755);
	write_text(f, "deep\n");
	write_text(top, "top\n");
	/* Twice: the second push must refresh the copy, not nest it as tree/tree. */
	for (int i = 0; i < 2; i++)
		CHECK(kvb_target_push(&d.t, src, remote, &e) == KVB_OK);
	char *rf = sim_path(&d, "data/local/tmp/tree/sub/deep.txt"), *nested = sim_path(&d, "data/local/tmp/tree/tree");
	char *txt = read_text(rf);
	CHECK_STR(txt, "deep\n");
	CHECK(access(nested, F_OK) != 0);
	free(txt);
	/* Into an existing local directory: its contents become the remote tree's. */
	kvb_mkdir_p(back, 0755);
	CHECK(kvb_target_pull(&d.t, remote, back, &e) == KVB_OK);
	char *bf = kvb_xasprintf("%s/sub/deep.txt", back), *bt = kvb_xasprintf("%s/top.txt", back);
	txt = read_text(bf);
	CHECK_STR(txt, "deep\n");
	free(txt);
	txt = read_text(bt);
	CHECK_STR(txt, "top\n");
	free(txt);
	char *owned[] = { src, f, sub, top, remote, back, rf, nested, bf, bt };
	for (size_t i = 0; i < KVB_ARRAY_SIZE(owned); i++)
		free(owned[i]);
	CHECK(kvb_adbsim_stop(&d) == 0);
}

static void test_adb__wait_ready_succeeds_once_boot_completes(void)
{
	struct kvb_adbsim d;
	struct kvb_error e;
	const char *opts[] = { "--boot-delay-ms", "3000", NULL };
	sim_start(&d, opts);
	CHECK(d.open_rc == 0);
	CHECK(kvb_target_wait_ready(&d.t, 20000, &e) == KVB_OK);
	double s = secs_since(d.started_ns);
	CHECK(s >= 3.0);
	CHECK(s < 10.0);
	CHECK(kvb_adbsim_stop(&d) == 0);
}

static void test_adb__wait_ready_times_out_with_clear_message(void)
{
	struct kvb_adbsim d;
	struct kvb_error e;
	const char *opts[] = { "--boot-delay-ms", "60000", NULL };
	uint64_t t0;
	sim_start(&d, opts);
	t0 = kvb_mono_ns();
	/* 15 s: long enough that a loaded host (CI beside stress-ng) still gets getprop's answer
	 * in the window (at 2 s it once saw only adb's 'device'); the sim boots in 60 s */
	CHECK(kvb_target_wait_ready(&d.t, 15000, &e) == KVB_ETARGET);
	CHECK(secs_since(t0) >= 15.0);
	CHECK(secs_since(t0) < 45.0);
	CHECK_CONTAINS(e.msg, d.serial);
	fprintf(stderr, "  message: %s\n", e.msg);
	CHECK_CONTAINS(e.msg, "not ready within 15.0 s");
	CHECK_CONTAINS(e.msg, "'getprop sys.boot_completed' printed ''");
	CHECK_CONTAINS(e.msg, "expected '1'");
	CHECK(kvb_adbsim_stop(&d) == 0);
}

static void test_adb__reboot_drops_and_wait_ready_sees_the_new_boot(void)
{
	struct kvb_adbsim d;
	struct kvb_error e = { 0 };
	const char *opts[] = { "--reboot-delay-ms", "1500", "--boot-delay-ms", "1000", NULL };
	const char *modes[] = { NULL, "bootloader" };
	sim_start(&d, opts);
	CHECK(kvb_target_wait_ready(&d.t, 20000, &e) == KVB_OK);
	for (int i = 0; i < 2; i++) {
		uint64_t t0 = kvb_mono_ns();
		char *f;
		CHECK(kvb_target_reboot(&d.t, modes[i], &e) == KVB_OK);
		CHECK(kvb_target_wait_ready(&d.t, 30000, &e) == KVB_OK);
		if (e.code)
			fprintf(stderr, "reboot %d: %s\n", i, e.msg);
		/* Offline 1.5 s, then 1 s of boot: an answer earlier came from the old boot. */
		CHECK(secs_since(t0) >= 2.5);
		CHECK(secs_since(t0) < 15.0);
		f = sim_path(&d, ".adbd_sim/last_reboot");
		char *txt = read_text(f);
		CHECK_STR(txt, modes[i] ? "bootloader\n" : "\n");
		free(txt);
		free(f);
		kvb_error_clear(&e);
	}
	char *f = sim_path(&d, ".adbd_sim/boot_count");
	char *txt = read_text(f);
	CHECK_STR(txt, "3\n");
	free(txt);
	free(f);
	CHECK(kvb_adbsim_stop(&d) == 0);
}

static void test_adb__exec_fails_promptly_when_device_drops_mid_command(void)
{
	struct kvb_adbsim d;
	struct kvb_exec_result r;
	struct kvb_error e;
	const char *opts[] = { "--drop-after-ms", "500", "--drop-offline-ms", "2000", NULL };
	const char *argv[] = { "sh", "-c", "echo started; sleep 30; echo finished", NULL };
	const char *quick[] = { "echo", "back", NULL };
	uint64_t t0;
	sim_start(&d, opts);
	kvb_exec_result_init(&r);
	t0 = kvb_mono_ns();
	CHECK(kvb_target_exec(&d.t, argv, 20000, &r, &e) == KVB_ETARGET);
	CHECK(secs_since(t0) < 5.0);
	CHECK(!r.timed_out);
	fprintf(stderr, "  message: %s\n", e.msg);
	CHECK_CONTAINS(e.msg, "did not finish: connection lost");
	CHECK_CONTAINS(e.msg, d.serial);
	CHECK_STR(r.out.data, "started\n");
	/* While the device is away, commands fail at once with adb's reason. */
	t0 = kvb_mono_ns();
	CHECK(kvb_target_exec(&d.t, quick, 20000, &r, &e) == KVB_ETARGET);
	CHECK(secs_since(t0) < 10.0);  /* at once, not after the 20 s timeout; slack for load */
	fprintf(stderr, "  message: %s\n", e.msg);
	CHECK_CONTAINS(e.msg, "offline");
	/* Once it is back, wait_ready reconnects and commands work again. */
	CHECK(kvb_target_wait_ready(&d.t, 20000, &e) == KVB_OK);
	CHECK(kvb_target_exec(&d.t, quick, 20000, &r, &e) == KVB_OK);
	CHECK_STR(r.out.data, "back\n");
	kvb_exec_result_release(&r);
	CHECK(kvb_adbsim_stop(&d) == 0);
}

static void test_adb__logcat_until_stops_at_the_pattern(void)
{
	struct kvb_adbsim d;
	struct kvb_exec_result r;
	struct kvb_error e;
	int matched = -1;
	uint64_t t0;
	sim_start(&d, NULL);
	char *out = kvb_xasprintf("%s/logcat.txt", d.dir);
	const char *clear[] = { "logcat", "-c", NULL };
	const char *old[] = { "log", "-t", "BENCH", "warming up", NULL };
	/* The device logs the line 1 s later, from a process that outlives this exec. */
	const char *later[] = { "sh", "-c", "(sleep 1; log -t BENCH 'BenchmarkDone!') >/dev/null 2>&1 &", NULL };
	kvb_exec_result_init(&r);
	CHECK(kvb_target_run_ok(&d.t, clear, 20000, &r, &e) == KVB_OK);
	CHECK(kvb_target_run_ok(&d.t, old, 20000, &r, &e) == KVB_OK);
	CHECK(kvb_target_run_ok(&d.t, later, 20000, &r, &e) == KVB_OK);
	t0 = kvb_mono_ns();
	CHECK(kvb_adb_logcat_until(&d.t, out, "BENCH +: BenchmarkDone!$", 15000, &matched, &e) == KVB_OK);
	CHECK(matched == 1);
	CHECK(secs_since(t0) >= 0.5);
	CHECK(secs_since(t0) < 5.0);
	char *txt = read_text(out);
	CHECK_CONTAINS(txt, "I BENCH   : warming up\n");
	CHECK_CONTAINS(txt, "I BENCH   : BenchmarkDone!\n");
	free(txt);
	/* No match: returns after the timeout with matched = 0. */
	t0 = kvb_mono_ns();
	CHECK(kvb_adb_logcat_until(&d.t, out, "NeverLogged", 1000, &matched, &e) == KVB_OK);
	CHECK(matched == 0);
	CHECK(secs_since(t0) >= 1.0);
	CHECK(secs_since(t0) < 4.0);
	CHECK(kvb_adb_logcat_until(&d.t, out, "bad(regex", 1000, &matched, &e) == KVB_EINPUT);
	kvb_exec_result_release(&r);
	free(out);
	CHECK(kvb_adbsim_stop(&d) == 0);
}

static void test_adb__exec_timeout_kills_the_remote_command(void)
{
	struct kvb_adbsim d;
	struct kvb_exec_result r;
	struct kvb_error e;
	const char *argv[] = { "sh", "-c", "echo $$ > sleeper.pid; exec sleep 30", NULL };
	uint64_t t0;
	int pid = 0, gone = 0;
	sim_start(&d, NULL);
	kvb_exec_result_init(&r);
	t0 = kvb_mono_ns();
	CHECK(kvb_target_exec(&d.t, argv, 1000, &r, &e) == KVB_ETARGET);
	CHECK(r.timed_out == 1);
	CHECK(secs_since(t0) < 4.0);
	CHECK_CONTAINS(e.msg, "timed out after 1000 ms");
	char *f = sim_path(&d, "sleeper.pid");
	char *txt = read_text(f);
	pid = atoi(txt);
	CHECK(pid > 0);
	/* adb closes the stream when its client dies; the device kills the command. */
	for (int i = 0; pid > 0 && i < 300 && !gone; i++) {
		gone = kill(pid, 0) != 0;
		if (!gone)
			kvb_sleep_ms(10);
	}
	CHECK(gone);
	free(txt);
	free(f);
	kvb_exec_result_release(&r);
	CHECK(kvb_adbsim_stop(&d) == 0);
}

/* Opens a target on d's device with connection keys conn (flow mapping entries, after type and serial). */
static int open_with(struct kvb_adbsim *d, const char *conn, struct kvb_platform *plat, struct kvb_target *t,
		     struct kvb_error *e)
{
	struct kvb_diag diag;
	char *yaml = kvb_xasprintf("name: with\nconnection: {type: adb, serial: \"%s\", adb_server_port: %d, %s}\n",
				   d->serial, kvb_adbsim_server_port(), conn);
	char *p = kvb_xasprintf("%s/with.yaml", d->dir);
	int rc;
	write_text(p, yaml);
	kvb_diag_init(&diag, NULL);
	CHECK(kvb_platform_load(plat, p, &kvb_catalog, &diag) == KVB_OK);
	for (size_t i = 0; i < diag.msgs.n; i++)
		fprintf(stderr, "  platform: %s\n", diag.msgs.v[i]);
	kvb_diag_release(&diag);
	rc = kvb_target_open(t, plat, e);
	if (rc)
		fprintf(stderr, "  open: %s\n", e->msg);
	free(yaml);
	free(p);
	return rc;
}

/* Runs `adb root` on d's device through the private server; returns adb's exit status, *out its output. */
static int adb_root_cli(struct kvb_adbsim *d, const char *adb, char **out)
{
	char port[16];
	snprintf(port, sizeof(port), "%d", kvb_adbsim_server_port());
	const char *argv[] = { adb, "-P", port, "-s", d->serial, "root", NULL };
	return kvb_adbsim_run(argv, out, 60000);
}

/*
 * devlib #597: "with recent versions of adb, `adb root` can fail if the daemon is already running as
 * root": exit status 1 and "adbd is already running as root". Debian's adb exits 0 there (AOSP's
 * adb_root returns true for every answer but "restarting"), so the field's adb is Debian's behind a
 * wrapper that exits 1 on that answer, as the report shows. adbd's answer decides: root, open ok.
 */
static void test_adb__root_already_root_is_success_whatever_adb_exits(void)
{
	struct kvb_adbsim d;
	struct kvb_platform plat;
	struct kvb_target t;
	struct kvb_error e;
	char *wrapper, *conn, *out = NULL;
	sim_start(&d, NULL);
	CHECK(kvb_adb_root(&d.t, 10000, &e) == KVB_OK);
	CHECK(adb_root_cli(&d, "adb", &out) == 0);
	CHECK_STR(out, "adbd is already running as root\n");
	free(out);
	wrapper = kvb_xasprintf("%s/adb-devlib-597", d.dir);
	write_text(wrapper, "#!/bin/sh\n"
			    "# an adb that exits 1 when adbd is already root (devlib #597)\n"
			    "o=$(mktemp) || exit 2\n"
			    "adb \"$@\" >\"$o\"; rc=$?\n"
			    "cat \"$o\"\n"
			    "grep -q 'already running as root' \"$o\" && rc=1\n"
			    "rm -f \"$o\"\n"
			    "exit $rc\n");
	chmod(wrapper, 0755);
	CHECK(adb_root_cli(&d, wrapper, &out) == 1);
	CHECK_STR(out, "adbd is already running as root\n");
	free(out);
	conn = kvb_xasprintf("adb: \"%s\", root: adb", wrapper);
	if (open_with(&d, conn, &plat, &t, &e) == KVB_OK)
		kvb_target_close(&t);
	else
		CHECK(!"root: adb through an adb that exits 1 on 'already running as root' opens");
	kvb_platform_release(&plat);
	free(conn);
	free(wrapper);
	CHECK(kvb_adbsim_stop(&d) == 0);
}

/*
 * A userdebug build whose adbd starts unprivileged: "restarting adbd as root", adbd exits and comes
 * back 1.5 s later. Debian's adb waits for it 6 s, but its server reconnects a tcp device 250 ms
 * after the drop (refused: adbd is not back yet), then only 10 s later: adb prints "timeout expired
 * while waiting for device" and exits 1. kvbench waits for the device itself and gets root.
 */
static void test_adb__root_restarts_adbd_and_waits_for_the_device(void)
{
	struct kvb_adbsim d;
	struct kvb_platform plat;
	struct kvb_target t;
	struct kvb_error e;
	struct kvb_exec_result r;
	const char *opts[] = { "--adbd-shell", "--adbd-restart-ms", "1500", NULL };
	const char *prop[] = { "getprop", "service.adb.root", NULL };
	uint64_t t0;
	int rc;
	sim_start(&d, opts);
	kvb_exec_result_init(&r);
	CHECK(kvb_target_exec(&d.t, prop, 20000, &r, &e) == KVB_OK);
	CHECK_STR(r.out.data, "\n");
	t0 = kvb_mono_ns();
	rc = open_with(&d, "root: adb", &plat, &t, &e);
	CHECK(rc == KVB_OK);
	fprintf(stderr, "  adb root took %.1f s\n", secs_since(t0));
	if (!rc) {
		CHECK(kvb_target_exec(&t, prop, 20000, &r, &e) == KVB_OK);
		CHECK_STR(r.out.data, "1\n");
		/* once root, adbd says so and nothing restarts */
		CHECK(kvb_adb_root(&t, 10000, &e) == KVB_OK);
		kvb_target_close(&t);
	}
	kvb_platform_release(&plat);
	kvb_exec_result_release(&r);
	CHECK(kvb_adbsim_stop(&d) == 0);
}

/* A user build: adbd refuses, adb exits 0 all the same; kvbench refuses root: adb, quoting adbd. */
static void test_adb__root_refused_on_a_user_build_quotes_adbd(void)
{
	struct kvb_adbsim d;
	struct kvb_platform plat;
	struct kvb_target t;
	struct kvb_error e;
	char *out = NULL;
	const char *opts[] = { "--adbd-shell", "--user-build", NULL };
	sim_start(&d, opts);
	CHECK(adb_root_cli(&d, "adb", &out) == 0);
	CHECK_STR(out, "adbd cannot run as root in production builds\n");
	free(out);
	CHECK(open_with(&d, "root: adb", &plat, &t, &e) == KVB_ETARGET);
	CHECK_CONTAINS(e.msg, "'adb root' on '127.0.0.1:");
	CHECK_CONTAINS(e.msg, "adbd cannot run as root in production builds");
	kvb_platform_release(&plat);
	CHECK(kvb_adbsim_stop(&d) == 0);
}

static void test_adb__legacy_shell_still_gives_exit_status(void)
{
	struct kvb_adbsim d;
	struct kvb_exec_result r;
	struct kvb_error e;
	const char *opts[] = { "--no-shell-v2", NULL };
	const char *argv[] = { "sh", "-c", "printf 'a b\\n'; exit 3", NULL };
	sim_start(&d, opts);
	kvb_exec_result_init(&r);
	CHECK(kvb_target_exec(&d.t, argv, 20000, &r, &e) == KVB_OK);
	CHECK(r.exit_code == 3);
	CHECK_STR(r.out.data, "a b\n");
	kvb_exec_result_release(&r);
	CHECK(kvb_adbsim_stop(&d) == 0);
}

/* A pre-N device (adbd_sim --no-shell-v2: pty, CRLF, merged stderr, no status): what kvbench reads is what a v2 device gives. */
static void test_adb__pre_n_device_reads_like_a_v2_device(void)
{
	struct kvb_adbsim d;
	struct kvb_exec_result r;
	struct kvb_error e;
	const char *opts[] = { "--no-shell-v2", NULL };
	const char *both[] = { "sh", "-c", "printf 'out1\\nout2\\n'; printf 'err1\\n' >&2; exit 7", NULL };
	const char *uname[] = { "sh", "-c", "printf '6.1.0-kvb\\n'", NULL };
	char *knob, *val = NULL;
	sim_start(&d, opts);
	CHECK(d.open_rc == 0);
	{
		/* what Debian's adb says of a device whose banner has no features: nothing, exit 0 */
		char port[16], *out = NULL;
		snprintf(port, sizeof(port), "%d", kvb_adbsim_server_port());
		const char *argv[] = { "adb", "-P", port, "-s", d.serial, "features", NULL };
		CHECK(kvb_adbsim_run(argv, &out, 20000) == 0);
		CHECK_STR(out, "");
		free(out);
	}
	kvb_exec_result_init(&r);
	CHECK(kvb_target_exec(&d.t, both, 20000, &r, &e) == KVB_OK);
	CHECK(r.exit_code == 7);
	CHECK_STR(r.out.data, "out1\nout2\n");
	CHECK_STR(r.err.data, "err1\n");
	/* identity: uname -r must not end in "\r" ("flashed X but running X\r") */
	CHECK(kvb_target_exec(&d.t, uname, 20000, &r, &e) == KVB_OK);
	CHECK_STR(r.out.data, "6.1.0-kvb\n");
	/* knobs: read back without a "\r", written and read again */
	knob = sim_path(&d, "knob");
	write_text(knob, "schedutil\n");
	CHECK(kvb_target_read(&d.t, knob, &val, &e) == KVB_OK);
	CHECK_STR(val, "schedutil");
	free(val);
	CHECK(kvb_target_write(&d.t, knob, "performance", &e) == KVB_OK);
	CHECK(kvb_target_read(&d.t, knob, &val, &e) == KVB_OK);
	CHECK_STR(val, "performance");
	free(val);
	free(knob);
	/* a command's own "\r\n" survives (the pty made it "\r\r\n") */
	const char *cr[] = { "sh", "-c", "printf 'a\\r\\n'", NULL };
	CHECK(kvb_target_exec(&d.t, cr, 20000, &r, &e) == KVB_OK);
	CHECK_STR(r.out.data, "a\r\n");
	kvb_exec_result_release(&r);
	CHECK(kvb_adbsim_stop(&d) == 0);
}

/*
 * An Android 4.4/5.x device (adbd_sim --no-shell-v2 --toolbox: mksh, toolbox, no uname, no printf):
 * knobs are written and the identity is read (before: "printf: not found" on every knob, "uname:
 * not found" on every boot; devlib PR #23: not every device has uname).
 */
static void test_adb__android_5_toolbox_device_writes_knobs_and_reads_identity(void)
{
	struct kvb_adbsim d;
	struct kvb_exec_result r;
	struct kvb_error e;
	struct kvb_identity id;
	struct kvb_variant v;
	const char *opts[] = { "--no-shell-v2", "--toolbox", NULL };
	const char *no_printf[] = { "printf", "x", NULL }, *no_uname[] = { "uname", "-r", NULL };
	char *knob, *val = NULL, *host = read_text("/proc/sys/kernel/osrelease");
	sim_start(&d, opts);
	CHECK(d.open_rc == 0);
	kvb_exec_result_init(&r);
	/* the device is what it plays: neither program is there */
	CHECK(kvb_target_exec(&d.t, no_printf, 20000, &r, &e) == KVB_OK);
	CHECK(r.exit_code == 127);
	CHECK(kvb_target_exec(&d.t, no_uname, 20000, &r, &e) == KVB_OK);
	CHECK(r.exit_code == 127);
	knob = sim_path(&d, "knob");
	write_text(knob, "schedutil\n");
	CHECK(kvb_target_write(&d.t, knob, "performance", &e) == KVB_OK);
	CHECK(kvb_target_read(&d.t, knob, &val, &e) == KVB_OK);
	CHECK_STR(val, "performance");
	free(val);
	/* a value is written as it is: no backslash escapes, a leading dash is no option */
	CHECK(kvb_target_write(&d.t, knob, "-1 a\\nb", &e) == KVB_OK);
	val = read_text(knob);
	CHECK_STR(val, "-1 a\\nb");
	free(val);
	memset(&v, 0, sizeof(v));
	CHECK(kvb_identity_check(&d.t, &v, &id, &e) == KVB_OK);
	if (host[0] && host[strlen(host) - 1] == '\n')
		host[strlen(host) - 1] = '\0';
	CHECK_STR(id.release, host);
	kvb_identity_release(&id);
	free(host);
	free(knob);
	kvb_exec_result_release(&r);
	CHECK(kvb_adbsim_stop(&d) == 0);
}

/* Opens a target on d's device with connection.root set to root; returns kvb_target_open's code. */
static int open_with_root(struct kvb_adbsim *d, const char *root, struct kvb_platform *plat, struct kvb_target *t,
			  struct kvb_error *e)
{
	struct kvb_diag diag;
	char *yaml = kvb_xasprintf("name: su\nconnection: {type: adb, serial: \"%s\", adb_server_port: %d, root: %s}\n",
				   d->serial, kvb_adbsim_server_port(), root);
	char *p = kvb_xasprintf("%s/su.yaml", d->dir);
	int rc;
	write_text(p, yaml);
	kvb_diag_init(&diag, NULL);
	rc = kvb_platform_load(plat, p, &kvb_catalog, &diag);
	if (rc != KVB_OK) /* a value the key table refuses: the platform's problem, at its file:line:col */
		kvb_error_set(e, rc, "%s", diag.msgs.n ? diag.msgs.v[0] : "(no message)");
	kvb_diag_release(&diag);
	if (rc == KVB_OK)
		rc = kvb_target_open(t, plat, e);
	free(yaml);
	free(p);
	return rc;
}

/*
 * A rooted production phone: adbd is not root, su is. AOSP's su takes `su UID CMD...` (no -c);
 * SuperSU/Magisk take `su -c 'CMD'`. The sim's su scripts log their arguments and run the command.
 */
static void test_adb__root_su_finds_the_working_form(void)
{
	static const char *const forms[] = {
		"#!/bin/sh\necho \"$*\" >>\"$ADBD_SIM_DIR/su.log\"\n"
		"case \"$1\" in [0-9]*) shift; exec \"$@\";; *) echo \"su: unknown user $1\" >&2; exit 1;; esac\n",
		"#!/bin/sh\necho \"$*\" >>\"$ADBD_SIM_DIR/su.log\"\n"
		"[ \"$1\" = -c ] || { echo \"usage: su -c CMD\" >&2; exit 2; }\nexec sh -c \"$2\"\n",
	};
	for (int f = 0; f < 3; f++) {
		struct kvb_adbsim d;
		struct kvb_platform plat;
		struct kvb_target t;
		struct kvb_exec_result r;
		struct kvb_error e;
		char *su, *logp, *log;
		const char *argv[] = { "sh", "-c", "echo \"it's $0\"", "me", NULL };
		CHECK(kvb_adbsim_start(&d, "/tmp/kvb-adbsim-XXXXXX", NULL) == 0);
		su = sim_path(&d, ".adbd_sim/bin/su");
		logp = sim_path(&d, ".adbd_sim/su.log");
		/* f == 2: a production build without su (the sandbox would otherwise find the host's) */
		write_text(su, f < 2 ? forms[f] : "#!/bin/sh\necho \"/system/bin/sh: su: not found\" >&2\nexit 127\n");
		chmod(su, 0755);
		if (f == 2) {
			/* no su on the device: the open fails and says what it tried */
			CHECK(open_with_root(&d, "su", &plat, &t, &e) == KVB_ETARGET);
			CHECK_CONTAINS(e.msg, "connection.root su: no su form gives uid 0");
			CHECK_CONTAINS(e.msg, "`su 0 id -u` exit 127");
		} else {
			CHECK(open_with_root(&d, "su", &plat, &t, &e) == KVB_OK);
			kvb_exec_result_init(&r);
			CHECK(kvb_target_exec(&t, argv, 20000, &r, &e) == KVB_OK);
			CHECK_STR(r.out.data, "it's me\n");
			kvb_exec_result_release(&r);
			log = read_text(logp);
			/* the probe, then the command, each through su in the form that worked */
			CHECK_CONTAINS(log, f == 0 ? "0 sh -c 'sh' '-c'" : "-c 'sh' '-c'");
			free(log);
		}
		kvb_target_close(&t);
		kvb_platform_release(&plat);
		free(su);
		free(logp);
		CHECK(kvb_adbsim_stop(&d) == 0);
	}
	/* an unknown value is a platform error */
	{
		struct kvb_adbsim d;
		struct kvb_platform plat;
		struct kvb_target t;
		struct kvb_error e;
		CHECK(kvb_adbsim_start(&d, "/tmp/kvb-adbsim-XXXXXX", NULL) == 0);
		/* refused when the platform file loads (issue 41: every key checked from the key table), before any open */
		CHECK(open_with_root(&d, "sudo", &plat, &t, &e) == KVB_EINPUT);
		CHECK_CONTAINS(e.msg, "su.yaml:");
		CHECK_CONTAINS(e.msg, "sudo");
		kvb_platform_release(&plat); /* a refused load still owns its document */
		CHECK(kvb_adbsim_stop(&d) == 0);
	}
}

/* The whole loop on a pre-N device through the real kvbench: identity read, a sysfs knob written
 * and restored, sched_pipe run and parsed, nothing with a stray "\r". */
static void test_adb__kvbench_run_on_a_pre_n_device(void)
{
	const char *build = getenv("KVB_BUILD_DIR") ? getenv("KVB_BUILD_DIR") : "build";
	const char *opts[] = { "--no-shell-v2", NULL };
	struct kvb_adbsim d;
	char *kvb = kvb_xasprintf("%s/kvbench", build), *agenda, *text, *knob, *dbf, *out = NULL;
	sim_start(&d, opts);
	CHECK(d.open_rc == 0);
	knob = sim_path(&d, "sys_knob");
	write_text(knob, "old\n");
	agenda = kvb_xasprintf("%s/a.yaml", d.dir);
	dbf = kvb_xasprintf("%s/r.db", d.dir);
	text = kvb_xasprintf("workloads: [{name: sched_pipe, params: {loops: 2000}}]\n"
			     "variants: [{name: legacy, sysfs: {\"%s\": new}}]\n", knob);
	write_text(agenda, text);
	{
		char *pf = kvb_xasprintf("%s/platform.yaml", d.dir);
		const char *argv[] = { kvb, "run", agenda, "-p", pf, "-d", dbf, "--rounds", "1", "--no-diff", NULL };
		int rc = kvb_adbsim_run(argv, &out, 100000);
		CHECK(rc == 0);
		if (rc)
			fprintf(stderr, "%s\n", out);
		free(out);
		free(pf);
	}
	{
		const char *argv[] = { kvb, "query", "-d", dbf, "-f", "csv",
				       "select status || ':' || (select count(*) from metric m where m.job_id = job.id)"
				       " || ':' || (select running_release from boot limit 1) from job", NULL };
		CHECK(kvb_adbsim_run(argv, &out, 30000) == 0);
		CHECK_CONTAINS(out, "ok:3:");
		CHECK(strchr(out, '\r') == NULL);
		free(out);
	}
	free(text);
	text = read_text(knob);
	CHECK_STR(text, "old"); /* restored as read (kvbench trims the value it saved), without a "\r" */
	free(text);
	free(knob);
	free(agenda);
	free(dbf);
	free(kvb);
	CHECK(kvb_adbsim_stop(&d) == 0);
}

static void test_adb__open_fails_for_unreachable_device(void)
{
	struct kvb_adbsim d;
	char *yaml, *p;
	struct kvb_diag diag;
	struct kvb_platform plat;
	struct kvb_target t;
	struct kvb_error e;
	int port = kvb_adbsim_free_port();
	sim_start(&d, NULL);
	yaml = kvb_xasprintf("name: nodev\nconnection: {type: adb, serial: \"127.0.0.1:%d\", adb_server_port: %d}\n", port,
			     kvb_adbsim_server_port());
	p = kvb_xasprintf("%s/nodev.yaml", d.dir);
	write_text(p, yaml);
	kvb_diag_init(&diag, NULL);
	CHECK(kvb_platform_load(&plat, p, &kvb_catalog, &diag) == KVB_OK);
	CHECK(kvb_target_open(&t, &plat, &e) == KVB_ETARGET);
	fprintf(stderr, "  message: %s\n", e.msg);
	CHECK_CONTAINS(e.msg, "cannot connect to '127.0.0.1:");
	CHECK_CONTAINS(e.msg, "refused");
	kvb_target_close(&t);
	kvb_platform_release(&plat);
	kvb_diag_release(&diag);
	free(yaml);
	free(p);
	/* A USB serial adb does not know: open succeeds (nothing to connect), exec says why it fails. */
	yaml = kvb_xasprintf("name: nousb\nconnection: {type: adb, serial: KVBNOSUCH, adb_server_port: %d}\n", kvb_adbsim_server_port());
	p = kvb_xasprintf("%s/nousb.yaml", d.dir);
	write_text(p, yaml);
	kvb_diag_init(&diag, NULL);
	CHECK(kvb_platform_load(&plat, p, &kvb_catalog, &diag) == KVB_OK);
	CHECK(kvb_target_open(&t, &plat, &e) == KVB_OK);
	{
		const char *argv[] = { "true", NULL };
		struct kvb_exec_result r;
		kvb_exec_result_init(&r);
		CHECK(kvb_target_exec(&t, argv, 10000, &r, &e) == KVB_ETARGET);
		fprintf(stderr, "  message: %s\n", e.msg);
		CHECK_CONTAINS(e.msg, "'KVBNOSUCH' not found");
		kvb_exec_result_release(&r);
	}
	kvb_target_close(&t);
	kvb_platform_release(&plat);
	kvb_diag_release(&diag);
	free(yaml);
	free(p);
	CHECK(kvb_adbsim_stop(&d) == 0);
}

#define TESTS                                                         \
	T(test_adb__exec_returns_remote_exit_codes_0_3_255)             \
	T(test_adb__exec_keeps_stdout_and_stderr_apart)                 \
	T(test_adb__awkward_argv_round_trips_byte_exact)                \
	T(test_adb__push_pull_round_trip_keeps_sha256)                  \
	T(test_adb__directory_push_and_pull_copy_trees_without_nesting) \
	T(test_adb__wait_ready_succeeds_once_boot_completes)            \
	T(test_adb__wait_ready_times_out_with_clear_message)            \
	T(test_adb__reboot_drops_and_wait_ready_sees_the_new_boot)      \
	T(test_adb__exec_fails_promptly_when_device_drops_mid_command)  \
	T(test_adb__logcat_until_stops_at_the_pattern)                  \
	T(test_adb__exec_timeout_kills_the_remote_command)              \
	T(test_adb__root_already_root_is_success_whatever_adb_exits)   \
	T(test_adb__root_restarts_adbd_and_waits_for_the_device)       \
	T(test_adb__root_refused_on_a_user_build_quotes_adbd)          \
	T(test_adb__legacy_shell_still_gives_exit_status)               \
	T(test_adb__pre_n_device_reads_like_a_v2_device)                \
	T(test_adb__root_su_finds_the_working_form)                     \
	T(test_adb__kvbench_run_on_a_pre_n_device)                      \
	T(test_adb__android_5_toolbox_device_writes_knobs_and_reads_identity) \
	T(test_adb__open_fails_for_unreachable_device)
#include "test_main.h"
