/*
 * WA3 agendas as WA3 3.x reads them (wa3_keys.c): `include#`, every key
 * alias, augmentation and plugin names, run settings and runtime parameters
 * rewritten into kvbench's spelling, or dropped with one warning each.
 */
#ifndef KVB_WA3_H
#define KVB_WA3_H

#include "config/doc.h"

#include <cjson/cJSON.h>

/*
 * Returns a rewritten copy of root (owned by the caller; never NULL).
 * file: the agenda's path (include# is relative to it). Warnings go to
 * d->warnings, errors (unreadable include, a WA3 parameter kvbench cannot
 * apply) to d->msgs, located by path in d->doc.
 */
cJSON *kvb_wa3_normalize(const cJSON *root, const char *file, struct kvb_diag *d);

/* 1 when a and b name the same WA3 plugin: case, '-' and '_' ignored. */
int kvb_wa3_name_eq(const char *a, const char *b);

#endif
