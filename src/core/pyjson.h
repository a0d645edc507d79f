/*
 * JSON as Python's json module writes it, read into cJSON.
 *
 * Python's json.dump (WA3 writes every pod of its output directory with it,
 * wa/utils/serializer.py) writes a float that is not finite as the bare
 * tokens NaN, Infinity and -Infinity (allow_nan=True, the default), and its
 * json.load reads them back; strict JSON parsers such as cJSON refuse the
 * whole file. json-c's tokener (non-strict, as json_object_from_file uses
 * it) reads those tokens as doubles, so the file is parsed by json-c, a
 * parser, not by hand, and the tree is handed over as cJSON: numbers keep
 * their value, NaN and the infinities included (cJSON_IsNumber is true and
 * isfinite() false), so a reader can tell a missing value from a number.
 * json-c also takes what Python would not (comments, trailing commas):
 * reading more than Python is harmless here.
 */
#ifndef KVB_PYJSON_H
#define KVB_PYJSON_H

#include "core/error.h"

#include <cjson/cJSON.h>
#include <stddef.h>

/*
 * Parses text[0..len) (one JSON value; whitespace and comments may follow it)
 * into *out (owned by the caller). what names the text in messages (a path).
 * Errors: KVB_EINPUT "WHAT:LINE:COL: not valid JSON (json-c: ...)" for a
 * syntax error, "WHAT:LINE:COL: text after the JSON value" when more than
 * whitespace follows (a file is one pod).
 */
int kvb_pyjson_parse(const char *text, size_t len, const char *what, cJSON **out, struct kvb_error *err);

/* "NaN", "Infinity" or "-Infinity": x as Python's json writes it (x not finite). */
const char *kvb_pyjson_nonfinite_name(double x);

#endif
