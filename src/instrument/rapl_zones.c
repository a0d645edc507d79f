/* Implements the rapl meter's zones (rapl.h): parsing a powercap listing, channel selection, the sums that would count twice, the wrap arithmetic. */
#include "instrument/rapl.h"
#include "core/buf.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

void kvb_rapl_zones_release(struct kvb_rapl_zones *z)
{
	for (size_t i = 0; z && i < z->n; i++) {
		free(z->v[i].dir);
		free(z->v[i].name);
		free(z->v[i].chan);
		free(z->v[i].unreadable);
	}
	if (z) {
		free(z->v);
		memset(z, 0, sizeof(*z));
	}
}

int64_t kvb_rapl_zone_find(const struct kvb_rapl_zones *z, const char *dir)
{
	for (size_t i = 0; i < z->n; i++)
		if (!strcmp(z->v[i].dir, dir))
			return (int64_t)i;
	return -1;
}

/* "intel-rapl:N" or "intel-rapl:N:M" (digits); *colons = 1 or 2. */
static int zone_dir_ok(const char *d, size_t len, int *colons)
{
	static const char pre[] = "intel-rapl:";
	size_t i = sizeof(pre) - 1;
	int digits = 0;
	*colons = 1;
	if (len <= i || strncmp(d, pre, i))
		return 0;
	for (; i < len; i++) {
		if (d[i] >= '0' && d[i] <= '9') {
			digits++;
		} else if (d[i] == ':' && digits && *colons == 1) {
			(*colons)++;
			digits = 0;
		} else {
			return 0;
		}
	}
	return digits > 0;
}

static struct kvb_rapl_zone *zone_slot(struct kvb_rapl_zones *z, const char *dir, size_t len)
{
	for (size_t i = 0; i < z->n; i++)
		if (strlen(z->v[i].dir) == len && !strncmp(z->v[i].dir, dir, len))
			return &z->v[i];
	z->v = kvb_xrealloc(z->v, (z->n + 1) * sizeof(*z->v));
	memset(&z->v[z->n], 0, sizeof(*z->v));
	z->v[z->n].dir = kvb_xstrndup(dir, len);
	z->v[z->n].parent = -1;
	return &z->v[z->n++];
}

static void add_unreadable(struct kvb_rapl_zone *zn, const char *what)
{
	char *u = zn->unreadable ? kvb_xasprintf("%s; %s", zn->unreadable, what) : kvb_xstrdup(what);
	free(zn->unreadable);
	zn->unreadable = u;
}

/* One "ZONE/FILE:VALUE" line of stdout. */
static int parse_value(struct kvb_rapl_zones *z, const char *l, struct kvb_error *err)
{
	const char *slash = strchr(l, '/'), *colon = slash ? strchr(slash, ':') : NULL, *file;
	size_t flen;
	int colons;
	struct kvb_rapl_zone *zn;
	if (!colon || !zone_dir_ok(l, (size_t)(slash - l), &colons))
		return KVB_OK;
	file = slash + 1;
	flen = (size_t)(colon - file);
	zn = zone_slot(z, l, (size_t)(slash - l));
	if (flen == 4 && !strncmp(file, "name", 4)) {
		free(zn->name);
		zn->name = kvb_xstrdup(colon + 1);
	} else if ((flen == 9 && !strncmp(file, "energy_uj", 9)) || (flen == 19 && !strncmp(file, "max_energy_range_uj", 19))) {
		int64_t v;
		if (kvb_parse_i64(colon + 1, &v) || v < 0)
			return kvb_error_set(err, KVB_EINPUT, "%s: '%s' is not a counter in uJ", l, colon + 1);
		if (flen == 9) {
			zn->energy_uj = (uint64_t)v;
			zn->has_energy = 1;
		} else {
			zn->range_uj = (uint64_t)v;
			zn->has_range = 1;
		}
	}
	return KVB_OK;
}

/* One "grep: ZONE/FILE: REASON" line of stderr: that file of that zone gave no value. */
static void parse_error(struct kvb_rapl_zones *z, const char *l)
{
	const char *p = !strncmp(l, "grep: ", 6) ? l + 6 : l, *slash = strchr(p, '/');
	const char *sep = slash ? strstr(slash, ": ") : NULL;
	int colons;
	if (!sep || !zone_dir_ok(p, (size_t)(slash - p), &colons))
		return;
	if (!strncmp(slash + 1, "energy_uj:", 10) || !strncmp(slash + 1, "max_energy_range_uj:", 20)) {
		char *what = kvb_xasprintf("%.*s: %s", (int)(sep - slash - 1), slash + 1, sep + 2);
		add_unreadable(zone_slot(z, p, (size_t)(slash - p)), what);
		free(what);
	}
}

/* Parents, default channel names, and what a zone without a value lacks. */
static void name_zones(struct kvb_rapl_zones *z)
{
	for (size_t i = 0; i < z->n; i++) {
		struct kvb_rapl_zone *zn = &z->v[i];
		const char *second = strchr(zn->dir + strlen("intel-rapl:"), ':');
		if (second) {
			char *pdir = kvb_xstrndup(zn->dir, (size_t)(second - zn->dir));
			zn->parent = kvb_rapl_zone_find(z, pdir);
			free(pdir);
		}
		if (!zn->has_energy && !zn->unreadable)
			add_unreadable(zn, "energy_uj: empty or missing");
		if (!zn->has_range && !(zn->unreadable && strstr(zn->unreadable, "max_energy_range_uj")))
			add_unreadable(zn, "max_energy_range_uj: empty or missing");
	}
	for (size_t i = 0; i < z->n; i++) {
		struct kvb_rapl_zone *zn = &z->v[i];
		const char *own = zn->name ? zn->name : zn->dir;
		if (zn->parent >= 0) {
			const struct kvb_rapl_zone *p = &z->v[zn->parent];
			zn->chan = kvb_xasprintf("%s-%s", p->name ? p->name : p->dir, own);
		} else {
			zn->chan = kvb_xstrdup(own);
		}
	}
}

int kvb_rapl_parse(const char *out, const char *errtext, struct kvb_rapl_zones *z, struct kvb_error *err)
{
	int rc = KVB_OK;
	kvb_rapl_zones_release(z);
	for (int pass = 0; pass < 2 && !rc; pass++) {
		const char *l = pass ? errtext : out;
		while (l && *l && !rc) {
			const char *nl = strchr(l, '\n');
			char *line = nl ? kvb_xstrndup(l, (size_t)(nl - l)) : kvb_xstrdup(l);
			if (pass)
				parse_error(z, line);
			else
				rc = parse_value(z, line, err);
			free(line);
			l = nl ? nl + 1 : NULL;
		}
	}
	if (rc)
		kvb_rapl_zones_release(z);
	else
		name_zones(z);
	return rc;
}

void kvb_rapl_sel_release(struct kvb_rapl_sel *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->chan[i]);
	free(s->zone);
	free(s->chan);
	memset(s, 0, sizeof(*s));
}

static void sel_add(struct kvb_rapl_sel *s, size_t zone, const char *chan)
{
	s->zone = kvb_xrealloc(s->zone, (s->n + 1) * sizeof(*s->zone));
	s->chan = kvb_xrealloc(s->chan, (s->n + 1) * sizeof(*s->chan));
	s->zone[s->n] = zone;
	s->chan[s->n++] = kvb_xstrdup(chan);
}

static int zone_lookup(const struct kvb_rapl_zones *z, const char *chan, const char *want, size_t *out,
		       struct kvb_error *err)
{
	struct kvb_buf found = KVB_BUF_INIT;
	for (size_t i = 0; i < z->n; i++)
		if (!strcmp(z->v[i].chan, want) || !strcmp(z->v[i].dir, want)) {
			*out = i;
			return KVB_OK;
		}
	for (size_t i = 0; i < z->n; i++)
		kvb_buf_addf(&found, "%s%s (%s)", i ? ", " : "", z->v[i].chan, z->v[i].dir);
	kvb_error_set(err, KVB_EINPUT, "channel '%s': no powercap zone '%s'; zones found: %s", chan, want,
		      found.len ? found.data : "none");
	kvb_buf_release(&found);
	return KVB_EINPUT;
}

/* Why zones a and b in one sum count some energy twice, or NULL. */
static const char *double_count(const struct kvb_rapl_zones *z, size_t a, size_t b)
{
	const struct kvb_rapl_zone *za = &z->v[a], *zb = &z->v[b];
	if (a == b)
		return "it is named twice";
	if ((za->name && !strcmp(za->name, "psys")) || (zb->name && !strcmp(zb->name, "psys")))
		return "psys is the whole platform: it already counts the packages and DRAM";
	if ((zb->parent == (int64_t)a && !(zb->name && !strcmp(zb->name, "dram"))) ||
	    (za->parent == (int64_t)b && !(za->name && !strcmp(za->name, "dram"))))
		return "a package already counts its core and uncore sub-zones";
	return NULL;
}

static int sums_check(const struct kvb_rapl_zones *z, const struct kvb_rapl_sel *s, const cJSON *sums,
		      struct kvb_error *err)
{
	for (const cJSON *kv = cJSON_IsObject(sums) ? sums->child : NULL; kv; kv = kv->next)
		for (const cJSON *m = kv->child; m; m = m->next)
			for (const cJSON *o = kv->child; o != m; o = o->next) {
				size_t zm = SIZE_MAX, zo = SIZE_MAX;
				const char *why;
				for (size_t i = 0; i < s->n; i++) {
					if (cJSON_IsString(m) && !strcmp(s->chan[i], m->valuestring))
						zm = s->zone[i];
					if (cJSON_IsString(o) && !strcmp(s->chan[i], o->valuestring))
						zo = s->zone[i];
				}
				if (zm == SIZE_MAX || zo == SIZE_MAX || !(why = double_count(z, zo, zm)))
					continue;
				return kvb_error_set(err, KVB_EINPUT,
						     "sum '%s' counts energy twice: %s (%s) with %s (%s): %s", kv->string,
						     o->valuestring, z->v[zo].dir, m->valuestring, z->v[zm].dir, why);
			}
	return KVB_OK;
}

int kvb_rapl_select(const struct kvb_rapl_zones *z, const cJSON *channels, const cJSON *sums, struct kvb_rapl_sel *out,
		    struct kvb_error *err)
{
	int rc = KVB_OK;
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < z->n; i++)
		for (size_t k = 0; k < i; k++)
			if (!strcmp(z->v[i].chan, z->v[k].chan))
				return kvb_error_set(err, KVB_EINPUT, "two powercap zones are named '%s' (%s, %s): "
						     "name them by directory in channels:", z->v[i].chan, z->v[k].dir,
						     z->v[i].dir);
	if (channels && channels->child) {
		for (const cJSON *kv = channels->child; kv && !rc; kv = kv->next) {
			size_t zi;
			rc = zone_lookup(z, kv->string, cJSON_IsString(kv) ? kv->valuestring : "?", &zi, err);
			if (!rc)
				sel_add(out, zi, kv->string);
		}
	} else {
		for (size_t i = 0; i < z->n; i++)
			sel_add(out, i, z->v[i].chan);
	}
	if (!rc)
		rc = sums_check(z, out, sums, err);
	if (rc)
		kvb_rapl_sel_release(out);
	return rc;
}

enum kvb_rapl_verdict kvb_rapl_delta(uint64_t a_uj, uint64_t b_uj, uint64_t range_uj, double window_s,
				     double max_power_w, uint64_t *delta_uj)
{
	double most_uj = max_power_w * window_s * 1e6;
	if (!range_uj || a_uj > range_uj || b_uj > range_uj)
		return KVB_RAPL_NO_RANGE;
	if (most_uj >= (double)range_uj)
		return KVB_RAPL_LONG;
	if (b_uj == a_uj)
		return KVB_RAPL_STILL;
	if (b_uj > a_uj) {
		*delta_uj = b_uj - a_uj;
		return KVB_RAPL_MOVED;
	}
	if ((double)(range_uj - a_uj + b_uj) > most_uj)
		return KVB_RAPL_RESET;
	*delta_uj = range_uj - a_uj + b_uj;
	return KVB_RAPL_WRAPPED;
}
