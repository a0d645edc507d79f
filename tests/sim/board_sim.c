/*
 * board_sim: the kernel side of a simulated board's procfs and sysfs (scripts/sim-board), kept in
 * a directory tree that the platform's `sysfs_root:` points at, in the kernel's own formats, and
 * following the load the board's commands put on it.
 *
 *   board_sim run --root DIR --board hikey960|juno --mark NAME=VALUE [--boot-file F] [--tick-ms N]
 *   board_sim boot --state DIR IMAGE      (the Juno's bootloader: the board now runs IMAGE)
 *
 * `run` rewrites, every tick (default 100 ms), whole files (a reader never sees half of one):
 *  - DIR/proc/stat: "cpu  user nice system idle iowait irq softirq steal guest guest_nice", then
 *    one "cpuN" line per CPU, in USER_HZ (10 ms) ticks since boot, then intr, ctxt, btime,
 *    processes, procs_running, procs_blocked (proc(5); Documentation/filesystems/proc.rst 1.7);
 *  - DIR/sys/devices/system/cpu/{online,possible,present} ("0-7"), and per cluster a policy
 *    directory cpufreq/policyN with scaling_cur_freq, cpuinfo_{min,max,cur}_freq,
 *    scaling_{min,max}_freq, scaling_available_frequencies, scaling_governor (schedutil),
 *    related_cpus, affected_cpus and stats/time_in_state ("FREQ_KHZ TIME" a line, TIME in 10 ms
 *    units: Documentation/cpu-freq/cpufreq-stats.rst; the units: LKML, Viresh Kumar, "cpufreq:
 *    stats: Switch to ms from jiffies", 2020) and stats/total_trans; cpuN/cpufreq is a symlink to
 *    ../cpufreq/policyN as on a real kernel;
 *  - juno only: DIR/sys/class/hwmon/hwmon0/{name,energyN_input,energyN_label}: scpi-hwmon's
 *    "scpi_sensors" with BOARD_ENERGY_SYS, _BIG, _LITTLE, _GPU (WA3 issue #150, a Juno r2's
 *    readings), cumulative, in microjoules (Documentation/hwmon/sysfs-interface "energy[1-*]_input").
 *
 * The load: every process whose environment holds the --mark entry (the variable adbd_sim or
 * the board's sshd gives every command) is the board's; each of their threads that is runnable
 * (state R) or used CPU time since the last tick is one busy task. The simulated scheduler puts
 * busy tasks on the big cluster first (rotating over its CPUs tick by tick, as migrations do),
 * then on the LITTLE one; a busy CPU's tick counts as user time, an idle CPU's as idle but for a
 * small fixed housekeeping share of system time (more on CPU 0). So util is ~0 when nothing
 * runs and high on big CPUs while a job runs, however loaded the host is: a runnable task waiting
 * for the host's CPU is still state R. Frequencies follow schedutil: per CPU a PELT-like average
 * (half-life 32 ms) of busy, per cluster the lowest OPP >= 1.25 x max util x max frequency
 * (kernel/sched/cpufreq_schedutil.c get_next_freq()). Juno energy: per cluster static power plus
 * per busy CPU the OPP's active power (the Juno r2 energy model's orders of magnitude).
 *
 * --boot-file F: when F's content changes (adbd_sim's boot_count, the Juno's boot_id), the board
 * rebooted: every counter starts again from zero, as a new kernel's do.
 *
 * `boot` reads IMAGE's "Linux version" banner (flash/kimage.h) and writes STATE/kernel/release,
 * version and cmdline (STATE/cmdline, the bootloader's, else a default) for the board's uname and
 * cat wrappers, and a new STATE/boot_id.
 *
 * SIGTERM/SIGINT end `run` with status 0.
 */
#include "core/buf.h"
#include "core/util.h"
#include "flash/kimage.h"
#include "sim_net.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_CPUS 8
#define MAX_OPPS 8
#define MAX_TASKS 512

struct cluster {
	const char *name;
	int first, n;                 /* CPUs first .. first + n - 1 */
	unsigned khz[MAX_OPPS];       /* OPPs, ascending */
	unsigned mw[MAX_OPPS];        /* active power of one busy CPU at that OPP */
	unsigned static_mw;
	const char *label;            /* hwmon label, or NULL */
};

struct board {
	const char *name;
	int ncpus, nclusters, big;    /* big: index of the cluster filled first */
	struct cluster c[2];
	unsigned sys_mw, gpu_mw;      /* juno: the other meters */
	int hwmon;
};

/* HiKey960 (Kirin 960): Cortex-A53 0-3, Cortex-A73 4-7, the OPPs of its mainline dts. */
static const struct board hikey960 = {
	"hikey960", 8, 2, 1,
	{ { "little", 0, 4, { 533000, 999000, 1402000, 1709000, 1844000 }, { 0 }, 0, NULL },
	  { "big", 4, 4, { 903000, 1421000, 1805000, 2112000, 2362000 }, { 0 }, 0, NULL } },
	0, 0, 0,
};

/* Juno r2: Cortex-A53 CPUs 0 and 3-5 (cpu_of() maps the split numbering), Cortex-A72 CPUs 1-2. */
static const struct board juno = {
	"juno", 6, 2, 1,
	{ { "little", 0, 4, { 450000, 800000, 950000 }, { 60, 130, 180 }, 40, "BOARD_ENERGY_LITTLE" },
	  { "big", 1, 2, { 600000, 1000000, 1200000 }, { 250, 520, 750 }, 90, "BOARD_ENERGY_BIG" } },
	1000, 60, 1,
};

struct cpu_state {
	double user, system, idle;    /* ms since boot */
	double util;                  /* PELT-like, 0..1 */
	int cluster;
};

static struct {
	const struct board *b;
	const char *root, *mark, *boot_file;
	unsigned tick_ms;
	struct cpu_state cpu[MAX_CPUS];
	double tis[2][MAX_OPPS];      /* ms at each OPP */
	int opp[2];
	unsigned long trans[2];
	double energy_uj[4];          /* sys, big, little, gpu */
	unsigned long long ctxt, processes;
	char *boot_seen;
	unsigned rot;
	int running;
	struct task { int tid; unsigned long long cpu; int seen; } task[MAX_TASKS];
	int ntask;
} s;

/* Juno's LITTLE cluster is CPUs 0 and 3-5: cluster-relative index -> CPU number. */
static int cpu_of(int cl, int k)
{
	if (s.b == &juno && cl == 0)
		return k == 0 ? 0 : k + 2;
	return s.b->c[cl].first + k;
}

static unsigned opp_count(const struct cluster *c)
{
	unsigned n = 0;
	while (n < MAX_OPPS && c->khz[n])
		n++;
	return n;
}

static void put(const char *rel, const char *text)
{
	char *p = kvb_xasprintf("%s/%s", s.root, rel), *slash = strrchr(p, '/');
	*slash = '\0';
	kvb_mkdir_p(p, 0755);
	*slash = '/';
	kvb_sim_write_file(p, text, strlen(text), 0644);
	free(p);
}

static void putf(const char *rel, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(const char *rel, const char *fmt, ...)
{
	va_list ap;
	char *t;
	va_start(ap, fmt);
	if (vasprintf(&t, fmt, ap) < 0)
		t = NULL;
	va_end(ap);
	if (t)
		put(rel, t);
	free(t);
}

/* The files that do not change while the board runs, and the cpuN/cpufreq symlinks. */
static void write_static(void)
{
	char range[16], rel[128];
	snprintf(range, sizeof(range), "0-%d\n", s.b->ncpus - 1);
	put("sys/devices/system/cpu/online", range);
	put("sys/devices/system/cpu/possible", range);
	put("sys/devices/system/cpu/present", range);
	for (int cl = 0; cl < s.b->nclusters; cl++) {
		const struct cluster *c = &s.b->c[cl];
		unsigned n = opp_count(c);
		int pol = cpu_of(cl, 0);
		struct kvb_buf cpus = KVB_BUF_INIT, freqs = KVB_BUF_INIT;
		for (int k = 0; k < c->n; k++)
			kvb_buf_addf(&cpus, "%s%d", k ? " " : "", cpu_of(cl, k));
		for (unsigned i = 0; i < n; i++)
			kvb_buf_addf(&freqs, "%u ", c->khz[i]);
#define POL(f) (snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpufreq/policy%d/%s", pol, f), rel)
		putf(POL("related_cpus"), "%s\n", cpus.data);
		putf(POL("affected_cpus"), "%s\n", cpus.data);
		putf(POL("scaling_available_frequencies"), "%s\n", freqs.data);
		putf(POL("cpuinfo_min_freq"), "%u\n", c->khz[0]);
		putf(POL("cpuinfo_max_freq"), "%u\n", c->khz[n - 1]);
		putf(POL("scaling_min_freq"), "%u\n", c->khz[0]);
		putf(POL("scaling_max_freq"), "%u\n", c->khz[n - 1]);
		put(POL("scaling_governor"), "schedutil\n");
		put(POL("scaling_driver"), "cpufreq-dt\n");
#undef POL
		for (int k = 0; k < c->n; k++) {
			char *dir = kvb_xasprintf("%s/sys/devices/system/cpu/cpu%d", s.root, cpu_of(cl, k));
			char *link = kvb_xasprintf("%s/cpufreq", dir), *to = kvb_xasprintf("../cpufreq/policy%d", pol);
			kvb_mkdir_p(dir, 0755);
			unlink(link);
			if (symlink(to, link))
				fprintf(stderr, "board_sim: cannot link %s: %s\n", link, strerror(errno));
			free(dir);
			free(link);
			free(to);
		}
		kvb_buf_release(&cpus);
		kvb_buf_release(&freqs);
	}
	if (s.b->hwmon) {
		static const char *const labels[] = { "BOARD_ENERGY_SYS", "BOARD_ENERGY_BIG", "BOARD_ENERGY_LITTLE",
						      "BOARD_ENERGY_GPU" };
		put("sys/class/hwmon/hwmon0/name", "scpi_sensors\n");
		for (int i = 0; i < 4; i++) {
			snprintf(rel, sizeof(rel), "sys/class/hwmon/hwmon0/energy%d_label", i + 1);
			putf(rel, "%s\n", labels[i]);
		}
	}
}

/* Writes the counters: /proc/stat, per policy scaling_cur_freq and stats, hwmon energy. */
static void write_counters(unsigned busy_tasks)
{
	struct kvb_buf b = KVB_BUF_INIT;
	char rel[128];
	double tot[3] = { 0, 0, 0 };
	for (int i = 0; i < s.b->ncpus; i++) {
		tot[0] += s.cpu[i].user;
		tot[1] += s.cpu[i].system;
		tot[2] += s.cpu[i].idle;
	}
	kvb_buf_addf(&b, "cpu  %llu 0 %llu %llu 0 0 0 0 0 0\n", (unsigned long long)(tot[0] / 10),
		     (unsigned long long)(tot[1] / 10), (unsigned long long)(tot[2] / 10));
	for (int i = 0; i < s.b->ncpus; i++)
		kvb_buf_addf(&b, "cpu%d %llu 0 %llu %llu 0 0 0 0 0 0\n", i, (unsigned long long)(s.cpu[i].user / 10),
			     (unsigned long long)(s.cpu[i].system / 10), (unsigned long long)(s.cpu[i].idle / 10));
	kvb_buf_addf(&b, "intr 0\nctxt %llu\nbtime %lld\nprocesses %llu\nprocs_running %u\nprocs_blocked 0\n"
			 "softirq 0 0 0 0 0 0 0 0 0 0 0\n",
		     s.ctxt, (long long)time(NULL), s.processes, busy_tasks + 1);
	put("proc/stat", b.data);
	kvb_buf_release(&b);
	for (int cl = 0; cl < s.b->nclusters; cl++) {
		const struct cluster *c = &s.b->c[cl];
		int pol = cpu_of(cl, 0);
		unsigned n = opp_count(c);
		kvb_buf_init(&b);
		for (unsigned i = 0; i < n; i++)
			kvb_buf_addf(&b, "%u %llu\n", c->khz[i], (unsigned long long)(s.tis[cl][i] / 10));
		snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpufreq/policy%d/stats/time_in_state", pol);
		put(rel, b.data);
		kvb_buf_release(&b);
		snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpufreq/policy%d/stats/total_trans", pol);
		putf(rel, "%lu\n", s.trans[cl]);
		snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpufreq/policy%d/scaling_cur_freq", pol);
		putf(rel, "%u\n", c->khz[s.opp[cl]]);
		snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpufreq/policy%d/cpuinfo_cur_freq", pol);
		putf(rel, "%u\n", c->khz[s.opp[cl]]);
	}
	if (s.b->hwmon)
		for (int i = 0; i < 4; i++) {
			snprintf(rel, sizeof(rel), "sys/class/hwmon/hwmon0/energy%d_input", i + 1);
			putf(rel, "%llu\n", (unsigned long long)s.energy_uj[i]);
		}
}

/* Whether /proc/PID/environ holds the mark entry. */
static int marked(const char *pid)
{
	char path[64], buf[65536];
	size_t want = strlen(s.mark), n;
	FILE *f;
	snprintf(path, sizeof(path), "/proc/%s/environ", pid);
	if (!(f = fopen(path, "r")))
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	for (size_t i = 0; i < n; i += strlen(buf + i) + 1)
		if (!strncmp(buf + i, s.mark, want) && buf[i + want] == '\0')
			return 1;
	return 0;
}

static struct task *task_slot(int tid)
{
	for (int i = 0; i < s.ntask; i++)
		if (s.task[i].tid == tid)
			return &s.task[i];
	if (s.ntask == MAX_TASKS)
		return NULL;
	s.task[s.ntask].tid = tid;
	s.task[s.ntask].cpu = ~0ull;
	return &s.task[s.ntask++];
}

/* One thread: busy when runnable or it used CPU time since the last look. */
static int thread_busy(const char *pid, const char *tid)
{
	char path[600], buf[1024], state;
	unsigned long long ut, st;
	const char *p;
	struct task *t;
	FILE *f;
	size_t n;
	snprintf(path, sizeof(path), "/proc/%s/task/%s/stat", pid, tid);
	if (!(f = fopen(path, "r")))
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* "tid (comm) S ppid ... utime(14) stime(15)": comm may hold spaces and parentheses */
	if (!(p = strrchr(buf, ')')) || sscanf(p + 2, "%c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &state,
					       &ut, &st) != 3)
		return 0;
	if (!(t = task_slot(atoi(tid))))
		return state == 'R';
	t->seen = 1;
	n = t->cpu != ~0ull && ut + st > t->cpu;
	if (t->cpu == ~0ull)
		s.processes++;
	t->cpu = ut + st;
	return state == 'R' || n;
}

/* The busy tasks of the board now. */
static unsigned count_busy(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	unsigned busy = 0;
	char self[16];
	snprintf(self, sizeof(self), "%d", (int)getpid());
	for (int i = 0; i < s.ntask; i++)
		s.task[i].seen = 0;
	while (d && (e = readdir(d))) {
		DIR *td;
		struct dirent *te;
		char tp[300];
		if (e->d_name[0] < '1' || e->d_name[0] > '9' || !strcmp(e->d_name, self) || !marked(e->d_name))
			continue;
		snprintf(tp, sizeof(tp), "/proc/%s/task", e->d_name);
		if (!(td = opendir(tp)))
			continue;
		while ((te = readdir(td)))
			if (te->d_name[0] >= '1' && te->d_name[0] <= '9')
				busy += (unsigned)thread_busy(e->d_name, te->d_name);
		closedir(td);
	}
	if (d)
		closedir(d);
	for (int i = 0; i < s.ntask;) /* forget the threads that exited */
		if (!s.task[i].seen)
			s.task[i] = s.task[--s.ntask];
		else
			i++;
	return busy;
}

/* dt ms with `busy` tasks: the simulated scheduler, schedutil and the meters. */
static void advance(double dt, unsigned busy)
{
	int on[MAX_CPUS] = { 0 }, order[MAX_CPUS], k = 0;
	double decay = pow(0.5, dt / 32.0);
	const struct cluster *big = &s.b->c[s.b->big];
	/* big cluster first, rotating, then the others in order */
	for (int j = 0; j < big->n; j++)
		order[k++] = cpu_of(s.b->big, (int)((j + s.rot) % (unsigned)big->n));
	for (int cl = 0; cl < s.b->nclusters; cl++)
		if (cl != s.b->big)
			for (int j = 0; j < s.b->c[cl].n; j++)
				order[k++] = cpu_of(cl, j);
	s.rot++;
	for (unsigned i = 0; i < busy && i < (unsigned)s.b->ncpus; i++)
		on[order[i]] = 1;
	s.ctxt += busy * 10 + 2;
	for (int i = 0; i < s.b->ncpus; i++) {
		struct cpu_state *c = &s.cpu[i];
		double house = i == 0 ? 0.02 : 0.005; /* timers, RCU, the shell that reads these files */
		if (on[i]) {
			c->user += dt * 0.97;
			c->system += dt * 0.03;
		} else {
			c->system += dt * house;
			c->idle += dt * (1 - house);
		}
		c->util = c->util * decay + (on[i] ? 1.0 : house) * (1 - decay);
	}
	for (int cl = 0; cl < s.b->nclusters; cl++) {
		const struct cluster *c = &s.b->c[cl];
		unsigned n = opp_count(c), want = n - 1;
		double u = 0;
		int nbusy = 0;
		for (int j = 0; j < c->n; j++) {
			int cpu = cpu_of(cl, j);
			u = s.cpu[cpu].util > u ? s.cpu[cpu].util : u;
			nbusy += on[cpu];
		}
		for (unsigned i = 0; i < n; i++)
			if (c->khz[i] >= 1.25 * u * c->khz[n - 1]) {
				want = i;
				break;
			}
		s.tis[cl][s.opp[cl]] += dt;
		if ((int)want != s.opp[cl]) {
			s.opp[cl] = (int)want;
			s.trans[cl]++;
		}
		if (s.b->hwmon) /* energy[1] big, [2] little: uJ = mW x ms */
			s.energy_uj[cl == s.b->big ? 1 : 2] += (c->static_mw + nbusy * c->mw[s.opp[cl]]) * dt;
	}
	if (s.b->hwmon) {
		s.energy_uj[0] += s.b->sys_mw * dt;
		s.energy_uj[3] += s.b->gpu_mw * dt;
	}
}

/* A new boot (the boot file changed): counters from zero. */
static void check_boot(void)
{
	struct kvb_buf b = KVB_BUF_INIT;
	if (!s.boot_file || kvb_buf_read_file(&b, s.boot_file)) {
		kvb_buf_release(&b);
		return;
	}
	if (s.boot_seen && strcmp(s.boot_seen, b.data)) {
		kvb_sim_log("the board rebooted: counters start again");
		memset(s.cpu, 0, sizeof(s.cpu));
		memset(s.tis, 0, sizeof(s.tis));
		memset(s.opp, 0, sizeof(s.opp));
		memset(s.trans, 0, sizeof(s.trans));
		memset(s.energy_uj, 0, sizeof(s.energy_uj));
		s.ctxt = s.processes = 0;
	}
	free(s.boot_seen);
	s.boot_seen = kvb_buf_detach(&b);
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmd_run(void)
{
	double last;
	write_static();
	check_boot();
	write_counters(0);
	kvb_sim_catch_signals();
	last = now_ms();
	while (!kvb_sim_stop) {
		struct timespec ts = { (time_t)(s.tick_ms / 1000), (long)(s.tick_ms % 1000) * 1000000L };
		double t;
		unsigned busy;
		nanosleep(&ts, NULL);
		check_boot();
		busy = count_busy();
		t = now_ms();
		/* a host so busy that this loop stalled: the stall counts at the load seen now */
		advance(t - last, busy);
		last = t;
		write_counters(busy);
	}
	return 0;
}

/* `boot`: the bootloader starts IMAGE. */
static int cmd_boot(const char *state, const char *image)
{
	struct kvb_kimage_id id;
	struct kvb_error err;
	struct kvb_buf cmd = KVB_BUF_INIT;
	char *p, *dir, uuid[64];
	FILE *f;
	if (kvb_kimage_identify(image, &id, &err)) {
		fprintf(stderr, "board_sim: %s does not boot: %s\n", image, err.msg);
		return 1;
	}
	dir = kvb_xasprintf("%s/kernel", state);
	kvb_mkdir_p(dir, 0755);
	p = kvb_xasprintf("%s/cmdline", state);
	if (kvb_buf_read_file(&cmd, p))
		kvb_buf_add(&cmd, "console=ttyAMA0,115200 root=/dev/sda1 rw\n", 41);
	free(p);
#define PUT(name, text)                                                         \
	do {                                                                    \
		char *f_ = kvb_xasprintf("%s/%s", dir, name), *t_ = kvb_xasprintf("%s\n", text); \
		kvb_sim_write_file(f_, t_, strlen(t_), 0644);                    \
		free(f_);                                                       \
		free(t_);                                                       \
	} while (0)
	PUT("release", id.release);
	PUT("version", id.version);
	while (cmd.len && cmd.data[cmd.len - 1] == '\n')
		cmd.data[--cmd.len] = '\0';
	PUT("cmdline", cmd.data);
#undef PUT
	/* a new boot_id: the kernel's random UUID for this boot */
	if ((f = fopen("/proc/sys/kernel/random/uuid", "r")) && fgets(uuid, sizeof(uuid), f)) {
		p = kvb_xasprintf("%s/boot_id", state);
		kvb_sim_write_file(p, uuid, strlen(uuid), 0644);
		free(p);
	}
	if (f)
		fclose(f);
	printf("board_sim: booted %s (%s)\n", id.release, id.version);
	kvb_kimage_id_release(&id);
	kvb_buf_release(&cmd);
	free(dir);
	return 0;
}

static int usage(void)
{
	fputs("usage: board_sim run --root DIR --board hikey960|juno --mark NAME=VALUE [--boot-file F] [--tick-ms N] "
	      "[-v]\n       board_sim boot --state DIR IMAGE\n",
	      stderr);
	return 2;
}

int main(int argc, char **argv)
{
	const char *state = NULL;
	kvb_sim_name = "board_sim";
	s.tick_ms = 100;
	if (argc < 2)
		return usage();
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "-v")) {
			kvb_sim_verbose = 1;
			continue;
		}
		if (!strcmp(argv[1], "boot") && i == argc - 1 && a[0] != '-')
			return state ? cmd_boot(state, a) : usage();
		if (!v)
			return usage();
		if (!strcmp(a, "--root"))
			s.root = v;
		else if (!strcmp(a, "--board"))
			s.b = !strcmp(v, "hikey960") ? &hikey960 : !strcmp(v, "juno") ? &juno : NULL;
		else if (!strcmp(a, "--mark"))
			s.mark = v;
		else if (!strcmp(a, "--boot-file"))
			s.boot_file = v;
		else if (!strcmp(a, "--tick-ms"))
			s.tick_ms = (unsigned)atoi(v) ? (unsigned)atoi(v) : 100;
		else if (!strcmp(a, "--state"))
			state = v;
		else
			return usage();
		i++;
	}
	if (strcmp(argv[1], "run") || !s.root || !s.b || !s.mark)
		return usage();
	return cmd_run();
}
