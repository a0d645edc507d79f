/*
 * Short labels for classifier text on the report page (issue 30): a label
 * "key=value key2=value2" (groups.c's make_labels) keeps every key, and a
 * value longer than KVB_SHORT_VALUE characters is replaced by a short form:
 * a JSON array of objects with "name" members (rt-app's `tasks`) by its names
 * and a hash, `tasks=[big,small]#3fa2c1`; any other long value by its first
 * characters and a hash, `cmd=perf bench sch…#9b1e04`. The hash is the first 6
 * hex digits of the value's SHA-256 (core/sha256.h), so two different long
 * values never look the same. The full text goes into a tooltip beside it.
 */
#ifndef KVB_SHORTLABEL_H
#define KVB_SHORTLABEL_H

#include <stddef.h>

#define KVB_SHORT_VALUE 24

/* The short form of label (owned by the caller); a copy of label when nothing is long. NULL gives "". */
char *kvb_short_label(const char *label);

#endif
