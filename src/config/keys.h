/*
 * Table-driven validation of configuration mappings: every agenda, platform
 * and workload-parameter key is declared once with its type, default and help,
 * and the same table prints `kvbench help` listings. Whole keys only, no
 * prefix matching.
 */
#ifndef KVB_KEYS_H
#define KVB_KEYS_H

#include "config/doc.h"

#include <stdio.h>

enum kvb_type {
	KVB_T_ANY,
	KVB_T_INT,     /* integral number */
	KVB_T_NUM,     /* any number */
	KVB_T_STR,     /* string (numbers are accepted and stringified by kvb_node_str) */
	KVB_T_BOOL,
	KVB_T_LIST,
	KVB_T_MAP,
	KVB_T_SCALAR,  /* string, number or bool */
	KVB_T_STRLIST, /* string or list of scalars */
};

#define KVB_KEY_REQUIRED 0x1u
#define KVB_KEY_CLASSIFIER 0x2u  /* workload params: becomes a job classifier */
#define KVB_KEY_NONNEG 0x4u      /* numbers must be >= 0 */
#define KVB_KEY_POSITIVE 0x8u    /* numbers must be > 0 */

struct kvb_keydef {
	const char *key;
	enum kvb_type type;
	const char *def;      /* default shown in help, or NULL */
	const char *choices;  /* "a|b|c" for enumerated strings, or NULL */
	unsigned flags;
	const char *help;
};

/* Looks up key in a NULL-key-terminated table. */
const struct kvb_keydef *kvb_keydef_find(const struct kvb_keydef *defs, const char *key);

/*
 * Checks every member of obj (which must be a mapping, else one error) against
 * defs: unknown keys, wrong types, values outside choices, missing required
 * keys. All problems go to d. Returns the number of errors added.
 */
int kvb_keys_check(const cJSON *obj, const char *path, const struct kvb_keydef *defs, struct kvb_diag *d);
/* Checks one value against one definition. Returns 1 on error, 0 if fine. */
int kvb_value_check(const cJSON *v, const char *path, const struct kvb_keydef *def, struct kvb_diag *d);

/* Scalar node as a string ("4", "2.5", "true", the string itself); NULL for containers. Owned. */
char *kvb_node_str(const cJSON *n);

/* Prints a table as `  key  type  [default]  help` lines. */
void kvb_keys_print(FILE *f, const struct kvb_keydef *defs, const char *indent);

/* Typed getters with fallback: value of key in obj, or def when absent/wrong type (kvb_get_int: NaN gives def,
 * numbers beyond +-9e15 saturate there). */
long long kvb_get_int(const cJSON *obj, const char *key, long long def);
double kvb_get_num(const cJSON *obj, const char *key, double def);
const char *kvb_get_str(const cJSON *obj, const char *key, const char *def);
int kvb_get_bool(const cJSON *obj, const char *key, int def);

#endif
