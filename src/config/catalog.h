/*
 * The backends config/ checks a file against, handed in by the caller: the agenda loader looks
 * workloads up, the platform loader connection types, flash methods and instruments. config/
 * sits on the floor above core/ and includes nothing above it (docs/design.md#layers-and-rooms);
 * the one catalog kvbench uses is engine/catalog.c's kvb_catalog, built from the registries
 * kvb_workloads[], kvb_targets[], kvb_flashers[] and kvb_instruments[].
 */
#ifndef KVB_CONFIG_CATALOG_H
#define KVB_CONFIG_CATALOG_H

#include "config/doc.h"
#include "config/keys.h"
#include "config/wa3.h"

#include <stddef.h>

struct kvb_platform;
struct kvb_workload_ops;

/* One workload as an agenda sees it; the pointers borrow the registry's static tables. */
struct kvb_catalog_workload {
	const char *name;                      /* agenda `name:` */
	const struct kvb_keydef *params;       /* its parameter table */
	/* Checks beyond the key table, errors to d; may be NULL. Returns the error count. */
	int (*validate)(const cJSON *params, const char *path, struct kvb_diag *d);
	unsigned default_timeout_s;
	const struct kvb_wa3_param *wa3_params; /* WA3's version's parameters (wa3.h), or NULL */
	const struct kvb_workload_ops *ops;    /* opaque here: what kvb_spec.ops carries to the engine */
};

/* One connection type (connection.type) or flash method (flash.method) as a platform file sees it. */
struct kvb_catalog_backend {
	const char *name;
	const struct kvb_keydef *keys; /* keys allowed under connection:/flash: besides type/method; may be NULL */
	unsigned caps;                 /* a target's enum kvb_target_caps; a flasher's: the target caps it needs */
	/* Checks beyond the key table (the platform's other blocks it reads), errors to d; may be NULL. */
	void (*check)(const struct kvb_platform *p, struct kvb_diag *d);
};

/*
 * The registries, each read by index: fills *out with the i-th entry (0-based, in the registry's
 * order) and returns 0, or returns -1 past the last. Every member must be set.
 */
struct kvb_catalog {
	int (*workload)(size_t i, struct kvb_catalog_workload *out);
	int (*target)(size_t i, struct kvb_catalog_backend *out);
	int (*flasher)(size_t i, struct kvb_catalog_backend *out);
	/* Instrument backends (platform `instruments.X.type`); keys: the type's conf_keys, caps and check unused. */
	int (*instrument)(size_t i, struct kvb_catalog_backend *out);
	/* Words for a set of target caps in messages ("owns the board"); static. */
	const char *(*target_caps_describe)(unsigned caps);
	/* The platform's instruments: block checked against each instrument's table, errors to d. */
	void (*check_instruments)(const struct kvb_platform *p, struct kvb_diag *d);
};

/* Finds the workload called name (exact) into *out: 0, or -1 when none is. */
int kvb_catalog_find_workload(const struct kvb_catalog *c, const char *name, struct kvb_catalog_workload *out);

/* Finds the connection type / flash method called name into *out: 0, or -1 when none is. */
int kvb_catalog_find_target(const struct kvb_catalog *c, const char *name, struct kvb_catalog_backend *out);
int kvb_catalog_find_flasher(const struct kvb_catalog *c, const char *name, struct kvb_catalog_backend *out);
/* Finds the instrument backend (type) called name into *out: 0, or -1 when none is (or c has none). */
int kvb_catalog_find_instrument(const struct kvb_catalog *c, const char *name, struct kvb_catalog_backend *out);

/*
 * The names of one registry joined by sep ("hackbench, rt-app"), malloc'd. kind: 'w' workloads,
 * 't' connection types, 'f' flash methods.
 */
char *kvb_catalog_names(const struct kvb_catalog *c, char kind, const char *sep);

#endif
