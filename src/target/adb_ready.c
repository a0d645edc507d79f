/* Implements the adb target's reboot and readiness: the device gone down, back online and booted, and adbd restarted as root (adbd's answer decides). */
#include "target/adb_internal.h"

#include <errno.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Waits up to ms for the device to leave the "device" state (a reboot taking effect). */
static int adb_wait_down(struct kvb_target *t, uint64_t ms, struct kvb_error *err)
{
	struct adb_priv *p = t->priv;
	uint64_t end = kvb_mono_ns() + ms * 1000000ull;
	char state[256];
	for (;;) {
		kvb_adb_state(t, state, sizeof(state));
		if (strcmp(state, "device"))
			break;
		if (kvb_mono_ns() >= end || (t->cancel && *t->cancel))
			return kvb_error_set(err, KVB_ETARGET, "'%s' still online %llu s after 'adb reboot'", p->serial,
					     (unsigned long long)(ms / 1000));
		kvb_sleep_ms(100);
	}
	/* A tcp transport the server keeps "offline" only comes back on the server's slow
	 * reconnect timer; forget it so wait_ready's `adb connect` gets a fresh one. */
	if (p->connect)
		kvb_adb_disconnect(t);
	return KVB_OK;
}

int kvb_adb_reboot(struct kvb_target *t, const char *mode, struct kvb_error *err)
{
	struct adb_priv *p = t->priv;
	const char *args[] = { "reboot", mode, NULL };
	struct kvb_exec_result r;
	char why[400];
	int rc;
	kvb_exec_result_init(&r);
	rc = kvb_adb_run(t, 1, args, ADB_SHORT_MS, &r, err);
	if (!rc && r.exit_code != 0)
		rc = kvb_error_set(err, KVB_ETARGET, "%s", kvb_adb_why(&r, why, sizeof(why)));
	kvb_exec_result_release(&r);
	if (!rc)
		rc = adb_wait_down(t, ADB_DOWN_MS, err);
	if (rc)
		kvb_error_prefix(err, "cannot reboot '%s'%s%s", p->serial, mode ? " to " : "", mode ? mode : "");
	return rc;
}

/*
 * Brings the transport up: `adb connect` for tcp serials, then `adb
 * wait-for-device` bounded by left_ms (by 3 s slices for tcp, reconnecting
 * between slices). Returns KVB_OK when adb reports the device online; else
 * KVB_ETARGET with the last thing adb said in err.
 */
static int adb_wait_online(struct kvb_target *t, uint64_t left_ms, struct kvb_error *err)
{
	struct adb_priv *p = t->priv;
	const char *args[] = { "wait-for-device", NULL };
	struct kvb_exec_result r;
	char why[400];
	uint64_t slice = p->connect && left_ms > 3000 ? 3000 : left_ms, t0 = kvb_mono_ns();
	int rc;

	if (p->connect && kvb_adb_connect_once(t, err)) {
		kvb_sleep_ms(left_ms < 250 ? left_ms : 250); /* refused: the device is still down */
		return KVB_ETARGET;
	}
	kvb_exec_result_init(&r);
	rc = kvb_adb_run(t, 1, args, slice, &r, err);
	if (!rc && r.exit_code != 0)
		rc = kvb_error_set(err, KVB_ETARGET, "%s", kvb_adb_why(&r, why, sizeof(why)));
	kvb_exec_result_release(&r);
	if (rc) {
		char state[256];
		kvb_adb_state(t, state, sizeof(state));
		if (p->connect && strstr(state, "offline"))
			kvb_adb_disconnect(t);
		kvb_error_set(err, KVB_ETARGET, "adb says '%s'", state);
	}
	if (rc && kvb_mono_ns() - t0 < 200000000ull) /* adb failed at once: do not spin */
		kvb_sleep_ms(250);
	return rc;
}

int kvb_adb_wait_ready(struct kvb_target *t, uint64_t timeout_ms, struct kvb_error *err)
{
	struct adb_priv *p = t->priv;
	const struct kvb_platform *plat = t->plat;
	const char *ready = plat && plat->boot_ready ? plat->boot_ready : "getprop sys.boot_completed";
	const char *expect = plat && plat->boot_expect ? plat->boot_expect : "1";
	const char *argv[] = { "sh", "-c", ready, NULL };
	struct kvb_exec_result r;
	struct kvb_error e;
	char last[600] = "no answer from adb";
	int online = 0, answered = 0;
	uint64_t t0 = kvb_mono_ns(), deadline;

	if (!timeout_ms)
		timeout_ms = (uint64_t)(plat && plat->boot_timeout_s > 0 ? plat->boot_timeout_s : 180) * 1000ull;
	deadline = t0 + timeout_ms * 1000000ull;
	kvb_exec_result_init(&r);
	for (;;) {
		uint64_t now = kvb_mono_ns(), left_ms;
		if (now >= deadline || (t->cancel && *t->cancel))
			break;
		left_ms = (deadline - now) / 1000000ull;
		if (adb_wait_online(t, left_ms, &e)) {
			snprintf(last, sizeof(last), "%.500s", e.msg);
			continue;
		}
		online = 1;
		now = kvb_mono_ns();
		if (now >= deadline)
			break;
		left_ms = (deadline - now) / 1000000ull;
		if (kvb_target_exec(t, argv, left_ms < 15000 ? left_ms + 1 : 15000, &r, &e)) {
			/* A check cut short by the deadline says less than the last one that answered. */
			if (!(r.timed_out && answered))
				snprintf(last, sizeof(last), "%.500s", e.msg);
			continue;
		}
		answered = 1;
		kvb_adb_trim(&r.out);
		if (r.exit_code == 0 && !strcmp(r.out.data, expect)) {
			kvb_debug("'%s' ready after %.1f s", p->serial, (double)(kvb_mono_ns() - t0) / 1e9);
			kvb_exec_result_release(&r);
			return KVB_OK;
		}
		snprintf(last, sizeof(last), "'%s' printed '%.200s' with exit status %d (expected '%s')", ready,
			 r.out.data, r.exit_code, expect);
		now = kvb_mono_ns();
		if (now < deadline)
			kvb_sleep_ms((deadline - now) / 1000000ull < 500 ? (deadline - now) / 1000000ull : 500);
	}
	kvb_exec_result_release(&r);
	if (t->cancel && *t->cancel)
		return kvb_error_set(err, KVB_ETARGET, "waiting for '%s' cancelled", p->serial);
	return kvb_error_set(err, KVB_ETARGET, "'%s' %s within %.1f s: %s", p->serial,
			     online ? "was online but not ready" : "did not come online",
			     (double)timeout_ms / 1000.0, last);
}

/* The line of r's stdout or stderr that holds needle, into buf; 0 when neither has it. */
static int answer_line(const struct kvb_exec_result *r, const char *needle, char *buf, size_t n)
{
	const struct kvb_buf *bs[2] = { &r->out, &r->err };
	for (int i = 0; i < 2; i++) {
		const char *at = strstr(bs[i]->data, needle), *start;
		if (!at)
			continue;
		for (start = at; start > bs[i]->data && start[-1] != '\n';)
			start--;
		snprintf(buf, n, "%.*s", (int)strcspn(start, "\r\n"), start);
		return 1;
	}
	return 0;
}

/*
 * adbd's answer decides, not adb's exit status. adbd (AOSP adb
 * daemon/restart_service.cpp) answers "adbd is already running as root",
 * "adbd cannot run as root in production builds" or "restarting adbd as root";
 * adb prints that line and exits 0 for all three (client/commandline.cpp
 * adb_root, platform-tools 29.0.6 to today), but after "restarting" it waits
 * for the device to leave and come back and exits 1 ("timeout expired while
 * waiting for device") when that takes over 6 s, as it does for a tcp device
 * the server reconnects every 10 s; and adb builds in the field exit 1 on
 * "already running as root" (devlib #597, PR #598).
 */
int kvb_adb_root(struct kvb_target *t, uint64_t timeout_ms, struct kvb_error *err)
{
	struct adb_priv *p = t->priv;
	const char *args[] = { "root", NULL };
	struct kvb_exec_result r;
	char why[400];
	int rc;
	kvb_exec_result_init(&r);
	rc = kvb_adb_run(t, 1, args, ADB_SHORT_MS, &r, err);
	if (rc)
		goto out;
	if (answer_line(&r, "already running as root", why, sizeof(why))) {
		if (r.exit_code != 0)
			kvb_debug("adb: 'adb root' on '%s' exited %d with \"%s\": root already", p->serial, r.exit_code, why);
	} else if (answer_line(&r, "restarting adbd as root", why, sizeof(why))) {
		/* adbd restarts: wait for the transport to come back, bounded, whatever adb's own wait said */
		uint64_t end = kvb_mono_ns() + timeout_ms * 1000000ull;
		struct kvb_error e;
		rc = kvb_error_set(err, KVB_ETARGET, "device did not come back after adbd restarted");
		if (r.exit_code != 0 && p->connect)
			kvb_adb_disconnect(t); /* adb gave up on it: a tcp transport left offline waits for the server's 10 s timer */
		while (rc && kvb_mono_ns() < end && !(t->cancel && *t->cancel))
			if (!(rc = adb_wait_online(t, (end - kvb_mono_ns()) / 1000000ull + 1, &e)))
				break;
	} else if (answer_line(&r, "cannot run as root", why, sizeof(why))) {
		rc = kvb_error_set(err, KVB_ETARGET, "%s (a user build: connection.root su uses the device's su)", why);
	} else if (r.exit_code != 0) {
		rc = kvb_error_set(err, KVB_ETARGET, "%s", kvb_adb_why(&r, why, sizeof(why)));
	}
out:
	if (rc)
		kvb_error_prefix(err, "'adb root' on '%s'", p->serial);
	kvb_exec_result_release(&r);
	return rc;
}
