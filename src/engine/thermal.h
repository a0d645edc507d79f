/*
 * The thermal witness (docs/design.md#witnesses): before and after every job, the board's thermal
 * zones, cooling devices and cpufreq caps, read in one command (Linux
 * Documentation/driver-api/thermal/sysfs-api.rst):
 *   /sys/class/thermal/thermal_zoneN/{type,temp}              temp in millidegrees C
 *   /sys/class/thermal/cooling_deviceN/{type,cur_state,max_state}   0 = not cooling
 *   /sys/devices/system/cpu/cpufreq/policyN/{scaling_max_freq,cpuinfo_max_freq}  kHz; a thermal
 *     cap (cpufreq cooling, a freq QoS request) shows as scaling_max_freq below cpuinfo_max_freq
 * Witnesses (kind "thermal"): every zone's temperature before and after (subject = its type),
 * `ok`; a cooling device whose cur_state changed during the job, or a policy whose
 * scaling_max_freq changed, is `changed` (capping began or ended while the numbers were
 * taken); an active cooling device or a capped policy that did not change is `ok` with a
 * detail saying so. A board without thermal zones records nothing. The CPUs online
 * (/sys/devices/system/cpu/online) are read too: a set that changed during the job (a hotplug
 * daemon, thermal hotplug) is a `changed` witness of kind "hotplug".
 *
 * Platform `thermal:` (optional): max_temp_mc fails a job with a zone above it before or
 * after; refuse_capped fails a job with an active cooling device or a scaling_max_freq that
 * dropped during it (the witness is then `failed`); root prefixes /sys (tests).
 */
#ifndef KVB_THERMAL_H
#define KVB_THERMAL_H

#include "core/error.h"
#include "core/witness.h"
#include "target/target.h"

#include <cjson/cJSON.h>

struct kvb_thermal_item {
	char *name;       /* "thermal_zone0", "cooling_device3", "policy4" */
	char *type;       /* zone or cooling device type ("acpitz", "Processor"); NULL for a policy */
	long long a, b;   /* zone: temp (mC), -; cooling: cur_state, max_state; policy: scaling_max_freq, cpuinfo_max_freq (kHz) */
	int ok;           /* both read as numbers (an offline policy or a sensor without data is not) */
};

struct kvb_thermal {
	struct kvb_thermal_item *zones, *cooling, *policies;
	size_t nzones, ncooling, npolicies;
	char *online; /* /sys/devices/system/cpu/online ("0-7"), or NULL */
};

struct kvb_thermal_limits {
	long long max_temp_mc; /* 0: no limit */
	int refuse_capped;
	const char *root;      /* "" or a path prefix of /sys */
};

/* The limits of a platform's `thermal:` mapping (NULL: none) and its sysfs_root (NULL: ""). */
void kvb_thermal_limits_from(const cJSON *conf, const char *sysfs_root, struct kvb_thermal_limits *l);

/* Parses the reading command's output ("Z|name|type|temp", "C|name|type|cur|max", "P|name|max|cpuinfo_max",
 * "O|online" lines). */
void kvb_thermal_parse(const char *text, struct kvb_thermal *s);

/* Reads the board's zones, cooling devices and policies under root. KVB_ETARGET when the command fails. */
int kvb_thermal_read(struct kvb_target *t, const char *root, struct kvb_thermal *s, struct kvb_error *err);

/*
 * The witnesses of one job from the readings before and after it, into w. KVB_ETARGET with the
 * reason (and a `failed` witness) when a limit refuses the job, else KVB_OK.
 */
int kvb_thermal_judge(const struct kvb_thermal *before, const struct kvb_thermal *after,
		      const struct kvb_thermal_limits *l, struct kvb_witnesses *w, struct kvb_error *err);

void kvb_thermal_release(struct kvb_thermal *s);

#endif
