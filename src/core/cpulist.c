/* Implements CPU list parsing with messages that say what is wrong (cpuset(7) "List format"). */
#include "core/cpulist.h"
#include "core/util.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Reads a CPU number at *p; -1 when none, -2 when beyond the maximum. */
static long read_cpu(const char **p)
{
	long v = 0;
	if (!isdigit((unsigned char)**p))
		return -1;
	while (isdigit((unsigned char)**p)) {
		v = v * 10 + (**p - '0');
		if (v >= KVB_CPULIST_MAX)
			v = KVB_CPULIST_MAX; /* keep reading: the message names the whole number */
		(*p)++;
	}
	return v >= KVB_CPULIST_MAX ? -2 : v;
}

int kvb_cpulist_read(const char *s, unsigned char set[KVB_CPULIST_MAX], char *why, size_t n)
{
	const char *p = s;
	int count = 0;
	memset(set, 0, KVB_CPULIST_MAX);
	if (!s || !*s) {
		snprintf(why, n, "empty CPU list");
		return -1;
	}
	for (;;) {
		const char *start = p;
		long a = read_cpu(&p), b;
		if (a == -2) {
			snprintf(why, n, "CPU %.*s is beyond %d", (int)(p - start), start, KVB_CPULIST_MAX - 1);
			return -1;
		}
		if (a < 0) {
			if (*p == ',')
				snprintf(why, n, "empty entry %s", p == s ? "before the first comma" : "between commas");
			else if (!*p)
				snprintf(why, n, "empty entry after the last comma");
			else if (isspace((unsigned char)*p))
				snprintf(why, n, "a space before '%s': a CPU list has none (\"0-3,6\")", p + strspn(p, " \t"));
			else
				snprintf(why, n, "'%s' is not a CPU number", p);
			return -1;
		}
		b = a;
		if (*p == '-') {
			const char *hs = ++p;
			b = read_cpu(&p);
			if (b == -2) {
				snprintf(why, n, "CPU %.*s is beyond %d", (int)(p - hs), hs, KVB_CPULIST_MAX - 1);
				return -1;
			}
			if (b < 0) {
				snprintf(why, n, "range %.*s has no end", (int)(p - start), start);
				return -1;
			}
			if (b < a) {
				snprintf(why, n, "range %ld-%ld runs backwards (did you mean \"%ld-%ld\"?)", a, b, b, a);
				return -1;
			}
		}
		for (long c = a; c <= b; c++)
			if (!set[c]) {
				set[c] = 1;
				count++;
			}
		if (!*p)
			return count;
		if (*p != ',') {
			snprintf(why, n, "unexpected '%s' after %.*s", p, (int)(p - start), start);
			return -1;
		}
		p++;
	}
}

char *kvb_cpulist_format(const unsigned char set[KVB_CPULIST_MAX], char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = '\0';
	for (int c = 0; c < KVB_CPULIST_MAX; c++) {
		int e = c;
		if (!set[c])
			continue;
		while (e + 1 < KVB_CPULIST_MAX && set[e + 1])
			e++;
		if (len < n)
			len += (size_t)snprintf(buf + len, n - len, "%s%d", len ? "," : "", c);
		if (e > c && len < n)
			len += (size_t)snprintf(buf + len, n - len, "-%d", e);
		c = e;
	}
	return buf;
}

int kvb_cpulist_bits(const char *list, uint8_t bits[KVB_CPULIST_MAX / 8], int *top_out, struct kvb_error *err)
{
	unsigned char set[KVB_CPULIST_MAX];
	char why[160];
	*top_out = -1;
	if (!list || !*list)
		return KVB_OK;
	if (kvb_cpulist_read(list, set, why, sizeof(why)) < 0)
		return kvb_error_set(err, KVB_EINPUT, "cpus '%s': %s", list, why);
	for (int c = 0; c < KVB_CPULIST_MAX; c++)
		if (set[c]) {
			bits[c / 8] |= (uint8_t)(1u << (c % 8));
			*top_out = c;
		}
	return KVB_OK;
}

int kvb_cpulist_to_mask(const char *list, char **hex, struct kvb_error *err)
{
	uint8_t bits[KVB_CPULIST_MAX / 8] = { 0 };
	int top = -1, rc;
	*hex = NULL;
	if ((rc = kvb_cpulist_bits(list, bits, &top, err)))
		return rc;
	if (top < 0)
		return kvb_error_set(err, KVB_EINPUT, "cpus '%s': empty CPU list", list);
	int nib = top / 4; /* nibbles from the highest used one down */
	char *o = kvb_xmalloc((size_t)nib + 2), *q = o;
	for (int i = nib; i >= 0; i--)
		*q++ = "0123456789abcdef"[(bits[i / 2] >> ((i % 2) * 4)) & 0xf];
	*q = '\0';
	*hex = o;
	return KVB_OK;
}

int kvb_cpulist_parse(const char *s, unsigned char *set, int max)
{
	uint8_t bits[KVB_CPULIST_MAX / 8] = { 0 };
	struct kvb_error err;
	int top = -1, count = 0;
	memset(set, 0, (size_t)max);
	if (kvb_cpulist_bits(s, bits, &top, &err) || top >= max)
		return -1;
	for (int c = 0; c <= top; c++)
		if (bits[c / 8] >> (c % 8) & 1) {
			set[c] = 1;
			count++;
		}
	return count;
}
