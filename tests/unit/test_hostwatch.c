/* The host interference witness (issue 27): procfs read as the kernel writes it (real captures in
 * tests/fixtures/field/host), and the verdicts it gives a job. */
#include "engine/hostwatch.h"
#include "core/util.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char root[64];

/* A fresh fake procfs for one test (removed by done()). */
static void fresh(void)
{
	snprintf(root, sizeof(root), "/tmp/kvb-test-host-XXXXXX");
	if (!mkdtemp(root))
		abort();
}

static void done(void)
{
	char *cmd = kvb_xasprintf("rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", root);
	free(cmd);
}

static void put(const char *rel, const char *text)
{
	char *p = kvb_xasprintf("%s/%s", root, rel), *dir = kvb_xstrdup(p);
	FILE *f;
	*strrchr(dir, '/') = 0;
	kvb_mkdir_p(dir, 0755);
	f = fopen(p, "w");
	fputs(text, f);
	fclose(f);
	free(p);
	free(dir);
}

static void copy_fixture(const char *name, const char *rel)
{
	char *src = kvb_xasprintf("%s/tests/fixtures/field/host/proc/%s", getenv("KVB_SOURCE_DIR"), name);
	char *dst = kvb_xasprintf("%s/%s", root, rel), *dir = kvb_xstrdup(dst);
	*strrchr(dir, '/') = 0;
	kvb_mkdir_p(dir, 0755);
	CHECK(kvb_copy_file(src, dst) == 0);
	free(src);
	free(dst);
	free(dir);
}

static const struct kvb_witness *find(const struct kvb_witnesses *w, const char *subject)
{
	for (size_t i = 0; i < w->n; i++)
		if (!strcmp(w->v[i].subject, subject))
			return &w->v[i];
	return NULL;
}

/* The captured files of a loaded 2-CPU host (8 sessions building and booting QEMU; load 11.2). */
static void test_hostwatch__reads_real_procfs_files(void)
{
	struct kvb_host_sample s;
	fresh();
	copy_fixture("pressure-cpu", "pressure/cpu");
	copy_fixture("stat", "stat");
	copy_fixture("loadavg", "loadavg");
	copy_fixture("qemu-task-schedstat/1", "4242/task/4242/schedstat");
	copy_fixture("qemu-task-schedstat/2", "4242/task/4243/schedstat");
	copy_fixture("qemu-task-schedstat/3", "4242/task/4244/schedstat");
	kvb_host_sample_read(root, 4242, &s);
	CHECK(s.have_psi && s.psi_some_avg10 == 99.17 && s.psi_some_total_us == 978157161.0);
	/* cpu  120471 11346 92329 48135 573 0 547 0 0 0: user..steal, guest already in user */
	CHECK(s.have_stat && s.ticks_total == 120471ull + 11346 + 92329 + 48135 + 573 + 0 + 547 + 0 && s.ticks_steal == 0);
	CHECK(s.have_load && s.load1 == 11.20);
	/* QEMU -icount's three threads while booting on that host: 11.5 s on a CPU, 27.7 s waiting for one */
	CHECK(s.have_proc && s.proc_threads == 3);
	CHECK(s.proc_run_ns == 265438564.0 + 54367964 + 11166757621 && s.proc_wait_ns == 1060735582.0 + 384313267 + 26209278970);
	CHECK(s.nthreads == 3);
	for (int i = 0; i < s.nthreads; i++)
		CHECK(s.threads[i].tid >= 4242 && s.threads[i].tid <= 4244);
	kvb_host_sample_read(root, 999999, &s); /* no such process: the rest is still read */
	CHECK(s.have_psi && !s.have_proc);
	done();
}

static void test_hostwatch__disturbed_above_the_limit_and_said_why(void)
{
	struct kvb_host_sample a, b;
	struct kvb_host_limits lim = { 10 };
	struct kvb_host_board qemu = { "qemu", 0, 0 };
	struct kvb_witnesses w;
	const struct kvb_witness *x;
	memset(&a, 0, sizeof(a));
	a.t_ns = 1000000000ull;
	a.have_psi = a.have_stat = a.have_proc = 1;
	a.psi_some_total_us = 5e6;
	a.ticks_total = 10000;
	a.ticks_steal = 100;
	a.proc_run_ns = 1e9;
	a.proc_threads = 3;
	b = a;
	b.t_ns = a.t_ns + 10000000000ull;    /* a 10 s job */
	b.psi_some_total_us += 2e6;          /* 2 s of it with a task waiting: 20 % */
	b.ticks_total += 2000;
	b.ticks_steal += 100;                /* 5 % steal */
	b.proc_run_ns += 16e9;               /* 1.6 CPU s per s */
	b.proc_wait_ns += 4e9;               /* waited 4 of 20 s runnable: 20 % */
	b.have_load = 1;
	b.load1 = 3.5;
	b.ncpus = 2;
	kvb_witnesses_init(&w);
	CHECK(kvb_host_witness(&a, &b, &lim, &qemu, &w) == 2);
	x = find(&w, "cpu pressure");
	CHECK(x && x->verdict == KVB_WIT_DISTURBED && !strcmp(x->kind, "host"));
	CHECK(x && !strcmp(x->observed, "20.0 %") && !strcmp(x->expected, "<= 10 %"));
	x = find(&w, "steal");
	CHECK(x && x->verdict == KVB_WIT_OK && !strcmp(x->observed, "5.0 %"));
	x = find(&w, "board process");
	CHECK(x && x->verdict == KVB_WIT_DISTURBED && !strcmp(x->observed, "waited 20.0 %"));
	CHECK(x && strstr(x->detail, "qemu ran 1.60 CPU s per s") != NULL);
	x = find(&w, "load");
	CHECK(x && x->verdict == KVB_WIT_OK && !strcmp(x->observed, "3.50 on 2 CPUs") && !x->expected);
	kvb_witnesses_release(&w);

	/* node_exporter #742: steal that goes back (a kernel bug) is recorded, never 100 % steal */
	kvb_witnesses_init(&w);
	b.psi_some_total_us = a.psi_some_total_us;
	b.proc_wait_ns = a.proc_wait_ns;
	b.ticks_steal = a.ticks_steal - 50;
	CHECK(kvb_host_witness(&a, &b, &lim, &qemu, &w) == 0);
	x = find(&w, "steal");
	CHECK(x && x->verdict == KVB_WIT_OK && strstr(x->detail, "steal went back during the job (100 ticks -> 50 ticks)"));
	kvb_witnesses_release(&w);
	b.psi_some_total_us = a.psi_some_total_us + 2e6;
	b.proc_wait_ns = a.proc_wait_ns + 4e9;
	b.ticks_steal = a.ticks_steal + 100;

	/* a higher limit: nothing disturbed */
	lim.pct = 25;
	CHECK(kvb_host_witness(&a, &b, &lim, &qemu, &w) == 0);
	CHECK(!strcmp(find(&w, "cpu pressure")->expected, "<= 25 %"));
	kvb_witnesses_release(&w);

	/* guest time counts instructions: recorded, never disturbed, and says why */
	struct kvb_host_board icount = { "qemu", 1, 0 };
	lim.pct = 10;
	CHECK(kvb_host_witness(&a, &b, &lim, &icount, &w) == 0);
	CHECK(strstr(find(&w, "cpu pressure")->detail, "counts instructions") != NULL);
	kvb_witnesses_release(&w);

	/* the host is the board (local): the job's own tasks make pressure, so it is recorded, not judged */
	struct kvb_host_board local = { NULL, 0, 1 };
	a.have_proc = b.have_proc = 0;
	CHECK(kvb_host_witness(&a, &b, &lim, &local, &w) == 0);
	x = find(&w, "cpu pressure");
	CHECK(x && x->verdict == KVB_WIT_OK && !x->expected && strstr(x->detail, "not judged"));
	CHECK(!find(&w, "board process"));
	kvb_witnesses_release(&w);

	/* steal above the limit disturbs a local job */
	b.ticks_steal = a.ticks_steal + 1000; /* 50 % */
	CHECK(kvb_host_witness(&a, &b, &lim, &local, &w) == 1);
	CHECK(find(&w, "steal")->verdict == KVB_WIT_DISTURBED);
	kvb_witnesses_release(&w);

	/* a 12 ms job on 2 CPUs: 1 tick of steal in 4 is 25 %, but one tick is too coarse to judge
	 * at a 10 % limit (a cloud VM's hypervisor takes such ticks while idle) */
	b.ticks_total = a.ticks_total + 4;
	b.ticks_steal = a.ticks_steal + 1;
	CHECK(kvb_host_witness(&a, &b, &lim, &local, &w) == 0);
	x = find(&w, "steal");
	CHECK(x && x->verdict == KVB_WIT_OK && !x->expected && !strcmp(x->observed, "25.0 %"));
	CHECK(x && strstr(x->detail, "1 of 4 ticks") && strstr(x->detail, "not judged: too few ticks"));
	kvb_witnesses_release(&w);
	/* 40 ticks (one is 2.5 %, a quarter of the limit): judged */
	b.ticks_total = a.ticks_total + 40;
	b.ticks_steal = a.ticks_steal + 10;
	CHECK(kvb_host_witness(&a, &b, &lim, &local, &w) == 1);
	CHECK(find(&w, "steal")->verdict == KVB_WIT_DISTURBED);
	kvb_witnesses_release(&w);
}

static void set_thread(struct kvb_host_sample *s, int i, long tid, double run, double wait)
{
	s->threads[i] = (struct kvb_host_thread){ tid, run, wait };
	s->nthreads = s->proc_threads = i + 1 > s->nthreads ? i + 1 : s->nthreads;
	s->proc_run_ns = s->proc_wait_ns = 0;
	for (int j = 0; j < s->nthreads; j++) {
		s->proc_run_ns += s->threads[j].run_ns;
		s->proc_wait_ns += s->threads[j].wait_ns;
	}
}

/* A QEMU I/O worker thread that ends during a job takes its whole history out of the sums:
 * 4.5 s on a CPU gone made a 3.8 % wait read as 28.6 % (disturbed). Thread by thread, the
 * job's share is the threads' own changes (cadvisor #1872's review: sums over processes
 * "can not capture processes after they are gone"). */
static void test_hostwatch__a_thread_that_ends_does_not_move_the_share(void)
{
	struct kvb_host_sample a, b;
	struct kvb_host_limits lim = { 10 };
	struct kvb_host_board qemu = { "qemu", 0, 0 };
	struct kvb_witnesses w;
	const struct kvb_witness *x;
	memset(&a, 0, sizeof(a));
	a.have_proc = 1;
	a.t_ns = 1000000000ull;
	set_thread(&a, 0, 100, 4.5e9, 0); /* the worker: ends during the job */
	set_thread(&a, 1, 101, 1e9, 0);
	memset(&b, 0, sizeof(b));
	b.have_proc = 1;
	b.t_ns = a.t_ns + 10000000000ull; /* 10 s */
	set_thread(&b, 0, 101, 5e9, 0.1e9);  /* +4 s run, +0.1 s wait */
	set_thread(&b, 1, 102, 1e9, 0.1e9);  /* began during the job: all of it counts */
	kvb_witnesses_init(&w);
	CHECK(kvb_host_witness(&a, &b, &lim, &qemu, &w) == 0);
	x = find(&w, "board process");
	CHECK(x && x->verdict == KVB_WIT_OK && !strcmp(x->observed, "waited 3.8 %"));
	CHECK(x && strstr(x->detail, "qemu ran 0.50 CPU s per s") && strstr(x->detail, "1 ended during the job"));
	kvb_witnesses_release(&w);
	/* a reused thread id whose counters went back is a new thread */
	set_thread(&a, 0, 102, 9e9, 9e9);
	CHECK(kvb_host_witness(&a, &b, &lim, &qemu, &w) == 0);
	CHECK(!strcmp(find(&w, "board process")->observed, "waited 3.8 %"));
	kvb_witnesses_release(&w);
	/* without kept threads (more than KVB_HOST_THREADS_MAX), the sums */
	a.nthreads = b.nthreads = 0;
	a.proc_run_ns = 1e9;
	a.proc_wait_ns = 0;
	CHECK(kvb_host_witness(&a, &b, &lim, &qemu, &w) == 0);
	CHECK(!strcmp(find(&w, "board process")->observed, "waited 3.8 %"));
	kvb_witnesses_release(&w);
}

/* Every thread reading "0 0 0" is a kernel keeping no sched_info: not measured, not 0 % */
static void test_hostwatch__schedstat_zeros_are_not_measured(void)
{
	struct kvb_host_sample a, b;
	struct kvb_host_limits lim = { 10 };
	struct kvb_host_board qemu = { "qemu", 0, 0 };
	struct kvb_witnesses w;
	const struct kvb_witness *x;
	fresh();
	put("4242/task/4242/schedstat", "0 0 0\n");
	put("4242/task/4250/schedstat", "0 0 0\n");
	kvb_host_sample_read(root, 4242, &a);
	CHECK(!a.have_proc && a.proc_threads == 2);
	b = a;
	b.t_ns = a.t_ns + 1000000000ull;
	kvb_witnesses_init(&w);
	CHECK(kvb_host_witness(&a, &b, &lim, &qemu, &w) == 0);
	x = find(&w, "board process");
	CHECK(x && !x->observed && strstr(x->detail, "not measured"));
	kvb_witnesses_release(&w);
	done();
}

static void test_hostwatch__no_psi_is_said_not_guessed(void)
{
	struct kvb_host_sample a, b;
	struct kvb_host_limits lim = { 10 };
	struct kvb_host_board qemu = { "qemu", 0, 0 };
	struct kvb_witnesses w;
	memset(&a, 0, sizeof(a));
	b = a;
	b.t_ns = 1000000000ull;
	kvb_witnesses_init(&w);
	CHECK(kvb_host_witness(&a, &b, &lim, &qemu, &w) == 0);
	CHECK(w.n == 1 && !w.v[0].observed && strstr(w.v[0].detail, "not measured"));
	kvb_witnesses_release(&w);
}

static void test_hostwatch__quiet_check_reads_avg10(void)
{
	int busy;
	char *why = NULL;
	struct kvb_host_limits lim = { 10 };
	fresh();
	put("pressure/cpu", "some avg10=12.50 avg60=3.00 avg300=1.00 total=100\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
	put("loadavg", "1.50 1.00 0.50 2/100 1234\n");
	kvb_host_quiet_check(root, &lim, &busy, &why);
	CHECK(busy == 1);
	CHECK_CONTAINS(why, "CPU pressure 12.5 % (avg10), load 1.50 on");
	free(why);
	put("pressure/cpu", "some avg10=2.00 avg60=3.00 avg300=1.00 total=100\n");
	kvb_host_quiet_check(root, &lim, &busy, &why);
	CHECK(busy == 0);
	free(why);
	done();
}

/* The wait's 100 ms ticks drive the fake PSI: 1000 s of waiting a tick while busy (busy at any host
 * speed), then none: the first whole second after the burst is quiet. */
static int g_ticks, g_busy_ticks;

static int psi_tick(void)
{
	char text[160];
	g_ticks++;
	snprintf(text, sizeof(text), "some avg10=90.00 avg60=90.00 avg300=90.00 total=%lld\n",
		 (long long)(g_ticks <= g_busy_ticks ? g_ticks : g_busy_ticks) * 1000000000LL);
	put("pressure/cpu", text);
	return 0;
}

static void test_hostwatch__wait_quiet_waits_out_a_burst_and_gives_up_on_a_busy_host(void)
{
	struct kvb_host_limits lim = { 10 };
	unsigned waited = 0;
	fresh();
	put("pressure/cpu", "some avg10=90.00 avg60=90.00 avg300=90.00 total=0\n");
	/* a burst of 25 ticks: seconds 1-3 busy, the 4th quiet (avg10 still says 90 % then) */
	g_ticks = 0;
	g_busy_ticks = 25;
	CHECK(kvb_host_wait_quiet(root, &lim, 0, 0, 60000, psi_tick, &waited, NULL) == 1);
	CHECK(g_ticks == 40);
	CHECK(waited >= 4000);
	/* busy throughout: it gives up after max_ms, not before */
	g_ticks = 0;
	g_busy_ticks = 1000000;
	put("pressure/cpu", "some avg10=90.00 avg60=90.00 avg300=90.00 total=0\n");
	CHECK(kvb_host_wait_quiet(root, &lim, 0, 0, 2000, psi_tick, &waited, NULL) == 0);
	CHECK(waited >= 2000);
	/* it kept looking until then: more than one look (not "20 looks in 2 s": a loaded host
	 * oversleeps the 100 ms between looks, and a count of looks in wall time is a timing test) */
	CHECK(g_ticks >= 2);
	/* no PSI on this host: nothing to wait for */
	done();
	fresh();
	CHECK(kvb_host_wait_quiet(root, &lim, 0, 0, 60000, psi_tick, &waited, NULL) == 1);
	CHECK(waited < 1000);
	done();
}

/* /proc/stat driven by the wait's ticks: every CPU busy for g_busy_ticks ticks (a neighbour), then
 * idle; the board's process (pid 4242) idles between jobs: its schedstat does not move. */
static int stat_tick(void)
{
	static long long user, idle;
	char text[200];
	g_ticks++;
	if (g_ticks == 1)
		user = idle = 0;
	if (g_ticks <= g_busy_ticks)
		user += 20;
	else
		idle += 20;
	snprintf(text, sizeof(text), "cpu  %lld 0 0 %lld 0 0 0 0 0 0\ncpu0 0 0 0 0 0 0 0 0 0 0\n", user, idle);
	put("stat", text);
	return 0;
}

static void test_hostwatch__wait_quiet_counts_the_cpus_a_guest_needs_not_pressure(void)
{
	struct kvb_host_limits lim = { 10 };
	unsigned waited = 0;
	double others = 0;
	fresh();
	/* no pressure at all while the board idles: PSI alone would call the host quiet at once */
	put("pressure/cpu", "some avg10=0.00 avg60=0.00 avg300=0.00 total=5\n");
	put("stat", "cpu  0 0 0 0 0 0 0 0 0 0\n");
	put("4242/task/4242/schedstat", "1000000 0 1\n");
	g_ticks = 0;
	g_busy_ticks = 20; /* seconds 1-2 every CPU busy, the 3rd none */
	CHECK(kvb_host_wait_quiet(root, &lim, 4242, 1, 60000, stat_tick, &waited, &others) == 1);
	CHECK(g_ticks == 30);
	CHECK(others < 0.001);
	/* a neighbour on every CPU throughout: it gives up and says how many CPUs the others kept busy */
	g_ticks = 0;
	g_busy_ticks = 1000000;
	put("stat", "cpu  0 0 0 0 0 0 0 0 0 0\n");
	CHECK(kvb_host_wait_quiet(root, &lim, 4242, 1, 2000, stat_tick, &waited, &others) == 0);
	CHECK(others > 0.99 * (double)sysconf(_SC_NPROCESSORS_ONLN));
	/* without the board's process the pressure decides (quiet: its total does not move) */
	g_ticks = 0;
	CHECK(kvb_host_wait_quiet(root, &lim, 0, 1, 60000, stat_tick, &waited, &others) == 1);
	CHECK(g_ticks == 10);
	done();
}

#define TESTS                                                                                                          \
	T(test_hostwatch__reads_real_procfs_files)                                                                    \
	T(test_hostwatch__disturbed_above_the_limit_and_said_why)                                                     \
	T(test_hostwatch__a_thread_that_ends_does_not_move_the_share)                                               \
	T(test_hostwatch__schedstat_zeros_are_not_measured)                                                          \
	T(test_hostwatch__no_psi_is_said_not_guessed)                                                                 \
	T(test_hostwatch__quiet_check_reads_avg10)                                                                   \
	T(test_hostwatch__wait_quiet_waits_out_a_burst_and_gives_up_on_a_busy_host)                                 \
	T(test_hostwatch__wait_quiet_counts_the_cpus_a_guest_needs_not_pressure)
#include "test_main.h"
