/*
 * WA3 agendas as WA3 3.x reads them (wa3_keys.c): `include#`, every key
 * alias, augmentation and plugin names, run settings and runtime parameters
 * rewritten into kvbench's spelling, or dropped with one warning each.
 */
#ifndef KVB_WA3_H
#define KVB_WA3_H

#include "config/doc.h"

#include <cjson/cJSON.h>

struct kvb_catalog;

/* What becomes of one parameter of WA3's version of a workload in a WA3 agenda (config/wa3_keys.c). */
enum kvb_wa3_conv {
	KVB_WA3_RENAME = 1,      /* kept under the workload's parameter `to` (a WA3 spelling: warned if `to` is given too) */
	KVB_WA3_TO_ENTRY,        /* moved to the workload entry's key `to` (timeout_s) unless the entry has it; else kept */
	KVB_WA3_CPU_MASK,        /* WA3's cpu_mask (an int bit mask, "0x3", "0-1" or [0, 1]) -> the entry's runtime
				  * knob `to` as a CPU list (checked where the knob is read) */
	KVB_WA3_DROP,            /* dropped with the warning "ignored: WA3 <workload> parameter 'KEY' <why>" */
	KVB_WA3_REFUSE_UNLESS_EMPTY, /* "" is dropped ("is empty: nothing to apply"); anything else is the error `why` */
	KVB_WA3_WARN_IF_WA3,     /* a kvbench parameter WA3's version ignores: the warning `why` when the agenda is
				  * written for WA3 (a WA3 spelling seen, or another parameter of this table given) */
};

/* One row of a workload's WA3 translation; a table ends with a NULL wa3. */
struct kvb_wa3_param {
	const char *wa3;         /* the parameter as WA3's workload names it */
	enum kvb_wa3_conv conv;
	const char *to;          /* kvbench's key (RENAME, TO_ENTRY, CPU_MASK), else NULL */
	const char *why;         /* DROP, REFUSE_UNLESS_EMPTY, WARN_IF_WA3: the text; else NULL */
};

/*
 * Returns a rewritten copy of root (owned by the caller; never NULL).
 * file: the agenda's path (include# is relative to it); cat: the workloads
 * WA3 plugin names resolve to, with their WA3 parameter tables (catalog.h). Warnings go to
 * d->warnings, errors (unreadable include, a WA3 parameter kvbench cannot
 * apply) to d->msgs, located by path in d->doc.
 */
cJSON *kvb_wa3_normalize(const cJSON *root, const char *file, const struct kvb_catalog *cat, struct kvb_diag *d);

/* 1 when a and b name the same WA3 plugin: case, '-' and '_' ignored. */
int kvb_wa3_name_eq(const char *a, const char *b);

#endif
