/* Implements the topology checks of a platform file: CPU lists, clusters, and what refers to them. */
#include "config/platform_check.h"
#include "core/suggest.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "CPU 5 is" or "CPUs 2-5 are" for set, in buf. */
static const char *cpus_are(const unsigned char set[KVB_CPULIST_MAX], char *buf, size_t n)
{
	char list[256];
	int count = 0;
	for (int i = 0; i < KVB_CPULIST_MAX; i++)
		count += set[i] != 0;
	snprintf(buf, n, "%s %s %s", count == 1 ? "CPU" : "CPUs", kvb_cpulist_format(set, list, sizeof(list)),
		 count == 1 ? "is" : "are");
	return buf;
}

static const cJSON *clusters_of(const struct kvb_platform *p)
{
	const cJSON *topo = cJSON_GetObjectItemCaseSensitive(p->doc.root, "topology");
	const cJSON *cl = cJSON_IsObject(topo) ? cJSON_GetObjectItemCaseSensitive(topo, "clusters") : NULL;
	return cJSON_IsArray(cl) ? cl : NULL;
}

/* The CPU list of cluster c (a mapping) in set; -1 when it has none or it does not parse (why filled). */
static int cluster_set(const cJSON *c, unsigned char set[KVB_CPULIST_MAX], char *why, size_t n)
{
	const cJSON *cpus = cJSON_IsObject(c) ? cJSON_GetObjectItemCaseSensitive(c, "cpus") : NULL;
	char *s;
	int rc;
	if (!cJSON_IsString(cpus) && !cJSON_IsNumber(cpus)) {
		snprintf(why, n, "no CPU list");
		return -1;
	}
	s = kvb_node_str(cpus);
	rc = kvb_cpulist_read(s, set, why, n);
	free(s);
	return rc;
}

int kvb_platform_topology_cpus(const struct kvb_platform *p, unsigned char set[KVB_CPULIST_MAX])
{
	unsigned char one[KVB_CPULIST_MAX];
	char why[160];
	int count = 0;
	memset(set, 0, KVB_CPULIST_MAX);
	for (const cJSON *c = clusters_of(p) ? clusters_of(p)->child : NULL; c; c = c->next) {
		if (cluster_set(c, one, why, sizeof(why)) < 0)
			return 0;
		for (int i = 0; i < KVB_CPULIST_MAX; i++)
			if (one[i] && !set[i]) {
				set[i] = 1;
				count++;
			}
	}
	return count;
}

/* setup.cpus (the workloads' affinity) must name CPUs of the topology. */
static void check_setup_cpus(const struct kvb_platform *p, const unsigned char all[KVB_CPULIST_MAX], struct kvb_diag *d)
{
	const cJSON *setup = cJSON_GetObjectItemCaseSensitive(p->doc.root, "setup");
	const cJSON *cpus = cJSON_IsObject(setup) ? cJSON_GetObjectItemCaseSensitive(setup, "cpus") : NULL;
	unsigned char want[KVB_CPULIST_MAX], out[KVB_CPULIST_MAX] = { 0 };
	char why[160], list[256], outs[256], *s;
	int bad = 0;
	if (!cpus || !(s = kvb_node_str(cpus)))
		return;
	if (kvb_cpulist_read(s, want, why, sizeof(why)) > 0) { /* a bad list: runtime.c said so */
		for (int i = 0; i < KVB_CPULIST_MAX; i++)
			if (want[i] && !all[i])
				bad = out[i] = 1;
		if (bad)
			kvb_diag_at(d, "setup.cpus", "%s in no cluster of topology (its CPUs: %s)",
				    cpus_are(out, outs, sizeof(outs)), kvb_cpulist_format(all, list, sizeof(list)));
	}
	free(s);
}

/* energy_model: {CLUSTER: {kHz: mW}}: every key a cluster of the topology. */
static void check_energy_model(const struct kvb_platform *p, const cJSON *cl, struct kvb_diag *d)
{
	const cJSON *em = cJSON_GetObjectItemCaseSensitive(p->doc.root, "energy_model");
	struct kvb_strv names = KVB_STRV_INIT;
	if (!cJSON_IsObject(em))
		return;
	for (const cJSON *c = cl->child; c; c = c->next)
		if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(c, "name")))
			kvb_strv_push(&names, cJSON_GetObjectItemCaseSensitive(c, "name")->valuestring);
	for (const cJSON *kv = em->child; kv; kv = kv->next) {
		size_t i = 0;
		char dym[160], *path;
		while (i < names.n && strcmp(names.v[i], kv->string))
			i++;
		if (i < names.n)
			continue;
		path = kvb_path_key("energy_model", kv->string);
		kvb_diag_at(d, path, "'%s' is not a cluster of topology.clusters%s", kv->string,
			    kvb_did_you_mean(dym, sizeof(dym), kv->string, (const char *const *)names.v, names.n));
		free(path);
	}
	kvb_strv_release(&names);
}

void kvb_platform_check_topology(const struct kvb_platform *p, struct kvb_diag *d)
{
	const cJSON *cl = clusters_of(p);
	unsigned char all[KVB_CPULIST_MAX] = { 0 }, one[KVB_CPULIST_MAX];
	int owner[KVB_CPULIST_MAX], i = 0, ok = 1;
	char why[160];
	if (!cl)
		return;
	for (int c = 0; c < KVB_CPULIST_MAX; c++)
		owner[c] = -1;
	for (const cJSON *c = cl->child; c; c = c->next, i++) {
		const cJSON *cpus = cJSON_IsObject(c) ? cJSON_GetObjectItemCaseSensitive(c, "cpus") : NULL;
		const cJSON *name = cJSON_IsObject(c) ? cJSON_GetObjectItemCaseSensitive(c, "name") : NULL;
		char *path = kvb_path_idx("topology.clusters", i), *cpath = kvb_path_key(path, "cpus");
		int j = 0;
		if (!cJSON_IsString(cpus) && !cJSON_IsNumber(cpus)) { /* missing or mistyped: the key table said so */
			ok = 0;
			goto next;
		}
		for (const cJSON *o = cl->child; o != c && cJSON_IsString(name); o = o->next, j++) {
			const cJSON *on = cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, "name") : NULL;
			if (cJSON_IsString(on) && !strcmp(on->valuestring, name->valuestring)) {
				char *npath = kvb_path_key(path, "name");
				kvb_diag_at(d, npath, "cluster name '%s' is also topology.clusters[%d]'s: give each cluster its own",
					    name->valuestring, j);
				free(npath);
			}
		}
		if (cluster_set(c, one, why, sizeof(why)) < 0) {
			char *s = kvb_node_str(cpus);
			kvb_diag_at(d, cpath, "expected a CPU list like \"0-3,6\", got \"%s\": %s", s, why);
			free(s);
			ok = 0;
			goto next;
		}
		for (int cpu = 0; cpu < KVB_CPULIST_MAX; cpu++) {
			if (!one[cpu])
				continue;
			if (owner[cpu] >= 0) {
				kvb_diag_at(d, cpath, "CPU %d is also in topology.clusters[%d]: a CPU belongs to one cluster", cpu,
					    owner[cpu]);
				break;
			}
			owner[cpu] = i;
			all[cpu] = 1;
		}
next:
		free(cpath);
		free(path);
	}
	if (ok)
		check_setup_cpus(p, all, d);
	check_energy_model(p, cl, d);
}

int kvb_platform_check_cpus_against(const struct kvb_platform *p, const unsigned char have[KVB_CPULIST_MAX],
				    const char *source, struct kvb_diag *d)
{
	const cJSON *cl = clusters_of(p);
	unsigned char one[KVB_CPULIST_MAX], missing[KVB_CPULIST_MAX];
	char why[160], ms[256], hs[256];
	int i = 0, errors = 0;
	for (const cJSON *c = cl ? cl->child : NULL; c; c = c->next, i++) {
		int bad = 0;
		if (cluster_set(c, one, why, sizeof(why)) < 0)
			continue;
		for (int cpu = 0; cpu < KVB_CPULIST_MAX; cpu++)
			bad |= missing[cpu] = one[cpu] && !have[cpu];
		if (bad) {
			char *path = kvb_path_idx("topology.clusters", i), *cpath = kvb_path_key(path, "cpus");
			kvb_diag_at(d, cpath, "%s not on the board (%s: CPUs %s)",
				    cpus_are(missing, ms, sizeof(ms)), source, kvb_cpulist_format(have, hs, sizeof(hs)));
			free(cpath);
			free(path);
			errors++;
		}
	}
	return errors;
}
