/*
 * The host interference witness (docs/design.md#witnesses, docs/design.md#noise): for a board that runs on this host
 * (a QEMU process kvbench owns, or the host itself), what else the host was doing while a
 * job ran, read from procfs before and after the job:
 *
 *  - CPU pressure: /proc/pressure/cpu "some" (Documentation/accounting/psi.rst): `total` is
 *    the cumulative time in microseconds during which at least one runnable task waited for
 *    a CPU; its change over the job divided by the job's wall time is the share of the job
 *    the host was contended (an exact average, unlike avg10's exponential one, which is kept
 *    too, as read at the end);
 *  - steal: /proc/stat's aggregate "cpu" line (proc(5)), steal ticks over all ticks during
 *    the job: a hypervisor running someone else on our CPUs;
 *  - load: /proc/loadavg's 1-minute average at the end, against the online CPUs (recorded);
 *  - the board's host process (QEMU): /proc/PID/task/TID/schedstat of every thread
 *    (Documentation/scheduler/sched-stats.rst: time on a CPU and time waiting on a run queue,
 *    ns): its CPU time per wall second, and the share of its runnable time it spent waiting
 *    for a CPU rather than running.
 *
 * A job is `disturbed` when the CPU pressure, the steal or the board process's wait share is
 * above the limit (percent, kvb_host_limits; stated in every witness's `expected`). A board
 * whose guest clock counts instructions (a deterministic QEMU board) is not disturbed by the
 * host: its witnesses are stored with verdict ok and say so.
 */
#ifndef KVB_HOSTWATCH_H
#define KVB_HOSTWATCH_H

#include "core/witness.h"

#include <stdint.h>
#include <sys/types.h>

/* Default limit, percent of the job's time (CPU pressure, steal, board process's wait share). */
#define KVB_HOST_LIMIT_PCT 10.0

/* Threads of the board process kept one by one in a sample (QEMU has about ten). */
#define KVB_HOST_THREADS_MAX 128

/* One reading of the host. A field is valid when its have_* flag is set (a file may be missing). */
struct kvb_host_sample {
	uint64_t t_ns;              /* CLOCK_MONOTONIC */
	int have_psi;
	double psi_some_total_us;   /* /proc/pressure/cpu some total= (us) */
	double psi_some_avg10;      /* some avg10= (%) */
	int have_stat;
	uint64_t ticks_total, ticks_steal; /* /proc/stat "cpu": sum of user..steal, and steal (USER_HZ ticks) */
	uint64_t ticks_idle;        /* idle + iowait of the same line */
	int have_load;
	double load1;               /* /proc/loadavg first field */
	long ncpus;                 /* online CPUs of the host */
	int have_proc;              /* the board process's threads were read */
	double proc_run_ns, proc_wait_ns; /* summed over its threads: on a CPU, waiting on a run queue */
	int proc_threads;
	/* Each thread's own counters (the first KVB_HOST_THREADS_MAX of them; nthreads 0: none
	 * kept, the sums above are used). A job's share is the sum of its threads' changes: a
	 * thread that ended during the job (QEMU's I/O workers end after 10 s idle) takes its
	 * whole history out of the sums, which would make the change negative. */
	struct kvb_host_thread {
		long tid;
		double run_ns, wait_ns;
	} threads[KVB_HOST_THREADS_MAX];
	int nthreads;
};

/* Limits in percent (> 0); a job above any of them is disturbed. */
struct kvb_host_limits {
	double pct;
};

/*
 * Reads the host now. proc_root: "/proc", or a directory laid out as procfs (tests);
 * pid: the board's host process (0: none). Never fails: what cannot be read is left
 * unset (have_* 0).
 */
void kvb_host_sample_read(const char *proc_root, pid_t pid, struct kvb_host_sample *s);

/* How the board sits on the host (from the target, struct kvb_target_host). */
struct kvb_host_board {
	const char *process;   /* the board process's name ("qemu"), or NULL: none */
	int virtual_clock;     /* the guest's time counts instructions: every verdict ok, with that reason */
	int workload_on_host;  /* the job's own tasks are host tasks: CPU pressure recorded, not judged */
};

/*
 * Adds the host witnesses of a job that ran between a and b to w (kind "host"): subjects
 * "cpu pressure", "steal", "load" and, with a board process, "board process". Returns the
 * number of witnesses added with verdict disturbed.
 */
int kvb_host_witness(const struct kvb_host_sample *a, const struct kvb_host_sample *b, const struct kvb_host_limits *lim,
		     const struct kvb_host_board *board, struct kvb_witnesses *w);

/*
 * Is the host quiet enough to measure? Reads the CPU pressure avg10 now; *busy is set
 * when it is above lim->pct, and *why (owned, or NULL) describes the host either way:
 * "CPU pressure 99.2 % (avg10), load 13.7 on 2 CPUs".
 */
void kvb_host_quiet_check(const char *proc_root, const struct kvb_host_limits *lim, int *busy, char **why);

/* How long a job the host disturbed waits for a quiet second before it runs again (ms). */
#define KVB_HOST_QUIET_WAIT_MS 20000

/*
 * Waits, up to max_ms, for one quiet second of the host, read each second (so a burst's end is
 * seen within a second; avg10 would take ~10 s to fall):
 *  - with the board's host process (pid > 0) needing need_cpus CPUs (a QEMU guest's vCPUs):
 *    the CPUs the rest of the host kept busy over that second (/proc/stat's busy share of all
 *    CPUs, less the board process's own CPU time from its threads' schedstat) leave the board
 *    its need_cpus, within lim->pct of them. The board idles between jobs, so the host's CPU
 *    pressure then says nothing about the neighbour a 2-vCPU guest meets once it runs (a
 *    steady one-CPU neighbour gives no pressure on an idle 2-CPU host).
 *  - else (a workload on the host itself): the change of /proc/pressure/cpu's "some" total over
 *    the second (psi.rst) at or below lim->pct.
 * cancelled (may be NULL) is asked every 100 ms. Returns 1 when such a second came or the host
 * shows neither (nothing to wait for), 0 when max_ms passed or cancelled said stop.
 * *waited_ms (may be NULL): the time spent; *others_cpus (may be NULL): the rest of the host's
 * busy CPUs in the last second read (NAN when not read).
 */
int kvb_host_wait_quiet(const char *proc_root, const struct kvb_host_limits *lim, pid_t pid, int need_cpus,
			unsigned max_ms, int (*cancelled)(void), unsigned *waited_ms, double *others_cpus);

/* The proc root for host readings: $KVB_HOST_PROC (a test's fake procfs) or "/proc". Static. */
const char *kvb_host_proc_root(void);

#endif
