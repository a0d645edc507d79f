/* Implements finding the cgroup hierarchy with the cpu controller and reading a process's place in it. */
#include "engine/cgroup.h"
#include "core/buf.h"
#include "core/util.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kvb_cgroup_hier_release(struct kvb_cgroup_hier *h)
{
	if (!h)
		return;
	free(h->mount);
	free(h->controllers);
	memset(h, 0, sizeof(*h));
}

/* 1 when word is one of the comma-separated items of list[0..n). */
static int has_item(const char *list, size_t n, const char *word)
{
	size_t wl = strlen(word);
	const char *p = list, *end = list + n;
	while (p < end) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		size_t l = c ? (size_t)(c - p) : (size_t)(end - p);
		if (l == wl && !memcmp(p, word, wl))
			return 1;
		p += l + 1;
	}
	return 0;
}

/* /proc/mounts field unescaping: \NNN octal (proc(5), the kernel's mangle of " \t\n\\"). */
static char *unescape(const char *s, size_t n)
{
	char *o = kvb_xmalloc(n + 1), *q = o;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 3 < n && s[i + 1] >= '0' && s[i + 1] <= '3' && s[i + 2] >= '0' && s[i + 2] <= '7' &&
		    s[i + 3] >= '0' && s[i + 3] <= '7') {
			*q++ = (char)((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
			i += 3;
		} else {
			*q++ = s[i];
		}
	}
	*q = '\0';
	return o;
}

/* Splits one line into up to 4 whitespace-separated fields; returns how many. */
static int fields(const char *line, size_t n, const char *f[4], size_t fl[4])
{
	int k = 0;
	size_t i = 0;
	while (k < 4) {
		while (i < n && (line[i] == ' ' || line[i] == '\t'))
			i++;
		if (i >= n)
			break;
		f[k] = line + i;
		while (i < n && line[i] != ' ' && line[i] != '\t')
			i++;
		fl[k] = (size_t)(line + i - f[k]);
		k++;
	}
	return k;
}

int kvb_cgroup_pick(const char *mounts, int (*v2_has_cpu)(void *arg, const char *mount), void *arg,
		    struct kvb_cgroup_hier *h, struct kvb_error *err)
{
	struct kvb_buf seen = KVB_BUF_INIT;
	char *v1 = NULL, *v1ctl = NULL;
	memset(h, 0, sizeof(*h));
	for (const char *p = mounts ? mounts : ""; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		const char *f[4];
		size_t fl[4];
		if (fields(p, n, f, fl) == 4) {
			int is2 = fl[2] == 7 && !memcmp(f[2], "cgroup2", 7);
			int is1 = fl[2] == 6 && !memcmp(f[2], "cgroup", 6);
			if (is1 || is2) {
				char *mnt = unescape(f[1], fl[1]);
				kvb_buf_addf(&seen, "%s%s (%s%s%.*s)", seen.len ? ", " : "", mnt, is2 ? "cgroup2" : "cgroup v1",
					     is2 ? "" : ": ", is2 ? 0 : (int)fl[3], f[3]);
				if (is2 && v2_has_cpu && v2_has_cpu(arg, mnt)) {
					h->v2 = 1;
					h->mount = mnt;
					free(v1);
					free(v1ctl);
					kvb_buf_release(&seen);
					return KVB_OK;
				}
				if (is1 && !v1 && has_item(f[3], fl[3], "cpu")) {
					/* the controllers are the options that are not mount flags */
					static const char *const flags[] = { "rw", "ro", "nosuid", "nodev", "noexec", "relatime",
									     "noatime", "seclabel", "noprefix", "clone_children",
									     "cpuset_v2_mode", "xattr", NULL };
					struct kvb_buf c = KVB_BUF_INIT;
					const char *q = f[3], *end = f[3] + fl[3];
					while (q < end) {
						const char *cm = memchr(q, ',', (size_t)(end - q));
						size_t l = cm ? (size_t)(cm - q) : (size_t)(end - q);
						int flag = memchr(q, '=', l) != NULL;
						for (int i = 0; flags[i] && !flag; i++)
							flag = strlen(flags[i]) == l && !memcmp(q, flags[i], l);
						if (!flag)
							kvb_buf_addf(&c, "%s%.*s", c.len ? "," : "", (int)l, q);
						q += l + 1;
					}
					v1 = mnt;
					mnt = NULL;
					v1ctl = kvb_buf_detach(&c);
				}
				free(mnt);
			}
		}
		p += n + (nl ? 1 : 0);
	}
	if (v1) {
		h->mount = v1;
		h->controllers = v1ctl;
		kvb_buf_release(&seen);
		return KVB_OK;
	}
	kvb_error_set(err, KVB_ETARGET,
		      "cgroup_depth: no cgroup hierarchy with the cpu controller (no cgroup2 mount lists cpu in "
		      "cgroup.controllers, no v1 mount has the cpu option); cgroup mounts: %s",
		      seen.len ? seen.data : "none");
	kvb_buf_release(&seen);
	free(v1ctl);
	return KVB_ETARGET;
}

char *kvb_cgroup_proc_path(const char *proc_cgroup, const struct kvb_cgroup_hier *h)
{
	for (const char *p = proc_cgroup ? proc_cgroup : ""; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		const char *c1 = memchr(p, ':', n), *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(p + n - c1 - 1)) : NULL;
		if (c2) {
			size_t id_len = (size_t)(c1 - p), ctl_len = (size_t)(c2 - c1 - 1);
			int match = h->v2 ? (id_len == 1 && p[0] == '0' && ctl_len == 0)
					  : (ctl_len && has_item(c1 + 1, ctl_len, "cpu"));
			if (match) {
				size_t l = (size_t)(p + n - c2 - 1);
				while (l && (c2[l] == '\r' || c2[l] == ' '))
					l--;
				return kvb_xstrndup(c2 + 1, l);
			}
		}
		p += n + (nl ? 1 : 0);
	}
	return NULL;
}

struct probe_arg {
	struct kvb_target *t;
	const char *root; /* the platform's sysfs_root */
};

static int target_v2_has_cpu(void *arg, const char *mount)
{
	struct probe_arg *pa = arg;
	struct kvb_error ignore;
	char *path = kvb_xasprintf("%s%s/cgroup.controllers", pa->root, mount), *txt = NULL;
	int yes = 0;
	if (!kvb_target_read(pa->t, path, &txt, &ignore) && txt) {
		/* space-separated words */
		for (char *s = txt, *save = NULL, *w; !yes && (w = strtok_r(s, " \t\r\n", &save)); s = NULL)
			yes = !strcmp(w, "cpu");
	}
	free(txt);
	free(path);
	return yes;
}

int kvb_cgroup_find(struct kvb_target *t, struct kvb_cgroup_hier *h, struct kvb_error *err)
{
	/* under the platform's sysfs_root, as every reader of the board's /proc and /sys: the mount
	 * table, the cgroup2 roots' controllers, and the hierarchy kvbench then makes its groups in */
	struct probe_arg pa = { t, kvb_target_sysfs_root(t) };
	char *mounts = NULL;
	int rc = kvb_target_read_rooted(t, pa.root, "/proc/mounts", &mounts, err);
	if (rc) {
		memset(h, 0, sizeof(*h));
		return kvb_error_prefix(err, "cgroup_depth: reading %s/proc/mounts", pa.root);
	}
	rc = kvb_cgroup_pick(mounts, target_v2_has_cpu, &pa, h, err);
	free(mounts);
	if (!rc && *pa.root) {
		char *m = kvb_xasprintf("%s%s", pa.root, h->mount);
		free(h->mount);
		h->mount = m;
	}
	return rc;
}

static uint64_t rt_ratio(long long period_us, long long runtime_us)
{
	if (runtime_us < 0)
		return (uint64_t)1 << 20;
	if (period_us <= 0)
		return 0;
	return ((uint64_t)runtime_us << 20) / (uint64_t)period_us;
}

int kvb_cgroup_rt_budget(struct kvb_target *t, const char *parent, const char *child, struct kvb_rt_budget *b,
			 struct kvb_error *err)
{
	/* prints: parent's runtime and period, child's period, then "RUNTIME PERIOD" per other group */
	const char *argv[] = { "sh", "-c",
			       "[ -r \"$1/cpu.rt_runtime_us\" ] || { echo none; exit 0; }; "
			       "c=${2:-$1}; cat \"$1/cpu.rt_runtime_us\" \"$1/cpu.rt_period_us\" \"$c/cpu.rt_period_us\" || exit 1; "
			       "for d in \"$1\"/*/; do [ \"${d%/}\" = \"$2\" ] && continue; [ -r \"$d/cpu.rt_runtime_us\" ] || continue; "
			       "echo \"$(cat \"$d/cpu.rt_runtime_us\") $(cat \"$d/cpu.rt_period_us\")\"; done",
			       "kvb-rt", parent, child ? child : "", NULL };
	struct kvb_exec_result r;
	const char *p;
	char *end;
	int rc, n = 0;
	memset(b, 0, sizeof(*b));
	kvb_exec_result_init(&r);
	rc = kvb_target_run_ok(t, argv, 30000, &r, err);
	if (rc || !strncmp(r.out.data, "none", 4)) {
		kvb_exec_result_release(&r);
		return rc ? kvb_error_prefix(err, "cgroup_depth: reading the RT budgets under %s", parent) : KVB_OK;
	}
	p = r.out.data;
	b->runtime_us = strtoll(p, &end, 10);
	n += end != p;
	b->period_us = strtoll(p = end, &end, 10);
	n += end != p;
	b->child_period_us = strtoll(p = end, &end, 10);
	n += end != p;
	b->same_period = b->child_period_us == b->period_us;
	for (p = end;;) {
		long long srt = strtoll(p, &end, 10), sper;
		if (end == p)
			break;
		sper = strtoll(p = end, &end, 10);
		if (end == p)
			break;
		b->used += rt_ratio(sper, srt);
		b->used_us += srt < 0 ? sper : srt;
		b->same_period &= sper == b->period_us;
		b->others++;
		p = end;
	}
	kvb_exec_result_release(&r);
	if (n != 3 || b->period_us <= 0 || b->child_period_us <= 0)
		return kvb_error_set(err, KVB_ETARGET, "cgroup_depth: cannot read the RT budget of %s", parent);
	b->has = 1;
	b->total = rt_ratio(b->period_us, b->runtime_us);
	snprintf(b->why, sizeof(b->why), "%s/cpu.rt_runtime_us is %lld of %lld us and its %zu other group(s) hold %lld us of it",
		 parent, b->runtime_us, b->period_us, b->others,
		 b->same_period ? b->used_us : (long long)((b->used * (uint64_t)b->period_us) >> 20));
	return KVB_OK;
}

long long kvb_rt_budget_free_us(const struct kvb_rt_budget *b)
{
	if (!b->has || b->total <= b->used)
		return 0;
	if (b->same_period)
		return (b->runtime_us < 0 ? b->period_us : b->runtime_us) - b->used_us;
	return (long long)(((b->total - b->used) * (uint64_t)b->child_period_us) >> 20);
}
