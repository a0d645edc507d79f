/*
 * The WA3 agenda normaliser's own header, shared by config/wa3_keys.c and wa3_runtime.c and by
 * nothing else.
 */
#ifndef KVB_CONFIG_WA3_INTERNAL_H
#define KVB_CONFIG_WA3_INTERNAL_H

#include "config/wa3.h"
#include "config/agenda.h"
#include "config/catalog.h"
#include "config/keys.h"
#include "config/runtime.h"
#include "core/buf.h"
#include "core/util.h"

struct wa3 {
	struct kvb_diag *d;
	const struct kvb_catalog *catalog; /* the workloads WA3 plugin names resolve to */
	struct kvb_strv warned;  /* "what\tkey" already warned about */
	int wa3_spelled;         /* 1 once a WA3-only spelling (a renamed or dropped key, include#) was seen */
};

/* wa3_runtime.c */
void kvb_wa3_runtime(struct wa3 *w, cJSON *rp, const char *path);
extern const char *const kvb_wa3_run_settings[];
void kvb_wa3_cpu_mask_knob(cJSON *e, const cJSON *m, const char *knob);

/* wa3_keys.c */
void kvb_wa3_warn_once(struct wa3 *w, const char *path, const char *what, const char *key, const char *why);
cJSON *kvb_wa3_get(cJSON *o, const char *k);

#endif
