/*
 * Simulated Android devices for tests: tests/sim/adbd_sim behind Debian's
 * real adb client. All devices of a test process share one private adb
 * server (its own free 127.0.0.1 port and its own HOME for the adb key,
 * killed and removed at exit); each device lives in its own temporary
 * directory and is reached as a kvbench adb target.
 *
 *   struct kvb_adbsim d;
 *   CHECK(kvb_adbsim_start(&d, "/tmp/kvb-x-XXXXXX", NULL) == 0);  // DIR/root is the device
 *   ... put files into DIR/root ...
 *   kvb_adbsim_open(&d, "simdev", NULL);          // DIR/platform.yaml, d.t opened (d.open_rc)
 *   ... kvb_target_exec(&d.t, ...) ...
 *   CHECK(kvb_adbsim_stop(&d) == 0);              // adbd_sim exited 0; DIR removed
 *
 * Link the kvb_adb_fixture library (tests/integration/tests.cmake) and make
 * the test depend on adbd_sim; $KVB_BUILD_DIR locates it (default "build").
 */
#ifndef KVB_ADB_FIXTURE_H
#define KVB_ADB_FIXTURE_H

#include "config/platform.h"
#include "core/error.h"
#include "core/spawn.h"
#include "target/target.h"

#include <stdint.h>

struct kvb_adbsim {
	char dir[64];          /* temp dir: root/ (the device's files), port, platform.yaml */
	char serial[64];       /* "127.0.0.1:PORT", the device as adb connects to it */
	struct kvb_bgproc sim; /* the running adbd_sim */
	struct kvb_platform plat;
	struct kvb_target t;
	int open_rc;           /* kvb_target_open()'s result; err says why when non-zero */
	struct kvb_error err;
	uint64_t started_ns;   /* kvb_mono_ns() just before adbd_sim was spawned */
};

/*
 * Runs argv on this host (adb, rm, kvbench ...) within timeout_ms. With out
 * non-NULL, *out receives its stdout then its stderr (free() it). Returns
 * the exit code, or -1 when it could not run or timed out.
 */
int kvb_adbsim_run(const char *const *argv, char **out, uint64_t timeout_ms);
/* A free TCP port on 127.0.0.1 (bound, read back and closed), or 0. */
int kvb_adbsim_free_port(void);
/*
 * Port of the private adb server, set up on first call: HOME becomes a fresh
 * temporary directory, ANDROID_SERIAL, ANDROID_ADB_SERVER_PORT and
 * ADB_SERVER_SOCKET are unset, and an atexit handler kills the server and
 * removes that HOME. Aborts if the directory cannot be created.
 */
int kvb_adbsim_server_port(void);
/*
 * Zeroes d, creates d->dir from dir_template (mkdtemp pattern, fits d->dir)
 * with an empty root/, and starts adbd_sim --root DIR/root --port-file
 * DIR/port plus extra (NULL-terminated options, or NULL). Waits up to 5 s
 * for the port file and sets d->serial. Returns 0, or -1 after saying why
 * on stderr (no port); aborts if the directory or the process cannot be made.
 */
int kvb_adbsim_start(struct kvb_adbsim *d, const char *dir_template, const char *const *extra);
/*
 * Writes DIR/platform.yaml: platform `name`, an adb connection to d->serial
 * through the private server, a boot readiness check on
 * sys.boot_completed == 1 (30 s), then extra_yaml (whole lines, or NULL).
 * Loads it into d->plat (aborts on a diagnostic, printing it) and opens
 * d->t; the result goes to d->open_rc and d->err, printed when non-zero.
 */
void kvb_adbsim_open(struct kvb_adbsim *d, const char *name, const char *extra_yaml);
/*
 * Disconnects the device from the adb server, closes d->t and d->plat,
 * stops adbd_sim (SIGTERM, 5 s) and removes d->dir. Returns adbd_sim's exit
 * status as kvb_spawn_stop() reports it.
 */
int kvb_adbsim_stop(struct kvb_adbsim *d);

#endif
