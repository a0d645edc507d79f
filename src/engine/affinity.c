/* Implements the taskset prefix of the `cpus` knob, with the hex-mask form for older toybox. */
#include "engine/affinity.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CPUS 1024

int kvb_cpulist_to_mask(const char *list, char **hex, struct kvb_error *err)
{
	uint8_t bits[MAX_CPUS / 8] = { 0 };
	const char *s = list;
	int top = -1;
	*hex = NULL;
	while (s && *s) {
		char *end;
		long a = strtol(s, &end, 10), b;
		if (end == s || a < 0 || a >= MAX_CPUS)
			return kvb_error_set(err, KVB_EINPUT, "cpus '%s': not a CPU list (CPUs 0-%d)", list, MAX_CPUS - 1);
		b = a;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s || b < a || b >= MAX_CPUS)
				return kvb_error_set(err, KVB_EINPUT, "cpus '%s': not a CPU list (CPUs 0-%d)", list, MAX_CPUS - 1);
		}
		for (long c = a; c <= b; c++)
			bits[c / 8] |= (uint8_t)(1u << (c % 8));
		if (b > top)
			top = (int)b;
		if (*end == ',')
			end++;
		else if (*end)
			return kvb_error_set(err, KVB_EINPUT, "cpus '%s': not a CPU list", list);
		s = end;
	}
	if (top < 0)
		return kvb_error_set(err, KVB_EINPUT, "cpus '%s': empty CPU list", list);
	{
		/* nibbles from the highest used one down */
		int nib = top / 4;
		char *o = kvb_xmalloc((size_t)nib + 2), *q = o;
		for (int i = nib; i >= 0; i--) {
			unsigned v = (bits[i / 2] >> ((i % 2) * 4)) & 0xf;
			*q++ = "0123456789abcdef"[v];
		}
		*q = '\0';
		*hex = o;
	}
	return KVB_OK;
}

/* 1 when argv exits 0 on the target; else why (the end of its stderr) in why[] */
static int works(struct kvb_target *t, const char *const *argv, char *why, size_t n)
{
	struct kvb_exec_result r;
	struct kvb_error e;
	int ok, rc;
	kvb_exec_result_init(&r);
	rc = kvb_target_exec(t, argv, 30000, &r, &e);
	ok = !rc && r.exit_code == 0;
	if (!ok && rc) {
		snprintf(why, n, "%.200s", e.msg);
	} else if (!ok) {
		size_t len = r.err.len;
		const char *p = r.err.data ? r.err.data : "";
		while (len && (p[len - 1] == '\n' || p[len - 1] == '\r'))
			len--;
		if (len > 160) {
			p += len - 160;
			len = 160;
		}
		snprintf(why, n, "exit %d%s%.*s", r.exit_code, len ? ": " : "", (int)len, p);
	}
	kvb_exec_result_release(&r);
	return ok;
}

int kvb_affinity_wrap(struct kvb_target *t, const char *list, struct kvb_strv *wrap, struct kvb_error *err)
{
	char *mask;
	int rc = kvb_cpulist_to_mask(list, &mask, err);
	if (rc)
		return rc;
	{
		const char *longform[] = { "taskset", "-c", list, "true", NULL };
		const char *maskform[] = { "taskset", mask, "true", NULL };
		char why_long[256] = "", why_mask[256] = "";
		if (works(t, longform, why_long, sizeof(why_long))) {
			kvb_strv_push(wrap, "taskset");
			kvb_strv_push(wrap, "-c");
			kvb_strv_push(wrap, list);
		} else if (works(t, maskform, why_mask, sizeof(why_mask))) {
			kvb_strv_push(wrap, "taskset");
			kvb_strv_push(wrap, mask);
		} else {
			rc = kvb_error_set(err, KVB_ETARGET,
					   "cpus '%s': cannot set the affinity: `taskset -c %s`: %s; `taskset %s` (mask): %s", list,
					   list, why_long, mask, why_mask);
		}
	}
	free(mask);
	return rc;
}
