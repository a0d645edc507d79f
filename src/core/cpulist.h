/*
 * Linux CPU lists, the format of /sys/devices/system/cpu/online and of the `cpus` knob: comma-
 * separated CPUs and ranges, "0-3,6" (Documentation/admin-guide/cputopology.rst). CPUs are 0 to
 * KVB_CPULIST_MAX - 1.
 */
#ifndef KVB_CORE_CPULIST_H
#define KVB_CORE_CPULIST_H

#include "core/error.h"

#include <stdint.h>

#define KVB_CPULIST_MAX 1024

/* Sets bits[] for every CPU of list ("0-3,6"); *top_out = the highest (-1: none). KVB_EINPUT naming list when malformed. */
int kvb_cpulist_bits(const char *list, uint8_t bits[KVB_CPULIST_MAX / 8], int *top_out, struct kvb_error *err);
/* "0-3,6" -> "4f" (lower-case hex, no 0x; taskset's mask form). KVB_EINPUT for a malformed list or a CPU above 1023. */
int kvb_cpulist_to_mask(const char *list, char **hex, struct kvb_error *err);
/* Parses a CPU list "0-3,5" into set[0..max) (1 per CPU, max <= KVB_CPULIST_MAX); returns the count, -1 when malformed. */
int kvb_cpulist_parse(const char *s, unsigned char *set, int max);

#endif
