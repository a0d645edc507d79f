/*
 * Preflight: everything a run needs that can be checked before the first
 * flash, so a typo in a kernel path costs seconds, not an evening of boots
 * (issue 18). Used by `agenda check -p`, `run --dry-run` and `run`.
 *
 * Checked:
 *  - every variant file (kernel, dtb, initrd, boot_image, modules): a local
 *    path exists, is a readable regular file and matches its sha256 when one
 *    is given; a URL without sha256 is refused unless allow_unverified; a URL
 *    whose sha256 is in the artifact cache is fine; any other URL must answer
 *    a HEAD (file:// URLs: the file must be readable); a local kernel or
 *    boot_image must be one (kvb_kimage_check: magic, header, release);
 *  - a kernel variant on a platform that cannot install kernels (flash none);
 *  - a variant without kernel (or boot_image, where the flasher takes one) or
 *    git revision on a flasher that boots each variant's own kernel
 *    (KVB_FLASH_NEEDS_KERNEL: qemu, ssh-copy, fastboot, lava); not checked for
 *    --series, whose commits replace the agenda's variants after the preflight;
 *  - knobs: every cpufreq cluster (WA3 CLUSTER_governor ...) is in the
 *    platform's topology.clusters; no WA3 runtime parameter kvbench cannot
 *    apply (wa3_unapplied: CPU hotplug, governor tunables);
 *  - the platform's own files: connection.key and an explicit
 *    connection.known_hosts must be readable files;
 *  - when probe_target is set and the board answers now (never booting one:
 *    a target that needs a flash to exist is not probed), every tool the
 *    agenda's workloads need (kvb_workload_ops.needs) must be on its PATH, and
 *    jobs that run RT tasks (KVB_WORKLOAD_REALTIME) at cgroup_depth >= 1 need an
 *    RT budget for the groups kvbench creates where the kernel has RT group
 *    scheduling (engine/cgroup.h kvb_cgroup_rt_budget).
 *    An unreachable board is a note, not a problem: it may be off until the
 *    first flash.
 */
#ifndef KVB_PREFLIGHT_H
#define KVB_PREFLIGHT_H

#include "config/agenda.h"
#include "config/platform.h"
#include "core/util.h"

struct kvb_preflight {
	struct kvb_strv problems;  /* each a full message naming the variant/file/key */
	struct kvb_strv notes;     /* what was not checked, and why */
};

/*
 * Checks a (loaded) agenda, -V variants applied, on a (loaded) platform; fills pf (init it with
 * {0}). series: the agenda's variants are to be replaced by the commits of --series (built after
 * the preflight), so none needs a kernel yet. Returns the number of problems.
 */
size_t kvb_preflight_run(const struct kvb_agenda *a, const struct kvb_platform *p, int allow_unverified,
			 int probe_target, int series, struct kvb_preflight *pf);

/*
 * Without a platform (`agenda check` without -p): every variant's local files exist and are
 * readable, and its kernel and boot_image are what they say (flash/kimage.h kvb_kimage_check;
 * with a platform kvb_preflight_run checks the same). URLs are left to the run's preflight.
 * Returns the number of problems added.
 */
size_t kvb_preflight_variant_files(const struct kvb_agenda *a, struct kvb_preflight *pf);

/* Only the platform's files (ssh key, known_hosts): used by `platform check`. Returns the number of problems. */
size_t kvb_preflight_platform(const struct kvb_platform *p, struct kvb_preflight *pf);

/* Prints problems and notes to f ("preflight: ..."); returns KVB_OK or KVB_EINPUT when there are problems. */
int kvb_preflight_report(const struct kvb_preflight *pf, FILE *f);

void kvb_preflight_release(struct kvb_preflight *pf);

#endif
