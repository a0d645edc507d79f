/* Implements Linux CPU lists ("0-3,6", Documentation/admin-guide/cputopology.rst): parsed into a bitmap, a count, or taskset's hex mask. */
#include "core/cpulist.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

int kvb_cpulist_bits(const char *list, uint8_t bits[KVB_CPULIST_MAX / 8], int *top_out, struct kvb_error *err)
{
	const char *s = list;
	int top = -1;
	while (s && *s) {
		char *end;
		long a = strtol(s, &end, 10), b;
		if (end == s || a < 0 || a >= KVB_CPULIST_MAX)
			return kvb_error_set(err, KVB_EINPUT, "cpus '%s': not a CPU list (CPUs 0-%d)", list, KVB_CPULIST_MAX - 1);
		b = a;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s || b < a || b >= KVB_CPULIST_MAX)
				return kvb_error_set(err, KVB_EINPUT, "cpus '%s': not a CPU list (CPUs 0-%d)", list, KVB_CPULIST_MAX - 1);
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
	*top_out = top;
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
