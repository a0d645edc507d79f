/* Implements the host interference witness: procfs readings around a job and their verdict. */
#include "engine/hostwatch.h"
#include "core/buf.h"
#include "core/util.h"

#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *kvb_host_proc_root(void)
{
	const char *r = getenv("KVB_HOST_PROC");
	return r && *r ? r : "/proc";
}

static int read_text(const char *root, const char *rel, struct kvb_buf *b)
{
	char *p = kvb_xasprintf("%s/%s", root, rel);
	int rc;
	kvb_buf_reset(b);
	rc = kvb_buf_read_file(b, p);
	free(p);
	return rc == 0 && b->len > 0 ? 0 : -1;
}

/* "some avg10=1.00 avg60=... total=N" (psi.rst); the "full" line is ignored. */
static void read_psi(const char *root, struct kvb_host_sample *s, struct kvb_buf *b)
{
	double avg10, avg60, avg300;
	unsigned long long total;
	if (read_text(root, "pressure/cpu", b))
		return;
	if (sscanf(b->data, "some avg10=%lf avg60=%lf avg300=%lf total=%llu", &avg10, &avg60, &avg300, &total) == 4) {
		s->have_psi = 1;
		s->psi_some_avg10 = avg10;
		s->psi_some_total_us = (double)total;
	}
}

/* The aggregate line "cpu  user nice system idle iowait irq softirq steal guest guest_nice" (proc(5));
 * guest time is already counted in user, so the total is user..steal. */
static void read_stat(const char *root, struct kvb_host_sample *s, struct kvb_buf *b)
{
	unsigned long long f[8] = { 0 };
	if (read_text(root, "stat", b))
		return;
	if (sscanf(b->data, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &f[0], &f[1], &f[2], &f[3], &f[4], &f[5],
		   &f[6], &f[7]) >= 4) {
		s->have_stat = 1;
		s->ticks_total = 0;
		for (int i = 0; i < 8; i++)
			s->ticks_total += f[i];
		s->ticks_steal = f[7];
		s->ticks_idle = f[3] + f[4];
	}
}

static void read_load(const char *root, struct kvb_host_sample *s, struct kvb_buf *b)
{
	if (!read_text(root, "loadavg", b) && sscanf(b->data, "%lf", &s->load1) == 1)
		s->have_load = 1;
}

/* Every thread's schedstat: "run_ns wait_ns timeslices" (sched-stats.rst, /proc/<pid>/schedstat). */
static void read_proc(const char *root, pid_t pid, struct kvb_host_sample *s, struct kvb_buf *b)
{
	char *dir = kvb_xasprintf("%s/%ld/task", root, (long)pid);
	DIR *d = opendir(dir);
	struct dirent *e;
	if (d) {
		while ((e = readdir(d))) {
			double run, wait;
			char *rel;
			if (e->d_name[0] == '.')
				continue;
			rel = kvb_xasprintf("%ld/task/%s/schedstat", (long)pid, e->d_name);
			if (!read_text(root, rel, b) && sscanf(b->data, "%lf %lf", &run, &wait) == 2) {
				s->proc_run_ns += run;
				s->proc_wait_ns += wait;
				s->proc_threads++;
				if (s->nthreads < KVB_HOST_THREADS_MAX)
					s->threads[s->nthreads++] =
						(struct kvb_host_thread){ strtol(e->d_name, NULL, 10), run, wait };
			}
			free(rel);
		}
		closedir(d);
	}
	/* "0 0 0" from every thread: a kernel that keeps no sched_info (before 5.14 without
	 * schedstats and with delay accounting off, fs/proc/base.c): nothing was measured */
	s->have_proc = s->proc_threads > 0 && s->proc_run_ns > 0;
	if (s->proc_threads > KVB_HOST_THREADS_MAX)
		s->nthreads = 0; /* not all kept: the sums are all there is */
	free(dir);
}

void kvb_host_sample_read(const char *proc_root, pid_t pid, struct kvb_host_sample *s)
{
	struct kvb_buf b = KVB_BUF_INIT;
	memset(s, 0, sizeof(*s));
	s->t_ns = kvb_mono_ns();
	s->ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	read_psi(proc_root, s, &b);
	read_stat(proc_root, s, &b);
	read_load(proc_root, s, &b);
	if (pid > 0)
		read_proc(proc_root, pid, s, &b);
	kvb_buf_release(&b);
}

/*
 * /proc/stat counts in ticks (USER_HZ, 10 ms each on every architecture Linux exports),
 * summed over the CPUs, so a 20 ms job on 2 CPUs spans about 4 ticks and one tick of steal
 * reads as 25 %. On a cloud VM whose hypervisor takes a tick now and then (seen on this
 * project's CI machines: 14-25 % "steal" on 12 ms jobs, 0.1 % over 10 s of stress-ng), that
 * would mark every short job disturbed. The steal share is judged only over a window where
 * one tick is at most a quarter of the limit; below that it is recorded, not judged
 * (verdict ok without an expected value, as the CPU pressure of a job that runs on the host).
 */
static double steal_min_ticks(const struct kvb_host_limits *lim)
{
	return 4 * 100.0 / lim->pct;
}

static enum kvb_witness_verdict judge(double pct, const struct kvb_host_limits *lim, int virtual_clock)
{
	return !virtual_clock && pct > lim->pct ? KVB_WIT_DISTURBED : KVB_WIT_OK;
}

/*
 * The board process's time on a CPU and waiting for one between a and b (ns), thread by
 * thread where both samples kept them: a thread only in b began during the job (all its
 * time is the job's), one whose counters went back is a new thread with a reused id, one
 * only in a ended during the job (its last part is lost: counted in *gone). Otherwise the
 * change of the sums.
 */
static void proc_change(const struct kvb_host_sample *a, const struct kvb_host_sample *b, double *run, double *wait,
			int *gone)
{
	*gone = 0;
	if (!a->nthreads || !b->nthreads) {
		*run = b->proc_run_ns - a->proc_run_ns;
		*wait = b->proc_wait_ns - a->proc_wait_ns;
		return;
	}
	*run = *wait = 0;
	for (int i = 0; i < b->nthreads; i++) {
		const struct kvb_host_thread *t = &b->threads[i], *was = NULL;
		for (int j = 0; j < a->nthreads && !was; j++)
			if (a->threads[j].tid == t->tid)
				was = &a->threads[j];
		if (was && t->run_ns >= was->run_ns && t->wait_ns >= was->wait_ns) {
			*run += t->run_ns - was->run_ns;
			*wait += t->wait_ns - was->wait_ns;
		} else {
			*run += t->run_ns;
			*wait += t->wait_ns;
		}
	}
	for (int j = 0; j < a->nthreads; j++) {
		int found = 0;
		for (int i = 0; i < b->nthreads && !found; i++)
			found = b->threads[i].tid == a->threads[j].tid;
		*gone += !found;
	}
}

int kvb_host_witness(const struct kvb_host_sample *a, const struct kvb_host_sample *b, const struct kvb_host_limits *lim,
		     const struct kvb_host_board *board, struct kvb_witnesses *w)
{
	const char *process = board->process;
	int virtual_clock = board->virtual_clock;
	double wall_us = (double)(b->t_ns - a->t_ns) / 1e3;
	char expected[48], obs[160];
	const char *vc = virtual_clock ? "; the guest's clock counts instructions: host load does not change its times" : "";
	size_t before = w->n;
	int disturbed = 0;
	snprintf(expected, sizeof(expected), "<= %.3g %%", lim->pct);
	if (a->have_psi && b->have_psi && wall_us > 0) {
		double pct = (b->psi_some_total_us - a->psi_some_total_us) / wall_us * 100;
		enum kvb_witness_verdict v;
		if (pct < 0)
			pct = 0;
		if (pct > 100)
			pct = 100; /* the two readings are not atomic with the clock */
		v = board->workload_on_host ? KVB_WIT_OK : judge(pct, lim, virtual_clock);
		snprintf(obs, sizeof(obs), "%.1f %%", pct);
		kvb_witness_add(w, "host", "cpu pressure", board->workload_on_host ? NULL : expected, obs, v,
				"some task waited for a CPU %.1f %% of the job's %.1f s (/proc/pressure/cpu some; avg10 %.2f at "
				"the end)%s",
				pct, wall_us / 1e6, b->psi_some_avg10,
				board->workload_on_host ? "; the job's own tasks are host tasks and count too: recorded, not judged"
							: vc);
	} else {
		kvb_witness_add(w, "host", "cpu pressure", expected, NULL, KVB_WIT_OK,
				"/proc/pressure/cpu unreadable (kernel without PSI, or psi=0): host pressure not measured");
	}
	if (a->have_stat && b->have_stat && b->ticks_total > a->ticks_total && b->ticks_steal < a->ticks_steal) {
		/* steal is a counter that only grows; one that went back (a kernel bug: node_exporter #742,
		 * steal jumping by -8e8 ticks a second) says nothing of the job: unsigned, it read as
		 * 100 % steal and a disturbed job */
		char a_s[32], b_s[32];
		snprintf(a_s, sizeof(a_s), "%" PRIu64 " ticks", a->ticks_steal);
		snprintf(b_s, sizeof(b_s), "%" PRIu64 " ticks", b->ticks_steal);
		kvb_witness_add(w, "host", "steal", a_s, b_s, KVB_WIT_OK,
				"/proc/stat steal went back during the job (%s -> %s): not a counter here (a kernel that "
				"reports steal wrongly), recorded, not judged", a_s, b_s);
	} else if (a->have_stat && b->have_stat && b->ticks_total > a->ticks_total) {
		uint64_t ticks = b->ticks_total - a->ticks_total, steal = b->ticks_steal - a->ticks_steal;
		double pct = (double)steal / (double)ticks * 100;
		snprintf(obs, sizeof(obs), "%.1f %%", pct);
		if ((double)ticks < steal_min_ticks(lim))
			kvb_witness_add(w, "host", "steal", NULL, obs, KVB_WIT_OK,
					"%" PRIu64 " of %" PRIu64 " ticks went to other guests of the hypervisor (/proc/stat): "
					"recorded, not judged: too few ticks, one is %.1f %% of the job (USER_HZ ticks, all CPUs)",
					steal, ticks, 100.0 / (double)ticks);
		else
			kvb_witness_add(w, "host", "steal", expected, obs, judge(pct, lim, virtual_clock),
					"%.1f %% of the host's CPU time went to other guests of its hypervisor during the job "
					"(/proc/stat, %" PRIu64 " ticks)%s",
					pct, ticks, vc);
	}
	if (b->have_load) {
		snprintf(obs, sizeof(obs), "%.2f on %ld CPUs", b->load1, b->ncpus);
		kvb_witness_add(w, "host", "load", NULL, obs, KVB_WIT_OK, NULL);
	}
	if (a->have_proc && b->have_proc && wall_us > 0) {
		double run, wait, share;
		int gone;
		char ended[64] = "";
		proc_change(a, b, &run, &wait, &gone);
		share = run + wait > 0 ? wait / (run + wait) * 100 : 0;
		if (share < 0)
			share = 0;
		if (gone)
			snprintf(ended, sizeof(ended), "; %d ended during the job, their last part not counted", gone);
		snprintf(obs, sizeof(obs), "waited %.1f %%", share);
		kvb_witness_add(w, "host", "board process", expected, obs, judge(share, lim, virtual_clock),
				"%s ran %.2f CPU s per s of the job and waited for a CPU %.1f %% of the time it could run "
				"(%d threads%s, schedstat)%s",
				process ? process : "the board process", run / (wall_us * 1e3), share, b->proc_threads, ended,
				vc);
	} else if (b->proc_threads > 0 && !b->have_proc && b->proc_run_ns == 0) {
		kvb_witness_add(w, "host", "board process", expected, NULL, KVB_WIT_OK,
				"%s's threads read 0 0 0 in schedstat (a kernel without sched_info accounting): its wait "
				"for a CPU not measured",
				process ? process : "the board process");
	}
	for (size_t i = before; i < w->n; i++)
		disturbed += w->v[i].verdict == KVB_WIT_DISTURBED;
	return disturbed;
}

void kvb_host_quiet_check(const char *proc_root, const struct kvb_host_limits *lim, int *busy, char **why)
{
	struct kvb_host_sample s;
	struct kvb_buf b = KVB_BUF_INIT;
	/* pressure and load only: nothing else is needed, and nothing else is read */
	memset(&s, 0, sizeof(s));
	s.ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	read_psi(proc_root, &s, &b);
	read_load(proc_root, &s, &b);
	kvb_buf_release(&b);
	/* without PSI, the load against the CPUs is all there is */
	*busy = s.have_psi ? s.psi_some_avg10 > lim->pct : s.have_load && s.load1 > (double)s.ncpus;
	if (s.have_psi && s.have_load)
		*why = kvb_xasprintf("CPU pressure %.1f %% (avg10), load %.2f on %ld CPUs", s.psi_some_avg10, s.load1, s.ncpus);
	else if (s.have_psi)
		*why = kvb_xasprintf("CPU pressure %.1f %% (avg10)", s.psi_some_avg10);
	else
		*why = kvb_xasprintf("CPU pressure unknown (/proc/pressure/cpu unreadable), load %.2f on %ld CPUs", s.load1,
				     s.ncpus);
}

/* The CPUs busy with anything but the board process between two samples (NAN: not readable). */
static double others_busy(const struct kvb_host_sample *a, const struct kvb_host_sample *b)
{
	double ticks, busy, wall_ns, board;
	if (!a->have_stat || !b->have_stat || !a->have_proc || !b->have_proc || b->ticks_total <= a->ticks_total ||
	    b->t_ns <= a->t_ns || b->ncpus < 1)
		return NAN;
	ticks = (double)(b->ticks_total - a->ticks_total);
	busy = (ticks - (double)(b->ticks_idle - a->ticks_idle)) / ticks * (double)b->ncpus;
	wall_ns = (double)(b->t_ns - a->t_ns);
	board = (b->proc_run_ns - a->proc_run_ns) / wall_ns;
	return fmax(0, busy - fmax(0, board));
}

/* One reading for the wait: PSI, and with a board process /proc/stat and its threads. */
static void quiet_sample(const char *root, pid_t pid, struct kvb_host_sample *s, struct kvb_buf *b)
{
	memset(s, 0, sizeof(*s));
	s->ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	read_psi(root, s, b);
	if (pid > 0) {
		read_stat(root, s, b);
		read_proc(root, pid, s, b);
	}
	s->t_ns = kvb_mono_ns();
}

int kvb_host_wait_quiet(const char *proc_root, const struct kvb_host_limits *lim, pid_t pid, int need_cpus,
			unsigned max_ms, int (*cancelled)(void), unsigned *waited_ms, double *others_cpus)
{
	struct kvb_host_sample a, b;
	struct kvb_buf buf = KVB_BUF_INIT;
	uint64_t t0 = kvb_mono_ns();
	int quiet = 0, by_cpus;
	if (others_cpus)
		*others_cpus = NAN;
	quiet_sample(proc_root, pid, &a, &buf);
	by_cpus = pid > 0 && need_cpus > 0 && a.have_stat && a.have_proc;
	if (!by_cpus && !a.have_psi)
		quiet = 1; /* neither: nothing to wait for */
	while (!quiet && kvb_mono_ns() - t0 < (uint64_t)max_ms * 1000000u) {
		for (int i = 0; i < 10; i++) {
			if (cancelled && cancelled())
				goto out;
			usleep(100 * 1000);
		}
		quiet_sample(proc_root, pid, &b, &buf);
		if (by_cpus) {
			double others = others_busy(&a, &b);
			if (others_cpus)
				*others_cpus = others;
			/* the board's need_cpus free, within the limit's share of them */
			quiet = !isnan(others) && others <= (double)b.ncpus - need_cpus + lim->pct / 100.0 * need_cpus;
		} else if (b.have_psi && b.psi_some_total_us >= a.psi_some_total_us) {
			double pct = (b.psi_some_total_us - a.psi_some_total_us) / ((double)(b.t_ns - a.t_ns) / 1000.0) * 100.0;
			quiet = pct <= lim->pct;
		}
		a = b;
	}
out:
	kvb_buf_release(&buf);
	if (waited_ms)
		*waited_ms = (unsigned)((kvb_mono_ns() - t0) / 1000000u);
	return quiet;
}
