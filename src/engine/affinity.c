/* Implements the taskset prefix of the `cpus` knob, with the hex-mask form for older toybox. */
#include "engine/affinity.h"
#include "config/platform.h"
#include "core/cpulist.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 1 when argv exits 0 on the target; else why (the end of its stderr) in why[] */
static int works(struct kvb_target *t, const char *const *argv, char *why, size_t n)
{
	struct kvb_exec_result r;
	struct kvb_error e;
	int ok, rc;
	kvb_exec_result_init(&r);
	rc = kvb_target_exec(t, argv, 30000, &r, &e);
	ok = !rc && r.exit_code == 0;
	if (!ok && rc) {
		snprintf(why, n, "%.200s", e.msg);
	} else if (!ok) {
		size_t len = r.err.len;
		const char *p = r.err.data ? r.err.data : "";
		while (len && (p[len - 1] == '\n' || p[len - 1] == '\r'))
			len--;
		if (len > 160) {
			p += len - 160;
			len = 160;
		}
		snprintf(why, n, "exit %d%s%.*s", r.exit_code, len ? ": " : "", (int)len, p);
	}
	kvb_exec_result_release(&r);
	return ok;
}

/*
 * taskset (sched_setaffinity) accepts a list as long as one of its CPUs is online and
 * silently drops the rest: "0,7" on a 2-CPU board runs on CPU 0 under the classifier
 * cpus=0,7. So every CPU asked for must be in the board's /sys/devices/system/cpu/online
 * (Documentation/ABI/testing/sysfs-devices-system-cpu); a board that does not say is not checked.
 */
int kvb_affinity_check_online(struct kvb_target *t, const char *list, struct kvb_error *err)
{
	/* the platform's sysfs_root prefixes it, as it does every reader of /sys (a fake tree in tests) */
	char *path = kvb_xasprintf("%s/sys/devices/system/cpu/online",
				   t->plat && t->plat->sysfs_root ? t->plat->sysfs_root : "");
	const char *const argv[] = { "cat", path, NULL };
	uint8_t want[KVB_CPULIST_MAX / 8] = { 0 }, have[KVB_CPULIST_MAX / 8] = { 0 };
	struct kvb_exec_result r;
	struct kvb_error e;
	int top = -1, htop = -1, rc = KVB_OK;
	char *online;
	kvb_exec_result_init(&r);
	rc = kvb_target_exec(t, argv, 30000, &r, &e);
	free(path);
	if (rc || r.exit_code != 0 || !r.out.data) {
		kvb_exec_result_release(&r);
		return KVB_OK;
	}
	online = kvb_xstrndup(r.out.data, strcspn(r.out.data, "\r\n"));
	kvb_exec_result_release(&r);
	/* list was checked by kvb_cpulist_to_mask; an online file we cannot read says nothing */
	if (kvb_cpulist_bits(list, want, &top, &e) || kvb_cpulist_bits(online, have, &htop, &e) || htop < 0) {
		free(online);
		return KVB_OK;
	}
	for (int c = 0; c <= top; c++)
		if ((want[c / 8] >> (c % 8) & 1) && !(have[c / 8] >> (c % 8) & 1)) {
			rc = kvb_error_set(err, KVB_ETARGET,
					   "cpus '%s': CPU %d is not online on the board (online: %s); taskset would "
					   "silently run on the others",
					   list, c, online);
			break;
		}
	free(online);
	return rc;
}

int kvb_affinity_wrap(struct kvb_target *t, const char *list, struct kvb_strv *wrap, struct kvb_error *err)
{
	char *mask;
	int rc = kvb_cpulist_to_mask(list, &mask, err);
	if (rc)
		return rc;
	if ((rc = kvb_affinity_check_online(t, list, err))) {
		free(mask);
		return rc;
	}
	{
		const char *longform[] = { "taskset", "-c", list, "true", NULL };
		const char *maskform[] = { "taskset", mask, "true", NULL };
		char why_long[256] = "", why_mask[256] = "";
		if (works(t, longform, why_long, sizeof(why_long))) {
			kvb_strv_push(wrap, "taskset");
			kvb_strv_push(wrap, "-c");
			kvb_strv_push(wrap, list);
		} else if (works(t, maskform, why_mask, sizeof(why_mask))) {
			kvb_strv_push(wrap, "taskset");
			kvb_strv_push(wrap, mask);
		} else {
			rc = kvb_error_set(err, KVB_ETARGET,
					   "cpus '%s': cannot set the affinity: `taskset -c %s`: %s; `taskset %s` (mask): %s", list,
					   list, why_long, mask, why_mask);
		}
	}
	free(mask);
	return rc;
}
