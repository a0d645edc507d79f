/*
 * cpufreq_sim: the cpufreq core's behaviour on a fake policy directory (a tmpfs tree), so a
 * knob written there reads back as a kernel would show it (linux-6.1 drivers/cpufreq/cpufreq.c,
 * include/linux/cpufreq.h, kernel/sched/cpufreq_schedutil.c, drivers/cpufreq/cpufreq_userspace.c):
 *  - limits: what user space writes to scaling_min_freq / scaling_max_freq is a frequency QoS
 *    request; the files show the policy's effective limits, clamped by
 *    cpufreq_verify_within_limits() to cpuinfo_min_freq..cpuinfo_max_freq with min <= max:
 *    2800000 written to scaling_max_freq of a policy whose cpuinfo_max_freq is 2362000 reads
 *    back 2362000;
 *  - governors: a new scaling_governor stops the old governor, whose tunables directory
 *    (POLICY/GOV/) goes away with what was tuned there, and starts the new one with a fresh
 *    directory of default tunables (--tunable GOV:NAME=DEFAULT; schedutil's rate_limit_us is
 *    the policy's transition delay, sugov_init());
 *  - scaling_setspeed: "<unsupported>" unless the governor is userspace (show_scaling_setspeed);
 *    userspace starts at the current frequency and holds the speed set (within the limits); a
 *    write that is not a number is refused (the kernel's store answers EINVAL) and the file
 *    keeps its value.
 *
 *   cpufreq_sim READY [--offline DIR]... [--tunable GOV:NAME=VALUE]... POLICY_DIR...
 *
 * Each policy's scaling_{min,max}_freq, scaling_governor and scaling_setspeed are watched with
 * fanotify permission events (FAN_OPEN_PERM, root): before any process opens one, the program
 * takes what changed since it last looked as what user space wrote, applies the rules above, and
 * only then lets the open go on. So `printf 2800000 > scaling_max_freq; cat scaling_max_freq`
 * prints the clamped value, every time, with no race: the reader's open waits for the kernel's
 * answer. Once the marks are in place, "ready" is written to READY (a FIFO the test reads: no
 * polling). Runs until killed.
 *
 * --offline DIR plays a policy whose CPUs are all offline: the kernel keeps its directory
 * but answers every read with EBUSY (drivers/cpufreq/cpufreq.c show() on an inactive
 * policy), so every open of a file in DIR fails with EBUSY ("cat: ...: Device or resource
 * busy"). That errno travels in the permission response (FAN_DENY_ERRNO, Linux 6.14); on an
 * older kernel "unsupported" is written to READY instead and the program exits 77.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

/* linux/fanotify.h of Linux 6.14: a deny response that carries the errno the opener gets */
#ifndef FAN_DENY_ERRNO
#define FAN_DENY_ERRNO(err) (FAN_DENY | ((((unsigned)(err)) & 0xffu) << 24))
#endif

enum { F_MIN, F_MAX, F_GOV, F_SPEED, NFILES };
static const char *const file_names[NFILES] = { "scaling_min_freq", "scaling_max_freq", "scaling_governor",
						 "scaling_setspeed" };

struct policy {
	const char *dir;
	int fd[NFILES];              /* opened before the marks (-1: absent): our own I/O raises no event */
	dev_t dev;
	ino_t ino[NFILES];
	long cpu_min, cpu_max;       /* cpuinfo_min_freq, cpuinfo_max_freq */
	long req_min, req_max;       /* the requests (what user space last wrote) */
	long eff_min, eff_max;       /* what the files show */
	char gov[64];                /* the running governor */
	char speed[64];              /* what scaling_setspeed shows */
};

static const char *tunables[64]; /* "GOV:NAME=VALUE" */
static size_t ntunables;

static void read_text(int fd, char *buf, size_t n)
{
	ssize_t got = pread(fd, buf, n - 1, 0);
	buf[got > 0 ? got : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

static long read_num(int fd, long def)
{
	char buf[64], *end;
	long v;
	read_text(fd, buf, sizeof(buf));
	v = strtol(buf, &end, 10);
	return end == buf ? def : v;
}

static long read_file_num(const char *dir, const char *name)
{
	char path[PATH_MAX];
	int fd;
	long v;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fd = open(path, O_RDONLY)) < 0) {
		fprintf(stderr, "cpufreq_sim: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	v = read_num(fd, -1);
	close(fd);
	return v;
}

static void show(int fd, const char *text)
{
	size_t n = strlen(text);
	if (fd < 0)
		return;
	if (ftruncate(fd, 0) || pwrite(fd, text, n, 0) != (ssize_t)n || pwrite(fd, "\n", 1, (off_t)n) != 1)
		fprintf(stderr, "cpufreq_sim: write: %s\n", strerror(errno));
}

static void show_num(int fd, long v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%ld", v);
	show(fd, buf);
}

/* The governor directory POLICY/GOV: removed with its tunables when GOV stops. */
static void gov_dir_remove(const struct policy *p, const char *gov)
{
	char dir[PATH_MAX], f[PATH_MAX + 256];
	DIR *d;
	struct dirent *e;
	snprintf(dir, sizeof(dir), "%s/%s", p->dir, gov);
	if (!(d = opendir(dir)))
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(f, sizeof(f), "%s/%s", dir, e->d_name);
			unlink(f);
		}
	closedir(d);
	rmdir(dir);
}

/* A started governor's tunables: a fresh POLICY/GOV with the defaults given for GOV (none: no directory). */
static void gov_dir_create(const struct policy *p, const char *gov)
{
	size_t gl = strlen(gov);
	for (size_t i = 0; i < ntunables; i++) {
		const char *t = tunables[i], *eq = strchr(t, '=');
		char path[PATH_MAX];
		FILE *f;
		if (strncmp(t, gov, gl) || t[gl] != ':' || !eq)
			continue;
		snprintf(path, sizeof(path), "%s/%s", p->dir, gov);
		mkdir(path, 0755);
		snprintf(path, sizeof(path), "%s/%s/%.*s", p->dir, gov, (int)(eq - t - gl - 1), t + gl + 1);
		if ((f = fopen(path, "w"))) {
			fprintf(f, "%s\n", eq + 1);
			fclose(f);
		}
	}
}

/* What changed since the last look is what user space wrote: the kernel's answer to it, shown in the files. */
static void apply(struct policy *p)
{
	long min, max, cur;
	char buf[64];
	if (p->fd[F_GOV] >= 0) {
		read_text(p->fd[F_GOV], buf, sizeof(buf));
		if (*buf && strcmp(buf, p->gov)) {
			gov_dir_remove(p, p->gov);
			snprintf(p->gov, sizeof(p->gov), "%s", buf);
			gov_dir_create(p, p->gov);
			/* userspace starts at the current frequency (here the upper limit) */
			if (!strcmp(p->gov, "userspace"))
				snprintf(p->speed, sizeof(p->speed), "%ld", p->eff_max);
			else
				snprintf(p->speed, sizeof(p->speed), "<unsupported>");
			show(p->fd[F_SPEED], p->speed);
		}
		show(p->fd[F_GOV], p->gov);
	}
	if (p->fd[F_SPEED] >= 0) {
		char *end;
		read_text(p->fd[F_SPEED], buf, sizeof(buf));
		if (strcmp(buf, p->speed)) {
			long v = strtol(buf, &end, 10);
			/* else refused: EINVAL, the value stays */
			if (!strcmp(p->gov, "userspace") && end != buf && !*end)
				snprintf(p->speed, sizeof(p->speed), "%ld", v < p->eff_min ? p->eff_min : v > p->eff_max ? p->eff_max : v);
		}
		show(p->fd[F_SPEED], p->speed);
	}
	if ((cur = read_num(p->fd[F_MIN], p->eff_min)) != p->eff_min)
		p->req_min = cur;
	if ((cur = read_num(p->fd[F_MAX], p->eff_max)) != p->eff_max)
		p->req_max = cur;
	/* cpufreq_verify_within_limits(policy, cpuinfo.min_freq, cpuinfo.max_freq) */
	min = p->req_min, max = p->req_max;
	if (min < p->cpu_min)
		min = p->cpu_min;
	if (max < p->cpu_min)
		max = p->cpu_min;
	if (min > p->cpu_max)
		min = p->cpu_max;
	if (max > p->cpu_max)
		max = p->cpu_max;
	if (min > max)
		min = max;
	p->eff_min = min, p->eff_max = max;
	show_num(p->fd[F_MIN], min);
	show_num(p->fd[F_MAX], max);
}

static void say(const char *path, const char *what)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "cpufreq_sim: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	fprintf(f, "%s\n", what);
	fclose(f);
}

/* FAN_DENY_ERRNO arrived in Linux 6.14. */
static int kernel_has_deny_errno(void)
{
	struct utsname u;
	int maj = 0, min = 0;
	if (uname(&u) || sscanf(u.release, "%d.%d", &maj, &min) != 2)
		return 0;
	return maj > 6 || (maj == 6 && min >= 14);
}

static void setup_policy(struct policy *p, const char *dir, int fan)
{
	char path[PATH_MAX];
	struct stat st;
	p->dir = dir;
	p->cpu_min = read_file_num(dir, "cpuinfo_min_freq");
	p->cpu_max = read_file_num(dir, "cpuinfo_max_freq");
	for (int f = 0; f < NFILES; f++) {
		snprintf(path, sizeof(path), "%s/%s", dir, file_names[f]);
		p->fd[f] = open(path, O_RDWR);
		if (p->fd[f] < 0 && f <= F_MAX) {
			fprintf(stderr, "cpufreq_sim: %s: %s\n", path, strerror(errno));
			exit(2);
		}
		if (p->fd[f] >= 0 && !fstat(p->fd[f], &st))
			p->dev = st.st_dev, p->ino[f] = st.st_ino;
	}
	p->eff_min = p->req_min = read_num(p->fd[F_MIN], p->cpu_min);
	p->eff_max = p->req_max = read_num(p->fd[F_MAX], p->cpu_max);
	if (p->fd[F_GOV] >= 0)
		read_text(p->fd[F_GOV], p->gov, sizeof(p->gov));
	if (p->fd[F_SPEED] >= 0)
		read_text(p->fd[F_SPEED], p->speed, sizeof(p->speed));
	for (int f = 0; f < NFILES; f++) {
		if (p->fd[f] < 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, file_names[f]);
		if (fanotify_mark(fan, FAN_MARK_ADD, FAN_OPEN_PERM, AT_FDCWD, path)) {
			fprintf(stderr, "cpufreq_sim: fanotify_mark %s: %s\n", path, strerror(errno));
			exit(77);
		}
	}
}

int main(int argc, char **argv)
{
	struct policy *ps;
	char *offline[64], **pol;
	const char *ready = argv[1];
	size_t noff = 0;
	int fan, np, first = 2;
	if (argc < 3) {
		fprintf(stderr, "usage: cpufreq_sim READY [--offline DIR]... [--tunable GOV:NAME=VALUE]... POLICY_DIR...\n");
		return 2;
	}
	for (; first + 1 < argc && !strncmp(argv[first], "--", 2); first += 2) {
		if (!strcmp(argv[first], "--offline") && noff < 64) {
			if (!(offline[noff++] = realpath(argv[first + 1], NULL))) {
				fprintf(stderr, "cpufreq_sim: %s: %s\n", argv[first + 1], strerror(errno));
				return 2;
			}
		} else if (!strcmp(argv[first], "--tunable") && ntunables < 64) {
			tunables[ntunables++] = argv[first + 1];
		} else {
			fprintf(stderr, "cpufreq_sim: unknown option %s\n", argv[first]);
			return 2;
		}
	}
	if (noff && !kernel_has_deny_errno()) {
		say(ready, "unsupported");
		return 77;
	}
	np = argc - first;
	pol = argv + first;
	ps = calloc((size_t)np + 1, sizeof(*ps));
	/* a pre-content group: the only class whose deny may carry an errno */
	fan = fanotify_init((noff ? FAN_CLASS_PRE_CONTENT : FAN_CLASS_CONTENT) | FAN_CLOEXEC, O_RDONLY);
	if (!ps || fan < 0) {
		fprintf(stderr, "cpufreq_sim: fanotify_init: %s\n", strerror(errno));
		say(ready, "unsupported");
		return 77;
	}
	for (size_t i = 0; i < noff; i++)
		if (fanotify_mark(fan, FAN_MARK_ADD, FAN_OPEN_PERM | FAN_EVENT_ON_CHILD, AT_FDCWD, offline[i])) {
			fprintf(stderr, "cpufreq_sim: fanotify_mark %s: %s\n", offline[i], strerror(errno));
			return 2;
		}
	for (int i = 0; i < np; i++)
		setup_policy(&ps[i], pol[i], fan);
	say(ready, "ready");
	for (;;) {
		char buf[4096] __attribute__((aligned(__alignof__(struct fanotify_event_metadata))));
		ssize_t len = read(fan, buf, sizeof(buf));
		if (len < 0) {
			if (errno == EINTR)
				continue;
			return 1;
		}
		for (struct fanotify_event_metadata *ev = (void *)buf; FAN_EVENT_OK(ev, len); ev = FAN_EVENT_NEXT(ev, len)) {
			struct fanotify_response resp = { .fd = ev->fd, .response = FAN_ALLOW };
			struct stat st;
			char link[64], path[PATH_MAX];
			ssize_t pl;
			snprintf(link, sizeof(link), "/proc/self/fd/%d", ev->fd);
			pl = ev->fd >= 0 ? readlink(link, path, sizeof(path) - 1) : -1;
			path[pl > 0 ? pl : 0] = '\0';
			for (size_t i = 0; i < noff; i++)
				if (!strncmp(path, offline[i], strlen(offline[i])) && path[strlen(offline[i])] == '/')
					resp.response = FAN_DENY_ERRNO(EBUSY);
			if (resp.response == FAN_ALLOW && ev->fd >= 0 && !fstat(ev->fd, &st))
				for (int i = 0; i < np; i++)
					for (int f = 0; f < NFILES; f++)
						if (ps[i].fd[f] >= 0 && st.st_dev == ps[i].dev && st.st_ino == ps[i].ino[f])
							apply(&ps[i]);
			if (write(fan, &resp, sizeof(resp)) != (ssize_t)sizeof(resp))
				fprintf(stderr, "cpufreq_sim: response: %s\n", strerror(errno));
			if (ev->fd >= 0)
				close(ev->fd);
		}
	}
}
