/* Implements the ordering of cpufreq and sysfs knob writes (governors first, offline policies skipped). */
#include "engine/cpufreq_plan.h"
#include "core/buf.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* $1 is the platform's sysfs_root: the policies are looked for under it and printed without it */
static const char cpufreq_list_script[] =
	"for d in \"$1\"/sys/devices/system/cpu/cpufreq/policy*; do [ -e \"$d/scaling_governor\" ] || continue;"
	" a=$(cat \"$d/affected_cpus\" 2>/dev/null); r=$(cat \"$d/related_cpus\" 2>/dev/null);"
	" echo \"${d#\"$1\"}|$a|$r\"; done; true";

void kvb_cpufreq_list_argv(const char *root, const char *argv[6])
{
	argv[0] = "sh";
	argv[1] = "-c";
	argv[2] = cpufreq_list_script;
	argv[3] = "kvb-cpufreq";
	argv[4] = root ? root : "";
	argv[5] = NULL;
}

void kvb_write_plan_release(struct kvb_write_plan *p)
{
	kvb_strv_release(&p->paths);
	kvb_strv_release(&p->values);
	kvb_strv_release(&p->knobs);
	kvb_strv_release(&p->warnings);
}

static void add(struct kvb_write_plan *p, const char *knob, const char *path, const char *value)
{
	kvb_strv_push(&p->knobs, knob);
	kvb_strv_push(&p->paths, path);
	kvb_strv_push(&p->values, value);
}

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcmp(s + a - b, suffix);
}

/* 1 when CPU number cpu is in a cpufreq list ("0 1 2 3", space separated, as affected_cpus/related_cpus). */
static int cpu_in(const char *list, long cpu)
{
	char *end;
	for (const char *s = list; *s;) {
		long v = strtol(s, &end, 10);
		if (end == s)
			break;
		if (v == cpu)
			return 1;
		s = end;
	}
	return 0;
}

static int blank(const char *s)
{
	return strspn(s, " \t\r\n") == strlen(s);
}

/* Policies as parallel lists of directory, affected (online) CPUs and related CPUs. */
struct policies {
	struct kvb_strv dir, affected, related;
};

static void parse_policies(const char *txt, struct policies *ps)
{
	memset(ps, 0, sizeof(*ps));
	for (const char *s = txt ? txt : ""; *s;) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);
		char *line = kvb_xstrndup(s, n), *b1 = strchr(line, '|'), *b2 = b1 ? strchr(b1 + 1, '|') : NULL;
		if (b2) {
			*b1 = *b2 = '\0';
			for (char *c = b2 + 1; *c; c++)
				if (*c == '\r')
					*c = '\0';
			kvb_strv_push(&ps->dir, line);
			kvb_strv_push(&ps->affected, b1 + 1);
			kvb_strv_push(&ps->related, b2 + 1);
		}
		free(line);
		s += n + (nl ? 1 : 0);
	}
}

static void release_policies(struct policies *ps)
{
	kvb_strv_release(&ps->dir);
	kvb_strv_release(&ps->affected);
	kvb_strv_release(&ps->related);
}

/* One cluster's writes of one kind (key "governor" and tunables, or the frequency keys) for knob c. */
static int plan_one(const cJSON *c, const struct kvb_cluster *k, const struct policies *ps, int governors,
		    struct kvb_write_plan *p, struct kvb_error *err)
{
	static const char *const freq_keys[][2] = { { "max_freq", "scaling_max_freq" },
						    { "min_freq", "scaling_min_freq" },
						    { "frequency", "scaling_setspeed" } };
	long first = strtol(k->cpus, NULL, 10);
	size_t pi;
	for (pi = 0; pi < ps->dir.n; pi++)
		if (cpu_in(ps->related.v[pi], first) || cpu_in(ps->affected.v[pi], first))
			break;
	if (pi == ps->dir.n)
		return kvb_error_set(err, KVB_ETARGET, "cpufreq: no cpufreq policy holds CPU %ld (cluster '%s')", first,
				     k->name);
	if (blank(ps->affected.v[pi]))
		return kvb_error_set(err, KVB_ETARGET, "cpufreq: cluster '%s' (%s): every CPU of %s is offline", k->name,
				     k->cpus, ps->dir.v[pi]);
	if (governors) {
		const cJSON *g = cJSON_GetObjectItemCaseSensitive(c, "governor");
		const cJSON *tun = cJSON_GetObjectItemCaseSensitive(c, "tunables");
		if (cJSON_IsString(g)) {
			char *path = kvb_xasprintf("%s/scaling_governor", ps->dir.v[pi]);
			char *knob = kvb_xasprintf("cpufreq.%s.governor", c->string);
			add(p, knob, path, g->valuestring);
			free(knob);
			free(path);
		}
		/* policyN/GOVERNOR/TUNABLE exists once the governor is set (devlib's
		 * cpufreq.set_governor_tunables): right after it, named after it */
		if (tun && tun->child && !cJSON_IsString(g))
			return kvb_error_set(err, KVB_EINPUT,
					     "cpufreq: cluster '%s': tunables need the cluster's governor in the same knob "
					     "(cpufreq.%s.governor; WA3 %s_governor): their directory is named after it",
					     c->string, c->string, c->string);
		for (const cJSON *t = tun ? tun->child : NULL; t; t = t->next) {
			char *path = kvb_xasprintf("%s/%s/%s", ps->dir.v[pi], g->valuestring, t->string);
			char *val = kvb_node_str(t), *knob = kvb_xasprintf("cpufreq.%s.tunables.%s", c->string, t->string);
			add(p, knob, path, val);
			free(knob);
			free(val);
			free(path);
		}
		return KVB_OK;
	}
	for (size_t f = 0; f < KVB_ARRAY_SIZE(freq_keys); f++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, freq_keys[f][0]);
		if (v) {
			char *path = kvb_xasprintf("%s/%s", ps->dir.v[pi], freq_keys[f][1]), *val = kvb_node_str(v);
			char *knob = kvb_xasprintf("cpufreq.%s.%s", c->string, freq_keys[f][0]);
			add(p, knob, path, val);
			free(knob);
			free(val);
			free(path);
		}
	}
	return KVB_OK;
}

/* "cortex-a53" -> "a53": the part WA3's core names (devlib's core_names) use. */
static const char *core_short(const char *core)
{
	return strncasecmp(core, "cortex-", 7) ? core : core + 7;
}

size_t kvb_clusters_match(const struct kvb_cluster *cl, size_t ncl, const char *name, size_t *idx)
{
	size_t n = 0;
	for (size_t i = 0; i < ncl; i++)
		if (!strcmp(cl[i].name, name)) {
			idx[0] = i;
			return 1;
		}
	for (size_t i = 0; i < ncl; i++)
		if (cl[i].core && (!strcasecmp(cl[i].core, name) || !strcasecmp(core_short(cl[i].core), name)))
			idx[n++] = i;
	return n;
}

/* Per-cluster writes of one kind for every cluster in rt->cpufreq. */
static int plan_clusters(const struct kvb_runtime *rt, const struct policies *ps, const struct kvb_cluster *cl,
			 size_t ncl, int governors, struct kvb_write_plan *p, struct kvb_error *err)
{
	int rc = KVB_OK;
	size_t *idx = kvb_xcalloc(ncl + 1, sizeof(*idx));
	for (const cJSON *c = rt->cpufreq ? rt->cpufreq->child : NULL; c && !rc; c = c->next) {
		size_t n = kvb_clusters_match(cl, ncl, c->string, idx);
		if (!n) {
			char *known = kvb_clusters_known(cl, ncl);
			rc = kvb_error_set(err, KVB_EINPUT,
					   "cpufreq: '%s' names no cluster (name or core type) in the platform's topology.clusters (%s)",
					   c->string, known);
			free(known);
		}
		for (size_t i = 0; i < n && !rc; i++)
			rc = plan_one(c, &cl[idx[i]], ps, governors, p, err);
	}
	free(idx);
	return rc;
}

char *kvb_clusters_known(const struct kvb_cluster *cl, size_t ncl)
{
	struct kvb_buf b = KVB_BUF_INIT;
	kvb_buf_addf(&b, "known: ");
	for (size_t i = 0; i < ncl; i++)
		kvb_buf_addf(&b, "%s%s%s%s%s", i ? ", " : "", cl[i].name, cl[i].core ? " (" : "",
			     cl[i].core ? cl[i].core : "", cl[i].core ? ")" : "");
	if (!ncl)
		kvb_buf_addf(&b, "none declared");
	return kvb_buf_detach(&b);
}

int kvb_cpufreq_plan(const struct kvb_runtime *rt, const char *policies, const struct kvb_cluster *clusters,
		     size_t nclusters, struct kvb_write_plan *p, struct kvb_error *err)
{
	struct policies ps;
	int rc = KVB_OK;
	memset(p, 0, sizeof(*p));
	parse_policies(policies, &ps);
	if ((rt->governor || rt->cpufreq) && !ps.dir.n)
		rc = kvb_error_set(err, KVB_ETARGET, "%s: the target has no cpufreq policies",
				   rt->governor ? "governor" : "cpufreq");
	/* 1. governors: the global knob, then per cluster, then sysfs scaling_governor values */
	for (size_t i = 0; !rc && rt->governor && i < ps.dir.n; i++) {
		char *path = kvb_xasprintf("%s/scaling_governor", ps.dir.v[i]);
		if (blank(ps.affected.v[i]))
			kvb_strv_pushf(&p->warnings, "governor: skipping %s: every CPU of the policy is offline (related_cpus %s)",
				       ps.dir.v[i], ps.related.v[i]);
		else
			add(p, "governor", path, rt->governor);
		free(path);
	}
	if (!rc)
		rc = plan_clusters(rt, &ps, clusters, nclusters, 1, p, err);
	for (const cJSON *kv = rt->sysfs ? rt->sysfs->child : NULL; !rc && kv; kv = kv->next)
		if (ends_with(kv->string, "/scaling_governor")) {
			char *val = kvb_node_str(kv), *knob = kvb_xasprintf("sysfs.%s", kv->string);
			add(p, knob, kv->string, val);
			free(knob);
			free(val);
		}
	/* 2. frequencies (need the governor: scaling_setspeed only under userspace) */
	if (!rc)
		rc = plan_clusters(rt, &ps, clusters, nclusters, 0, p, err);
	/* 3. the rest of sysfs: governor tunables exist now */
	for (const cJSON *kv = rt->sysfs ? rt->sysfs->child : NULL; !rc && kv; kv = kv->next)
		if (!ends_with(kv->string, "/scaling_governor")) {
			char *val = kvb_node_str(kv), *knob = kvb_xasprintf("sysfs.%s", kv->string);
			add(p, knob, kv->string, val);
			free(knob);
			free(val);
		}
	release_policies(&ps);
	if (rc)
		kvb_write_plan_release(p);
	return rc;
}
