/* Implements the load-time check of a qemu platform: its topology within the guest CPUs connection.smp boots. */
#include "target/qemu.h"
#include "config/platform_check.h"
#include "core/util.h"

#include <stdio.h>
#include <string.h>

void kvb_qemu_check(const struct kvb_platform *p, struct kvb_diag *d)
{
	unsigned char have[KVB_CPULIST_MAX] = { 0 }, topo[KVB_CPULIST_MAX];
	const cJSON *sv = cJSON_GetObjectItemCaseSensitive(p->conn, "smp");
	long long smp = kvb_get_int(p->conn, "smp", 2);
	char src[64];
	if ((sv && !cJSON_IsNumber(sv)) || smp < 1 || !kvb_platform_topology_cpus(p, topo))
		return; /* a bad smp: the key table said so */
	for (long long i = 0; i < smp && i < KVB_CPULIST_MAX; i++)
		have[i] = 1;
	snprintf(src, sizeof(src), "connection.smp %lld", smp);
	kvb_platform_check_cpus_against(p, have, src, d);
}
