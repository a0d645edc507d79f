/*
 * The adb target (docs/design.md#backends-and-capabilities): an Android board reached through Debian's
 * `adb` client, driven with argv arrays only. The target ops are in
 * kvb_target_adb (registered in target.c); the functions below are the
 * adb-only extras that workloads use.
 *
 * connection keys (platform.yaml):
 *   serial           USB serial or host:port (required)
 *   adb              adb client binary (default "adb", looked up in PATH)
 *   adb_server_port  port of the adb server to use (adb -P PORT); lets tests
 *                    run a private server
 *   connect          run `adb connect SERIAL` at open and while waiting for a
 *                    boot (default: true when serial contains ':')
 *   root             run `adb root` at open (default false)
 *
 * exec() quotes argv with kvb_shell_join() and checks an end marker (see
 * adb.c), so a dropped connection is KVB_ETARGET even though adb exits 0;
 * the quoted command must stay under 128 KiB (one argv string). push() and
 * pull() of a directory make the destination a copy of the source tree (no
 * adb-style nesting into an existing directory). wait_ready() with
 * timeout_ms 0 uses the platform's boot.timeout_s.
 */
#ifndef KVB_TARGET_ADB_H
#define KVB_TARGET_ADB_H

#include "target/target.h"

#include <stdint.h>

/*
 * Streams `adb logcat` of target t (an open adb target) into out_path
 * (created or truncated) until a line matches pattern, a POSIX extended
 * regular expression (a plain substring such as "BenchmarkDone!" works as
 * is), or timeout_ms passes. logcat prints the whole buffer before following
 * it, so clear it first (exec `logcat -c`) when an old line could match.
 *
 * *matched is 1 when a line matched, 0 when the timeout passed first; both
 * return KVB_OK. Errors: KVB_EINPUT for a pattern that does not compile,
 * KVB_ETARGET when out_path cannot be written, adb cannot start, or logcat
 * ends before the pattern appears (device gone); the message says which.
 */
int kvb_adb_logcat_until(struct kvb_target *t, const char *out_path, const char *pattern, uint64_t timeout_ms,
			 int *matched, struct kvb_error *err);

/*
 * Runs `adb root`; adbd's answer decides, whatever adb's exit status: "already
 * running as root" is success, "restarting adbd as root" waits (up to
 * timeout_ms) until the device is back, "cannot run as root in production
 * builds" is KVB_ETARGET quoting it. Any other answer is adb's exit status.
 * KVB_ETARGET also when adb cannot run or the device does not come back.
 */
int kvb_adb_root(struct kvb_target *t, uint64_t timeout_ms, struct kvb_error *err);

#endif
