/*
 * The agenda reader's own header, shared by config/agenda*.c and by nothing else: the key tables,
 * the state a section and a sweep carry while specs are made, and what one of these files calls in
 * another.
 */
#ifndef KVB_CONFIG_AGENDA_INTERNAL_H
#define KVB_CONFIG_AGENDA_INTERNAL_H

#include "config/agenda.h"
#include "config/catalog.h"
#include "config/wa3.h"
#include "config/specid.h"
#include "config/margins.h"
#include "core/buf.h"
#include "core/datadir.h"
#include "core/error.h"
#include "core/util.h"

/* A section after group cross-product: merged knobs/classifiers/params, own workloads. */
struct xsection {
	char *id;
	int iterations;  /* 0 = unset */
	struct kvb_runtime rt;
	cJSON *classifiers;
	cJSON *wparams;
	struct { const cJSON *node; char *path; } *wl;  /* section-only workload entries */
	size_t nwl;
};

/* The agenda-wide values every workload entry starts from (config: or global:). */
struct agenda_globals {
	struct kvb_runtime rt;
	cJSON *classifiers;       /* owned */
	cJSON *wparams;           /* owned: workload_parameters (only keys a workload knows are applied) */
	int iterations;
};

/* An entry's usable sweep keys (as many as it has) and the number of specs they make. */
struct sweep {
	const cJSON **keys;
	size_t *idx;              /* per key, the value of the combination being built */
	size_t nkeys, combos;
};

/* agenda_entry.c */
void kvb_agenda_expand_entry(struct kvb_agenda *a, const cJSON *e, const char *path, const struct xsection *sec,
		  const struct agenda_globals *g, struct kvb_diag *d);

/* agenda_section.c */
void kvb_agenda_xsection_release(struct xsection *x);
void kvb_agenda_read_knobs_and_classifiers(const cJSON *obj, const cJSON *rp, const char *path, struct kvb_runtime *rt,
				cJSON **cls, struct kvb_diag *d);
void kvb_agenda_read_sections(const cJSON *root, struct xsection **xs, size_t *nxs, struct kvb_diag *d);
int kvb_agenda_expand_workloads(struct kvb_agenda *a, const cJSON *root, const struct xsection *xs, size_t nxs,
		     const struct agenda_globals *g, struct kvb_diag *d);

/* agenda_variant.c */
void kvb_agenda_load_variants(struct kvb_agenda *a, const cJSON *vs, struct kvb_diag *d);
void kvb_agenda_variant_release(struct kvb_variant *v);

/* agenda.c */
extern const struct kvb_keydef kvb_agenda_section_keys[];
extern const struct kvb_keydef kvb_agenda_workload_keys[];
const cJSON *kvb_agenda_get2(const cJSON *o, const char *a, const char *b);
void kvb_agenda_merge_obj(cJSON **dst, const cJSON *src, int str);
int kvb_agenda_read_iterations(const cJSON *obj, const char *path, struct kvb_diag *d);
void kvb_agenda_check_classifiers(const cJSON *c, const char *path, struct kvb_diag *d);
void kvb_agenda_add_spec(struct kvb_agenda *a, struct kvb_spec *s);
void kvb_agenda_spec_release(struct kvb_spec *s);
void kvb_agenda_check_params(const struct kvb_catalog_workload *ops, const cJSON *params, const char *path, struct kvb_diag *d);

#endif
