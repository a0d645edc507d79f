/* Implements comparing a knob's value as read back with the value written, by the file's format. */
#include "engine/readback.h"
#include "core/util.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* [s, s+n) without leading and trailing blanks (space, tab, CR, LF). */
static void trim(const char **s, size_t *n)
{
	while (*n && strchr(" \t\r\n", (*s)[0]))
		(*s)++, (*n)--;
	while (*n && strchr(" \t\r\n", (*s)[*n - 1]))
		(*n)--;
}

/* The whitespace-separated words of s (at most max); returns how many, -1 when more. */
static int words(const char *s, const char **w, size_t *wl, int max)
{
	int n = 0;
	while (*s) {
		while (*s && isspace((unsigned char)*s))
			s++;
		if (!*s)
			break;
		if (n == max)
			return -1;
		w[n] = s;
		while (*s && !isspace((unsigned char)*s))
			s++;
		wl[n] = (size_t)(s - w[n]);
		n++;
	}
	return n;
}

#define MAXW 64

/* A number that fills the word (decimal, or hex 0x..); never inf/nan words. */
static int word_number(const char *w, size_t n, double *v)
{
	char buf[64], *end;
	if (!n || n >= sizeof(buf) || !(isdigit((unsigned char)w[0]) || strchr("+-.", w[0])))
		return 0;
	memcpy(buf, w, n);
	buf[n] = '\0';
	errno = 0;
	*v = strtod(buf, &end);
	return !errno && *end == '\0' && isfinite(*v);
}

static int same_words(const char *a, const char *b, int numeric)
{
	const char *wa[MAXW], *wb[MAXW];
	size_t la[MAXW], lb[MAXW];
	int na = words(a, wa, la, MAXW), nb = words(b, wb, lb, MAXW);
	if (na < 0 || na != nb)
		return 0;
	for (int i = 0; i < na; i++) {
		double x, y;
		if (!numeric) {
			if (la[i] != lb[i] || memcmp(wa[i], wb[i], la[i]))
				return 0;
		} else if (!word_number(wa[i], la[i], &x) || !word_number(wb[i], lb[i], &y) || x != y) {
			return 0;
		}
	}
	return na > 0;
}

/* The bracketed word of a `[selected]` file ("always [madvise] never"), or NULL. Owned. */
static char *selected(const char *found)
{
	const char *w[MAXW];
	size_t l[MAXW];
	int n = words(found, w, l, MAXW), hit = -1;
	for (int i = 0; i < n; i++)
		if (l[i] > 2 && w[i][0] == '[' && w[i][l[i] - 1] == ']') {
			if (hit >= 0)
				return NULL; /* two selections: not that format */
			hit = i;
		}
	return hit < 0 || n < 2 ? NULL : kvb_xstrndup(w[hit] + 1, l[hit] - 2);
}

/* An uppercase feature name (sched_features: TTWU_QUEUE, NO_ENERGY_AWARE). */
static int feature_word(const char *w, size_t n)
{
	if (!n || !isupper((unsigned char)w[0]))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isupper((unsigned char)w[i]) && !isdigit((unsigned char)w[i]) && w[i] != '_')
			return 0;
	return 1;
}

/*
 * A features file (sched_features) lists every feature, NO_ before those that are off: what
 * was written agrees when each of its words is among the list's (WA3 #897: writing
 * NO_ENERGY_AWARE reads back the whole list). -1 when found is not such a list.
 */
static int features(const char *asked, const char *found)
{
	const char *wa[MAXW], *wf[MAXW];
	size_t la[MAXW], lf[MAXW];
	int na = words(asked, wa, la, MAXW), nf = words(found, wf, lf, MAXW);
	if (na < 1 || nf < 2)
		return -1;
	for (int i = 0; i < nf; i++)
		if (!feature_word(wf[i], lf[i]))
			return -1;
	for (int i = 0; i < na; i++) {
		int hit = 0;
		if (!feature_word(wa[i], la[i]))
			return -1;
		for (int j = 0; j < nf && !hit; j++)
			hit = la[i] == lf[j] && !memcmp(wa[i], wf[j], la[i]);
		if (!hit)
			return 0;
	}
	return 1;
}

/* A CPU list "0-3,8" (no blanks) as a bitmap of CPUs 0..4095; 0 when it is not one. */
static int cpulist(const char *s, size_t n, unsigned char *set)
{
	size_t i = 0;
	memset(set, 0, 512);
	if (!n)
		return 0;
	while (i < n) {
		long a = 0, b;
		size_t d = 0;
		while (i < n && isdigit((unsigned char)s[i]) && d < 5)
			a = a * 10 + (s[i++] - '0'), d++;
		if (!d || a > 4095)
			return 0;
		b = a;
		if (i < n && s[i] == '-') {
			i++;
			b = 0, d = 0;
			while (i < n && isdigit((unsigned char)s[i]) && d < 5)
				b = b * 10 + (s[i++] - '0'), d++;
			if (!d || b > 4095 || b < a)
				return 0;
		}
		for (long c = a; c <= b; c++)
			set[c / 8] |= (unsigned char)(1u << (c % 8));
		if (i < n && s[i] != ',')
			return 0;
		i++;
	}
	return s[n - 1] != ',';
}

/* A hex mask "00000000,0000000f" as lowercase digits without commas and leading zeros; 0 if not one. */
static int hexmask(const char *s, size_t n, char *out, size_t cap)
{
	size_t o = 0;
	int lead = 1;
	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == ',')
			continue;
		if (!isxdigit((unsigned char)s[i]))
			return 0;
		if (lead && s[i] == '0')
			continue;
		lead = 0;
		if (o + 1 >= cap)
			return 0;
		out[o++] = (char)tolower((unsigned char)s[i]);
	}
	out[o] = '\0';
	return 1;
}

/* 1 true, 0 false, -1 not a boolean word. */
static int boolean(const char *s, size_t n)
{
	static const char *const t[] = { "1", "y", "yes", "true", "on" }, *const f[] = { "0", "n", "no", "false", "off" };
	for (size_t i = 0; i < KVB_ARRAY_SIZE(t); i++) {
		if (strlen(t[i]) == n && !strncasecmp(s, t[i], n))
			return 1;
		if (strlen(f[i]) == n && !strncasecmp(s, f[i], n))
			return 0;
	}
	return -1;
}

int kvb_knob_agrees(const char *asked, const char *found)
{
	const char *a = asked ? asked : "", *f = found ? found : "";
	size_t an = strlen(a), fn = strlen(f);
	char *ac, *fc, *sel;
	int ok;
	trim(&a, &an);
	trim(&f, &fn);
	if (an == fn && !memcmp(a, f, an))
		return 1;
	ac = kvb_xstrndup(a, an);
	fc = kvb_xstrndup(f, fn);
	ok = same_words(ac, fc, 0) || same_words(ac, fc, 1);
	if (!ok && (ok = features(ac, fc)) < 0) {
		ok = 0;
		if ((sel = selected(fc))) {
			ok = !strcmp(sel, ac) ? 1 : -1; /* a [selected] file says what it holds: nothing else applies */
			free(sel);
		}
	}
	free(ac);
	free(fc);
	if (ok)
		return ok > 0;
	{
		unsigned char sa[512], sf[512];
		if (cpulist(a, an, sa) && cpulist(f, fn, sf))
			return !memcmp(sa, sf, sizeof(sa));
	}
	{
		char ha[1200], hf[1200];
		if (hexmask(a, an, ha, sizeof(ha)) && hexmask(f, fn, hf, sizeof(hf)) && !strcmp(ha, hf))
			return 1;
	}
	{
		int ba = boolean(a, an), bf = boolean(f, fn);
		if (ba >= 0 && bf >= 0)
			return ba == bf;
	}
	return 0;
}

char *kvb_knob_value(const char *found)
{
	const char *f = found ? found : "";
	size_t n = strlen(f);
	char *t, *sel;
	trim(&f, &n);
	t = kvb_xstrndup(f, n);
	if ((sel = selected(t))) {
		free(t);
		return sel;
	}
	return t;
}

int kvb_readback_lenient(const cJSON *readback, const char *knob)
{
	char *key = kvb_xstrdup(knob);
	const char *v = NULL;
	for (;;) {
		const cJSON *e = cJSON_GetObjectItemCaseSensitive(readback, key);
		char *dot;
		if (cJSON_IsString(e)) {
			v = e->valuestring;
			break;
		}
		if (!(dot = strrchr(key, '.')))
			break;
		*dot = '\0';
	}
	free(key);
	if (!v) {
		const cJSON *all = cJSON_GetObjectItemCaseSensitive(readback, "all");
		v = cJSON_IsString(all) ? all->valuestring : "fail";
	}
	return !strcmp(v, "record");
}
