/* Implements the residency of a cluster summed over time_in_state readings that may restart (probe.h), and the
 * sampling of those readings that cpufreq.c and model.c share (residency.h). */
#include "instrument/counter.h"
#include "instrument/residency.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rows restart together; a table that went back is counted from 0 (cpufreq-stats.rst: `reset`,
 * and the stats freed and recreated with the policy). */
static const struct kvb_ctr_decl tis_decl = {
	"cpufreq time_in_state", KVB_CTR_RESETS | KVB_CTR_VANISHES,
	"Documentation/cpu-freq/cpufreq-stats.rst: `reset` zeroes the table; it is freed and recreated with the policy"
};

static void add(struct kvb_residency *r, uint64_t khz, double t)
{
	size_t k = 0;
	while (k < r->n && r->khz[k] != khz)
		k++;
	if (k == r->n) {
		r->khz = kvb_xrealloc(r->khz, (r->n + 1) * sizeof(*r->khz));
		r->t = kvb_xrealloc(r->t, (r->n + 1) * sizeof(*r->t));
		r->khz[r->n] = khz;
		r->t[r->n++] = 0;
	}
	r->t[k] += t;
}

static void *memdup(const void *p, size_t n)
{
	void *q = kvb_xmalloc(n ? n : 1);
	if (n)
		memcpy(q, p, n);
	return q;
}

static void copy_tis(struct kvb_tis *dst, const struct kvb_tis *src)
{
	kvb_tis_release(dst);
	dst->n = src->n;
	dst->khz = memdup(src->khz, src->n * sizeof(*src->khz));
	dst->t = memdup(src->t, src->n * sizeof(*src->t));
	dst->has_trans = src->has_trans;
	dst->trans = src->trans;
}

void kvb_residency_feed(struct kvb_residency *r, const struct kvb_tis *t, double uptime_s)
{
	uint64_t *prev, *delta;
	enum kvb_ctr_step st;
	int lost_row = 0;
	if (!t) {
		if (!r->gap++)
			r->gap_from = uptime_s;
		r->gap_to = uptime_s;
		return;
	}
	if (!r->have_base) {
		copy_tis(&r->base, t);
		r->base_up = uptime_s;
		r->have_base = 1;
		r->gap = 0;
		for (size_t k = 0; k < t->n; k++)
			add(r, t->khz[k], 0);
		return;
	}
	prev = kvb_xcalloc(t->n + 1, sizeof(*prev));
	delta = kvb_xcalloc(t->n + 1, sizeof(*delta));
	for (size_t k = 0; k < t->n; k++)
		for (size_t j = 0; j < r->base.n; j++)
			if (r->base.khz[j] == t->khz[k])
				prev[k] = r->base.t[j];
	/* a frequency of the table before that this one lacks: a new table */
	for (size_t j = 0; j < r->base.n && !lost_row; j++) {
		size_t k = 0;
		while (k < t->n && t->khz[k] != r->base.khz[j])
			k++;
		lost_row = k == t->n;
	}
	st = kvb_ctr_group_step(&tis_decl, prev, t->t, t->n, delta);
	if (st != KVB_CTR_RESTARTED && (lost_row || (t->has_trans && r->base.has_trans && t->trans < r->base.trans))) {
		for (size_t k = 0; k < t->n; k++)
			delta[k] = t->t[k];
		st = KVB_CTR_RESTARTED;
	}
	if (st == KVB_CTR_RESTARTED && !r->restarts++) {
		r->rs_from = r->base_up;
		r->rs_to = uptime_s;
		r->restart_after_gap = r->gap > 0;
	}
	for (size_t k = 0; k < t->n; k++)
		add(r, t->khz[k], (double)delta[k]);
	copy_tis(&r->base, t);
	r->base_up = uptime_s;
	r->gap = 0;
	free(prev);
	free(delta);
}

void kvb_residency_release(struct kvb_residency *r)
{
	free(r->khz);
	free(r->t);
	kvb_tis_release(&r->base);
	memset(r, 0, sizeof(*r));
}

int kvb_tis_from_sample(const char *body, int cpu, struct kvb_tis *t)
{
	char head[32];
	const char *blk, *end;
	char *txt;
	int rc;
	memset(t, 0, sizeof(*t));
	snprintf(head, sizeof(head), "cpu %d\n", cpu);
	blk = !strncmp(body, head, strlen(head)) ? body : strstr(body, head);
	while (blk && blk != body && blk[-1] != '\n')
		blk = strstr(blk + 1, head);
	if (!blk)
		return -1;
	blk += strlen(head);
	end = strstr(blk, "\ncpu ");
	txt = kvb_xstrndup(blk, end ? (size_t)(end + 1 - blk) : strlen(blk));
	rc = strstr(txt, "unreadable") == txt ? -1 : kvb_tis_parse(txt, t);
	if (!rc) {
		const char *tt = !strncmp(txt, "total_trans ", 12) ? txt : strstr(txt, "\ntotal_trans ");
		if (tt) {
			t->has_trans = 1;
			t->trans = strtoull(tt + (*tt == '\n' ? 13 : 12), NULL, 10);
		}
	}
	free(txt);
	return rc;
}

int kvb_tis_offline_error(const char *msg)
{
	return strstr(msg, "Device or resource busy") || strstr(msg, "No such device");
}

int kvb_cluster_read_cpu(const struct kvb_cluster_set *cs, size_t i, const char *online)
{
	unsigned char *on = kvb_xcalloc(1024, 1);
	int cpu = cs->first[i];
	if (online && kvb_cpulist_parse(online, on, 1024) > 0)
		for (cpu = 0; cpu < 1024 && !(cs->cpus[i][cpu] && on[cpu]); cpu++)
			;
	free(on);
	return cpu == 1024 ? -1 : cpu;
}

/* The online list of a sample body, or NULL. Owned by the caller. */
static char *sample_online(const char *body)
{
	const char *o = !strncmp(body, "online ", 7) ? body : strstr(body, "\nonline ");
	if (!o)
		return NULL;
	o += *o == '\n' ? 8 : 7;
	return kvb_xstrndup(o, strcspn(o, "\r\n"));
}

void kvb_online_watch_start(struct kvb_online_watch *w, struct kvb_target *t, const char *root)
{
	char *txt = NULL;
	struct kvb_error ignore;
	memset(w, 0, sizeof(*w));
	if (!kvb_target_read_rooted(t, root, "/sys/devices/system/cpu/online", &txt, &ignore) && txt) {
		txt[strcspn(txt, " \r\n")] = '\0';
		w->start = kvb_xstrdup(txt);
	}
	free(txt);
}

void kvb_online_watch_feed(struct kvb_online_watch *w, const char *body, double up)
{
	char *on = sample_online(body);
	if (on && w->start && strcmp(on, w->start) && !w->changed) {
		w->changed = kvb_xstrdup(on);
		w->first_up = up;
	}
	free(w->last);
	w->last = on;
}

void kvb_online_watch_witness(const struct kvb_online_watch *w, struct kvb_metrics *out, const char *name)
{
	int back = w->last && w->start && !strcmp(w->last, w->start);
	if (!w->changed)
		return;
	kvb_witness_add(&out->witnesses, "hotplug", name, w->start, w->changed, KVB_WIT_CHANGED,
			"CPUs online changed during the job: %s at its start, %s at uptime %.2f s (sampled "
			"/sys/devices/system/cpu/online)%s%s",
			w->start, w->changed, w->first_up, back ? ", back to " : "", back ? w->last : "");
}

void kvb_online_watch_release(struct kvb_online_watch *w)
{
	free(w->start);
	free(w->changed);
	free(w->last);
	memset(w, 0, sizeof(*w));
}

void kvb_residency_witness(struct kvb_metrics *out, const char *cluster, const char *cpus,
			   const struct kvb_residency *r, const char *counted_in)
{
	char subject[160], obs[64], from[48], to[48];
	snprintf(subject, sizeof(subject), "%s time_in_state", cluster);
	snprintf(obs, sizeof(obs), "restarted %d time%s", r->restarts, r->restarts == 1 ? "" : "s");
	if (r->rs_from < 0)
		snprintf(from, sizeof(from), "the start of the job");
	else
		snprintf(from, sizeof(from), "uptime %.2f s", r->rs_from);
	if (r->rs_to < 0)
		snprintf(to, sizeof(to), "the end of the job");
	else
		snprintf(to, sizeof(to), "uptime %.2f s", r->rs_to);
	kvb_witness_add(&out->witnesses, "counter", subject, "rows only grow", obs, KVB_WIT_CHANGED,
			"cluster '%s' (CPUs %s): time_in_state restarted between the readings at %s and %s (%s): "
			"%s count it from the restart; the time between the reading before and the restart is not "
			"in them",
			cluster, cpus, from, to,
			r->restart_after_gap ? "the cluster was offline between them: its stats were freed with the "
					       "policy and recreated"
					     : "rows went back to 0: stats/reset was written, or the table was recreated",
			counted_in);
}

void kvb_residency_feed_sample(struct kvb_residency *r, const char *body, int cpu, double uptime_s)
{
	struct kvb_tis t;
	if (kvb_tis_from_sample(body, cpu, &t)) {
		kvb_residency_feed(r, NULL, uptime_s);
		return;
	}
	kvb_residency_feed(r, &t, uptime_s);
	kvb_tis_release(&t);
}
