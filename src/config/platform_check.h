/*
 * The checks of a platform file beyond its keys' types (issue 41): the CPU
 * lists of topology.clusters (each a valid list, no CPU in two clusters, no
 * name twice), the CPU lists and cluster names other blocks give (setup.cpus,
 * energy_model) against that topology, and, when the board answers, the
 * topology against the CPUs it has. Every problem goes to a kvb_diag with
 * the file:line:col of the key and what to write instead.
 */
#ifndef KVB_PLATFORM_CHECK_H
#define KVB_PLATFORM_CHECK_H

#include "config/platform.h"
#include "core/cpulist.h"

/* Checks topology.clusters of p's document and what refers to it (setup.cpus, energy_model). */
void kvb_platform_check_topology(const struct kvb_platform *p, struct kvb_diag *d);

/*
 * The CPUs of every cluster of p (their union) in set; returns how many, 0 when p has no
 * topology or a cluster's list does not parse (then kvb_platform_load has said why).
 */
int kvb_platform_topology_cpus(const struct kvb_platform *p, unsigned char set[KVB_CPULIST_MAX]);

/*
 * Checks the topology against a board's CPUs: have is the board's CPU list (its
 * /sys/devices/system/cpu/present or online), named by source ("the board's
 * /sys/devices/system/cpu/present", "connection.smp 2"). A cluster CPU the board does not have is
 * an error at that cluster's cpus. Returns the errors added.
 */
int kvb_platform_check_cpus_against(const struct kvb_platform *p, const unsigned char have[KVB_CPULIST_MAX],
				    const char *source, struct kvb_diag *d);

#endif
