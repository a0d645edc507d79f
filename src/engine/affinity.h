/*
 * The affinity wrapper for the `cpus` knob. util-linux and newer toybox
 * take `taskset -c LIST CMD`; older toybox (Android before 7, busybox
 * builds without the long form) only `taskset MASK CMD` with MASK in hex
 * (bit N = CPU N). kvbench asks the target which form works
 * (`taskset -c LIST true`, then `taskset MASK true`) and fails the job when
 * neither does.
 */
#ifndef KVB_AFFINITY_H
#define KVB_AFFINITY_H

#include "core/cpulist.h"
#include "core/error.h"
#include "core/util.h"
#include "target/target.h"

/* Appends the working taskset prefix for list to wrap ("taskset -c LIST" or "taskset MASK"). */
/*
 * KVB_ETARGET naming the first CPU of list that is not in the board's
 * /sys/devices/system/cpu/online under the platform's sysfs_root (taskset would silently run on the
 * others); KVB_OK when all are, or when the board does not say which CPUs are online. list must be a valid CPU list.
 */
int kvb_affinity_check_online(struct kvb_target *t, const char *list, struct kvb_error *err);
int kvb_affinity_wrap(struct kvb_target *t, const char *list, struct kvb_strv *wrap, struct kvb_error *err);

#endif
