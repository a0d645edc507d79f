/* Implements the thermal witness: zones, cooling devices and cpufreq caps before and after a job. */
#include "engine/thermal.h"
#include "config/keys.h"
#include "engine/readback.h"
#include "core/buf.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

/* One command; the root travels as $1, never inside the script. Unreadable files print nothing. */
static const char script[] =
	"r=$1; "
	"for z in \"$r\"/sys/class/thermal/thermal_zone*; do [ -d \"$z\" ] || continue; "
	"printf 'Z|%s|%s|%s\\n' \"${z##*/}\" \"$(cat \"$z/type\" 2>/dev/null)\" \"$(cat \"$z/temp\" 2>/dev/null)\"; done; "
	"for c in \"$r\"/sys/class/thermal/cooling_device*; do [ -d \"$c\" ] || continue; "
	"printf 'C|%s|%s|%s|%s\\n' \"${c##*/}\" \"$(cat \"$c/type\" 2>/dev/null)\" \"$(cat \"$c/cur_state\" 2>/dev/null)\" "
	"\"$(cat \"$c/max_state\" 2>/dev/null)\"; done; "
	"for p in \"$r\"/sys/devices/system/cpu/cpufreq/policy*; do [ -d \"$p\" ] || continue; "
	"printf 'P|%s|%s|%s\\n' \"${p##*/}\" \"$(cat \"$p/scaling_max_freq\" 2>/dev/null)\" "
	"\"$(cat \"$p/cpuinfo_max_freq\" 2>/dev/null)\"; done; "
	"[ -r \"$r/sys/devices/system/cpu/online\" ] && printf 'O|%s\\n' \"$(cat \"$r/sys/devices/system/cpu/online\")\"; true";

void kvb_thermal_limits_from(const cJSON *conf, const char *sysfs_root, struct kvb_thermal_limits *l)
{
	l->max_temp_mc = conf ? kvb_get_int(conf, "max_temp_mc", 0) : 0;
	l->refuse_capped = conf ? kvb_get_bool(conf, "refuse_capped", 0) : 0;
	l->root = sysfs_root ? sysfs_root : "";
}

static int number(const char *s, long long *v)
{
	char *end;
	if (!s || !*s)
		return 0;
	*v = strtoll(s, &end, 10);
	return end != s && (*end == '\0' || *end == '\r');
}

static void push(struct kvb_thermal_item **v, size_t *n, const char *name, const char *type, const char *a,
		 const char *b, int need_b)
{
	struct kvb_thermal_item *it;
	*v = kvb_xrealloc(*v, (*n + 1) * sizeof(**v));
	it = &(*v)[(*n)++];
	memset(it, 0, sizeof(*it));
	it->name = kvb_xstrdup(name);
	it->type = type ? kvb_xstrdup(type) : NULL;
	it->ok = number(a, &it->a) && (!need_b || number(b, &it->b));
}

void kvb_thermal_parse(const char *text, struct kvb_thermal *s)
{
	memset(s, 0, sizeof(*s));
	for (const char *p = text ? text : ""; *p;) {
		size_t n = strcspn(p, "\n");
		char *line = kvb_xstrndup(p, n), *f[5] = { 0 };
		int k = 0;
		for (char *q = line, *tok; k < 5 && (tok = strsep(&q, "|")); k++)
			f[k] = tok;
		if (k == 4 && !strcmp(f[0], "Z"))
			push(&s->zones, &s->nzones, f[1], f[2], f[3], NULL, 0);
		else if (k == 5 && !strcmp(f[0], "C"))
			push(&s->cooling, &s->ncooling, f[1], f[2], f[3], f[4], 1);
		else if (k == 4 && !strcmp(f[0], "P"))
			push(&s->policies, &s->npolicies, f[1], NULL, f[2], f[3], 1);
		else if (k == 2 && !strcmp(f[0], "O") && !s->online)
			s->online = kvb_xstrdup(f[1]);
		free(line);
		p += n + (p[n] ? 1 : 0);
	}
}

int kvb_thermal_read(struct kvb_target *t, const char *root, struct kvb_thermal *s, struct kvb_error *err)
{
	const char *argv[] = { "sh", "-c", script, "kvb-thermal", root ? root : "", NULL };
	struct kvb_exec_result r;
	int rc;
	memset(s, 0, sizeof(*s));
	kvb_exec_result_init(&r);
	rc = kvb_target_run_ok(t, argv, 30000, &r, err);
	if (!rc)
		kvb_thermal_parse(r.out.data, s);
	kvb_exec_result_release(&r);
	return rc ? kvb_error_prefix(err, "thermal witness") : KVB_OK;
}

static const struct kvb_thermal_item *find(const struct kvb_thermal_item *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

static void refuse(struct kvb_buf *why, const char *fmt, const char *detail)
{
	kvb_buf_addf(why, fmt, why->len ? "; " : "", detail);
}

int kvb_thermal_judge(const struct kvb_thermal *before, const struct kvb_thermal *after,
		      const struct kvb_thermal_limits *l, struct kvb_witnesses *w, struct kvb_error *err)
{
	struct kvb_buf why = KVB_BUF_INIT;
	char a[32], b[32];
	int rc = KVB_OK;
	for (size_t i = 0; i < before->nzones; i++) {
		const struct kvb_thermal_item *z0 = &before->zones[i], *z1 = find(after->zones, after->nzones, z0->name);
		const char *subject = z0->type && *z0->type ? z0->type : z0->name;
		int hot;
		char *d;
		if (!z0->ok || !z1 || !z1->ok)
			continue; /* a sensor without data (ENODATA) says nothing */
		hot = l->max_temp_mc > 0 && (z0->a > l->max_temp_mc || z1->a > l->max_temp_mc);
		snprintf(a, sizeof(a), "%lld", z0->a);
		snprintf(b, sizeof(b), "%lld", z1->a);
		if (hot)
			d = kvb_xasprintf("%s: %lld mC before the job, %lld mC after: above thermal.max_temp_mc %lld", z0->name,
					  z0->a, z1->a, l->max_temp_mc);
		else
			d = kvb_xasprintf("%s: %lld mC before the job, %lld mC after", z0->name, z0->a, z1->a);
		kvb_witness_add(w, "thermal", subject, a, b, hot ? KVB_WIT_FAILED : KVB_WIT_OK, "%s", d);
		if (hot)
			refuse(&why, "%s%s", d);
		free(d);
	}
	for (size_t i = 0; i < before->ncooling; i++) {
		const struct kvb_thermal_item *c0 = &before->cooling[i], *c1 = find(after->cooling, after->ncooling, c0->name);
		const char *subject = c0->type && *c0->type ? c0->type : c0->name;
		int changed, active, bad;
		char *d;
		if (!c0->ok || !c1 || !c1->ok)
			continue;
		changed = c0->a != c1->a;
		active = c0->a > 0 || c1->a > 0;
		if (!changed && !active)
			continue; /* an idle cooling device is the normal case: no row per job for each */
		bad = l->refuse_capped && active;
		snprintf(a, sizeof(a), "%lld", c0->a);
		snprintf(b, sizeof(b), "%lld", c1->a);
		d = kvb_xasprintf("%s (%s): cur_state %lld before the job, %lld after, of max_state %lld: %s", c0->name,
				  subject, c0->a, c1->a, c1->b,
				  !changed ? "cooling throughout the job"
				  : c1->a > c0->a ? "capping began or grew during the job"
						  : "capping eased during the job");
		kvb_witness_add(w, "thermal", subject, a, b, bad ? KVB_WIT_FAILED : changed ? KVB_WIT_CHANGED : KVB_WIT_OK,
				"%s%s", d, bad ? " (thermal.refuse_capped)" : "");
		if (bad)
			refuse(&why, "%s%s", d);
		free(d);
	}
	for (size_t i = 0; i < before->npolicies; i++) {
		const struct kvb_thermal_item *p0 = &before->policies[i], *p1 = find(after->policies, after->npolicies, p0->name);
		int changed, capped, bad;
		char *d, *subject;
		if (!p0->ok || !p1 || !p1->ok)
			continue; /* an offline policy answers EBUSY */
		changed = p0->a != p1->a;
		capped = p1->a < p1->b;
		if (!changed && !capped)
			continue;
		bad = l->refuse_capped && p1->a < p0->a;
		subject = kvb_xasprintf("%s scaling_max_freq", p0->name);
		snprintf(a, sizeof(a), "%lld", p0->a);
		snprintf(b, sizeof(b), "%lld", p1->a);
		d = kvb_xasprintf("%s: scaling_max_freq %lld kHz before the job, %lld after (cpuinfo_max_freq %lld): %s",
				  p0->name, p0->a, p1->a, p1->b,
				  !changed ? "below cpuinfo_max_freq throughout (a knob or a thermal cap)"
				  : p1->a < p0->a ? "capping began during the job"
						  : "a cap was lifted during the job");
		kvb_witness_add(w, "thermal", subject, a, b, bad ? KVB_WIT_FAILED : changed ? KVB_WIT_CHANGED : KVB_WIT_OK,
				"%s%s", d, bad ? " (thermal.refuse_capped)" : "");
		if (bad)
			refuse(&why, "%s%s", d);
		free(d);
		free(subject);
	}
	/* CPUs hotplugged while the numbers were taken (a hotplug daemon, thermal): not the board the job was set up on */
	if (before->online && after->online && !kvb_knob_agrees(before->online, after->online))
		kvb_witness_add(w, "hotplug", "cpu online", before->online, after->online, KVB_WIT_CHANGED,
				"CPUs online changed during the job: %s before, %s after (/sys/devices/system/cpu/online)",
				before->online, after->online);
	if (why.len)
		rc = kvb_error_set(err, KVB_ETARGET, "thermal: %s", why.data);
	kvb_buf_release(&why);
	return rc;
}

static void release_items(struct kvb_thermal_item *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].type);
	}
	free(v);
}

void kvb_thermal_release(struct kvb_thermal *s)
{
	release_items(s->zones, s->nzones);
	release_items(s->cooling, s->ncooling);
	release_items(s->policies, s->npolicies);
	free(s->online);
	memset(s, 0, sizeof(*s));
}
