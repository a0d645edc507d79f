/*
 * A Linux CPU list ("0-3,6"): the "List format" of cpuset(7), as
 * /sys/devices/system/cpu/online prints it (no strides): comma-separated
 * entries, each a CPU number or an ascending range LOW-HIGH.
 */
#ifndef KVB_CPULIST_H
#define KVB_CPULIST_H

#include "core/error.h"

#include <stddef.h>
#include <stdint.h>

#define KVB_CPULIST_MAX 1024 /* CPUs 0..1023, as engine/affinity.h takes */

/*
 * Parses s into set[0..KVB_CPULIST_MAX-1] (1 = in the list). Returns the
 * number of CPUs (> 0), or -1 with why (n bytes) saying what is wrong in
 * words a user can act on ("range 5-4 runs backwards (did you mean
 * \"4-5\"?)", "empty entry between commas"). An empty list is an error.
 */
int kvb_cpulist_read(const char *s, unsigned char set[KVB_CPULIST_MAX], char *why, size_t n);

/* Writes set as a CPU list ("0,3-5") into buf (n bytes); "" when empty. Returns buf. */
char *kvb_cpulist_format(const unsigned char set[KVB_CPULIST_MAX], char *buf, size_t n);

/* Sets bits[] for every CPU of list ("0-3,6"; "" is no CPU); *top_out = the highest (-1: none). KVB_EINPUT naming
 * list and what is wrong (kvb_cpulist_read's words) when malformed. */
int kvb_cpulist_bits(const char *list, uint8_t bits[KVB_CPULIST_MAX / 8], int *top_out, struct kvb_error *err);
/* "0-3,6" -> "4f" (lower-case hex, no 0x; taskset's mask form); *hex owned by the caller. KVB_EINPUT for a
 * malformed or empty list. */
int kvb_cpulist_to_mask(const char *list, char **hex, struct kvb_error *err);
/* Parses a CPU list "0-3,5" into set[0..max) (1 per CPU, max <= KVB_CPULIST_MAX); returns the count (0 for ""),
 * -1 when malformed or a CPU is at or above max. */
int kvb_cpulist_parse(const char *s, unsigned char *set, int max);

#endif
