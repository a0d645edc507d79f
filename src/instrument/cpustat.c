/* Implements parsing of /proc/stat (and the hotplug and held fields a run of its snapshots shows), cpufreq
 * time_in_state and the platform's cluster list for the CPU instruments. */
#include "instrument/probe.h"
#include "instrument/counter.h"
#include "instrument/instrument.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int kvb_procstat_parse(const char *text, struct kvb_procstat *ps)
{
	memset(ps, 0, sizeof(*ps));
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		unsigned long long v[8] = { 0 };
		int cpu, got;
		if (strncmp(l, "cpu", 3) || l[3] < '0' || l[3] > '9')
			continue;
		got = sscanf(l, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1], &v[2], &v[3], &v[4],
			     &v[5], &v[6], &v[7]);
		if (got < 5 || cpu < 0 || cpu >= 4096)
			continue;
		if (cpu >= ps->n) {
			int n = cpu + 1;
			ps->busy = kvb_xrealloc(ps->busy, (size_t)n * sizeof(*ps->busy));
			ps->total = kvb_xrealloc(ps->total, (size_t)n * sizeof(*ps->total));
			ps->field = kvb_xrealloc(ps->field, (size_t)n * sizeof(*ps->field));
			ps->seen = kvb_xrealloc(ps->seen, (size_t)n);
			for (int i = ps->n; i < n; i++) {
				ps->busy[i] = ps->total[i] = 0;
				memset(ps->field[i], 0, sizeof(ps->field[i]));
				ps->seen[i] = 0;
			}
			ps->n = n;
		}
		/* user nice system idle iowait irq softirq steal */
		ps->busy[cpu] = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
		ps->total[cpu] = ps->busy[cpu] + v[3] + v[4];
		memcpy(ps->field[cpu], v, sizeof(v));
		ps->seen[cpu] = 1;
	}
	return ps->n ? 0 : -1;
}

/* The /proc/stat fields as counters (counter.h). */
static const struct kvb_ctr_decl idle_decl = {
	"/proc/stat idle", KVB_CTR_RESETS | KVB_CTR_VANISHES,
	"sysstat get_per_cpu_interval(): idle going back is a CPU back online"
};
static const struct kvb_ctr_decl field_decl = {
	"/proc/stat field", KVB_CTR_DIPS | KVB_CTR_VANISHES,
	"sysstat ll_sp_value(): a field that went back counts 0 in its interval (NO_HZ iowait, proc(5))"
};

int kvb_procstat_step(struct kvb_procstat_base *base, const uint64_t cur[8], struct kvb_procstat_step *st)
{
	uint64_t d[8];
	memset(st, 0, sizeof(*st));
	if (base->have && kvb_ctr_step(&idle_decl, base->f[3], cur[3], 0, &d[3]) == KVB_CTR_RESTARTED)
		st->restarted = 1;
	if (!base->have || st->restarted) {
		/* the first reading; or idle restarted: the CPU went offline and came back between the two
		 * readings, and how long it was out is not known (sysstat counts idle from 0, which over-counts
		 * when the restart was not to 0: sysstat #433), so the interval is not used */
		memcpy(base->f, cur, sizeof(base->f));
		base->have = 1;
		return -1;
	}
	for (int f = 0; f < 8; f++) {
		if (kvb_ctr_step(&field_decl, base->f[f], cur[f], 0, &d[f]) == KVB_CTR_HELD)
			st->held |= 1u << f;
		else
			base->f[f] = cur[f];
		if (f == 3 || f == 4)
			st->total += (double)d[f];
		else
			st->busy += (double)d[f];
	}
	st->total += st->busy;
	return st->total > 0 ? 0 : -1;
}

int kvb_cpu_seen_step(struct kvb_cpu_seen *cs, const struct kvb_procstat *cur, int cpu, int snaps, double up,
		      double prev_up, struct kvb_procstat_step *st)
{
	memset(st, 0, sizeof(*st));
	if (cpu >= cur->n || !cur->seen[cpu]) {
		/* /proc/stat lists online CPUs only (show_stat(): for_each_online_cpu) */
		if (cs->present || cs->missing) {
			if (!cs->missing++)
				cs->miss_from = up;
			cs->miss_to = up;
		}
		cs->present = 0;
		cs->base.have = 0; /* back online, it starts afresh */
		return -1;
	}
	if (!cs->present && !cs->missing && snaps > 1 && !cs->appeared) {
		cs->appeared = 1;
		cs->app_at = up;
	}
	cs->present = 1;
	if (kvb_procstat_step(&cs->base, cur->field[cpu], st)) {
		if (st->restarted && !cs->restarts++) {
			cs->rs_from = prev_up;
			cs->rs_to = up;
		}
		return -1;
	}
	cs->intervals++;
	for (int f = 0; f < 8; f++)
		cs->held[f] += (st->held >> f) & 1;
	return 0;
}

void kvb_cpu_seen_witnesses(struct kvb_metrics *out, const struct kvb_cpu_seen *cs, int ncpu, int snaps,
			    const char *what)
{
	static const char *const names[8] = { "user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal" };
	for (int i = 0; i < ncpu; i++) {
		char subject[32], obs[160];
		snprintf(subject, sizeof(subject), "cpu%d /proc/stat", i);
		if (cs[i].appeared) {
			kvb_witness_add(&out->witnesses, "hotplug", subject, "in every sample", "appeared during the job",
					KVB_WIT_CHANGED,
					"cpu%d came online during the job: its line was first in the /proc/stat sample at uptime "
					"%.2f s; %s is of the intervals it was online", i, cs[i].app_at, what);
		}
		if (cs[i].missing) {
			snprintf(obs, sizeof(obs), "missing from %d of %d samples", cs[i].missing, snaps);
			kvb_witness_add(&out->witnesses, "hotplug", subject, "in every sample", obs, KVB_WIT_CHANGED,
					"cpu%d went offline during the job: its line was missing from %d of the %d /proc/stat "
					"samples (uptime %.2f to %.2f s); %s is of the intervals it was online",
					i, cs[i].missing, snaps, cs[i].miss_from, cs[i].miss_to, what);
		}
		if (cs[i].restarts) {
			snprintf(obs, sizeof(obs), "idle went back in %d interval%s", cs[i].restarts,
				 cs[i].restarts == 1 ? "" : "s");
			kvb_witness_add(&out->witnesses, "hotplug", subject, "idle only grows", obs, KVB_WIT_CHANGED,
					"cpu%d's idle counter restarted between the samples at uptime %.2f and %.2f s: it went "
					"offline and came back between them, for a time not known, so that interval is not "
					"used",
					i, cs[i].rs_from, cs[i].rs_to);
		}
		for (int f = 0; f < 8; f++) {
			if (!cs[i].held[f])
				continue;
			snprintf(subject, sizeof(subject), "cpu%d %s", i, names[f]);
			snprintf(obs, sizeof(obs), "below its previous value in %d of %d intervals", cs[i].held[f],
				 cs[i].intervals);
			kvb_witness_add(&out->witnesses, "counter", subject, "only grows, or dips and is held", obs, KVB_WIT_OK,
					"/proc/stat %s of cpu%d read below its previous value in %d of %d intervals%s: held "
					"there (counted 0) and those intervals kept, as sysstat does",
					names[f], i, cs[i].held[f], cs[i].intervals,
					f == 4 ? " (NO_HZ iowait accounting, proc(5))" : "");
		}
	}
}


void kvb_procstat_release(struct kvb_procstat *ps)
{
	free(ps->busy);
	free(ps->total);
	free(ps->field);
	free(ps->seen);
	memset(ps, 0, sizeof(*ps));
}

int kvb_tis_parse(const char *text, struct kvb_tis *t)
{
	memset(t, 0, sizeof(*t));
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		unsigned long long f, v;
		if (sscanf(l, "%llu %llu", &f, &v) != 2)
			continue;
		t->khz = kvb_xrealloc(t->khz, (t->n + 1) * sizeof(*t->khz));
		t->t = kvb_xrealloc(t->t, (t->n + 1) * sizeof(*t->t));
		t->khz[t->n] = f;
		t->t[t->n++] = v;
	}
	return t->n ? 0 : -1;
}

void kvb_tis_release(struct kvb_tis *t)
{
	free(t->khz);
	free(t->t);
	memset(t, 0, sizeof(*t));
}

int kvb_tis_read(struct kvb_target *t, const char *root, int cpu, struct kvb_tis *out, struct kvb_error *err)
{
	char path[128];
	char *text = NULL;
	int rc;
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/stats/time_in_state", cpu);
	rc = kvb_target_read_rooted(t, root, path, &text, err);
	if (!rc && kvb_tis_parse(text, out))
		rc = kvb_error_set(err, KVB_EINPUT, "'%s%s' has no 'FREQ TIME' rows", root ? root : "", path);
	free(text);
	return rc;
}

int kvb_clusters_get(const struct kvb_platform *plat, struct kvb_cluster_set *cs, struct kvb_error *err)
{
	size_t n = plat && plat->nclusters ? plat->nclusters : 1;
	memset(cs, 0, sizeof(*cs));
	cs->name = kvb_xcalloc(n, sizeof(*cs->name));
	cs->cpus = kvb_xcalloc(n, sizeof(*cs->cpus));
	cs->first = kvb_xcalloc(n, sizeof(*cs->first));
	cs->n = n;
	for (size_t i = 0; i < n; i++) {
		const char *name = plat && plat->nclusters ? plat->clusters[i].name : "cpu0";
		const char *cpus = plat && plat->nclusters ? plat->clusters[i].cpus : "0";
		cs->name[i] = kvb_xstrdup(name);
		if (kvb_cpulist_parse(cpus, cs->cpus[i], 1024) <= 0)
			return kvb_error_set(err, KVB_EINPUT, "cluster '%s': bad CPU list '%s'", name, cpus);
		cs->first[i] = 0;
		while (!cs->cpus[i][cs->first[i]])
			cs->first[i]++;
	}
	return KVB_OK;
}

void kvb_clusters_release(struct kvb_cluster_set *cs)
{
	for (size_t i = 0; i < cs->n; i++)
		free(cs->name[i]);
	free(cs->name);
	free(cs->cpus);
	free(cs->first);
	memset(cs, 0, sizeof(*cs));
}

void kvb_instr_probe_tis(struct kvb_instr_probe *p)
{
	struct kvb_cluster_set cs;
	struct kvb_error err;
	if (kvb_clusters_get(p->plat, &cs, &err)) {
		kvb_instr_probe_problem(p, "%s", err.msg);
		return;
	}
	for (size_t i = 0; i < cs.n; i++) {
		char path[128];
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/stats/time_in_state", cs.first[i]);
		kvb_instr_probe_board_file(p, path);
	}
	kvb_clusters_release(&cs);
}
