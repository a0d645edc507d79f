/* Implements the taskset prefix of the `cpus` knob, with the hex-mask form for older toybox. */
#include "engine/affinity.h"

#include <stdint.h>
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

static int works(struct kvb_target *t, const char *const *argv)
{
	struct kvb_exec_result r;
	struct kvb_error ignore;
	int ok;
	kvb_exec_result_init(&r);
	ok = !kvb_target_exec(t, argv, 30000, &r, &ignore) && r.exit_code == 0;
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
		if (works(t, longform)) {
			kvb_strv_push(wrap, "taskset");
			kvb_strv_push(wrap, "-c");
			kvb_strv_push(wrap, list);
		} else if (works(t, maskform)) {
			kvb_strv_push(wrap, "taskset");
			kvb_strv_push(wrap, mask);
		} else {
			rc = kvb_error_set(err, KVB_ETARGET,
					   "cpus '%s': neither `taskset -c %s` nor `taskset %s` (mask) works on the target", list,
					   list, mask);
		}
	}
	free(mask);
	return rc;
}
