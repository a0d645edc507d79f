/* Implements reading JSON as Python's json module writes it (NaN, Infinity) with json-c into cJSON (pyjson.h). */
#include "core/pyjson.h"
#include "core/util.h"

#include <json-c/json.h>
#include <math.h>
#include <string.h>

/* Nesting json-c accepts; WA3's pods nest a handful of levels. */
#define PYJSON_DEPTH 128

/* The cJSON copy of a json-c value (never NULL: json-c's null is cJSON's null). */
static cJSON *convert(struct json_object *o)
{
	switch (json_object_get_type(o)) {
	case json_type_null:
		return cJSON_CreateNull();
	case json_type_boolean:
		return cJSON_CreateBool(json_object_get_boolean(o));
	case json_type_int:
		return cJSON_CreateNumber((double)json_object_get_int64(o));
	case json_type_double:
		return cJSON_CreateNumber(json_object_get_double(o)); /* NaN and the infinities kept */
	case json_type_string:
		return cJSON_CreateString(json_object_get_string(o));
	case json_type_array: {
		cJSON *a = cJSON_CreateArray();
		size_t n = json_object_array_length(o);
		for (size_t i = 0; i < n; i++)
			cJSON_AddItemToArray(a, convert(json_object_array_get_idx(o, i)));
		return a;
	}
	case json_type_object: {
		cJSON *m = cJSON_CreateObject();
		/* json-c keeps insertion order, and a repeated key its last value (as Python's dict) */
		json_object_object_foreach(o, key, val) cJSON_AddItemToObject(m, key, convert(val));
		return m;
	}
	}
	return cJSON_CreateNull();
}

int kvb_pyjson_parse(const char *text, size_t len, const char *what, cJSON **out, struct kvb_error *err)
{
	struct json_tokener *tok;
	struct json_object *jo;
	enum json_tokener_error je;
	int line, col, rc = KVB_OK, flushed = 0;
	size_t end;

	*out = NULL;
	if (len > (size_t)0x7fffffff)
		return kvb_error_set(err, KVB_EINPUT, "%s: too large for a JSON pod", what);
	tok = json_tokener_new_ex(PYJSON_DEPTH);
	if (!tok)
		return kvb_error_set(err, KVB_EINPUT, "%s: json-c could not allocate a tokener", what);
	jo = json_tokener_parse_ex(tok, text, (int)len);
	je = json_tokener_get_error(tok);
	/* json-c waits for more after a number that ends the text: a blank says it is complete */
	if (!jo && je == json_tokener_continue) {
		jo = json_tokener_parse_ex(tok, " ", 1);
		je = json_tokener_get_error(tok);
		flushed = 1;
		if (!jo && je != json_tokener_continue)
			je = json_tokener_continue; /* the error is the end of the text, not our blank */
	}
	if (!jo || je != json_tokener_success) {
		end = je == json_tokener_continue ? len : json_tokener_get_parse_end(tok);
		kvb_line_col(text, len, end, &line, &col);
		rc = kvb_error_set(err, KVB_EINPUT, "%s:%d:%d: not valid JSON (json-c: %s)", what, line, col,
				   je == json_tokener_continue ? "unexpected end of file" : json_tokener_error_desc(je));
		goto out;
	}
	end = flushed ? len : json_tokener_get_parse_end(tok);
	while (end < len && strchr(" \t\r\n", text[end]))
		end++;
	if (end < len) {
		kvb_line_col(text, len, end, &line, &col);
		rc = kvb_error_set(err, KVB_EINPUT, "%s:%d:%d: text after the JSON value", what, line, col);
		goto out;
	}
	*out = convert(jo);
out:
	if (jo)
		json_object_put(jo);
	json_tokener_free(tok);
	return rc;
}

const char *kvb_pyjson_nonfinite_name(double x)
{
	return isnan(x) ? "NaN" : x > 0 ? "Infinity" : "-Infinity";
}
