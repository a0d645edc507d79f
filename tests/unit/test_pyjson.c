/*
 * JSON as Python's json module writes it (core/pyjson.h): NaN, Infinity and -Infinity, the bare
 * tokens json.dump writes for a float that is not finite (WA3's pods), read as numbers that are
 * not finite; the same words inside strings stay strings; a syntax error names line and column.
 * The texts below are what CPython 3.11's json.dumps prints for these values (checked by hand:
 * json.dumps({"v": float("nan")}) == '{"v": NaN}').
 */
#include "core/pyjson.h"
#include "test.h"

#include <math.h>
#include <string.h>

static cJSON *parse(const char *text, struct kvb_error *err)
{
	cJSON *out = NULL;
	if (kvb_pyjson_parse(text, strlen(text), "t.json", &out, err))
		return NULL;
	return out;
}

static void test_pyjson__reads_python_nonfinite_tokens_as_numbers(void)
{
	struct kvb_error err;
	cJSON *o = parse("{\"a\": NaN, \"b\": Infinity, \"c\": -Infinity, \"d\": 1.5, \"e\": [NaN, 2]}", &err);
	CHECK(o != NULL);
	if (!o)
		return;
	CHECK(cJSON_IsNumber(cJSON_GetObjectItem(o, "a")) && isnan(cJSON_GetObjectItem(o, "a")->valuedouble));
	CHECK(cJSON_IsNumber(cJSON_GetObjectItem(o, "b")) && isinf(cJSON_GetObjectItem(o, "b")->valuedouble) &&
	      cJSON_GetObjectItem(o, "b")->valuedouble > 0);
	CHECK(cJSON_GetObjectItem(o, "c")->valuedouble < 0 && isinf(cJSON_GetObjectItem(o, "c")->valuedouble));
	CHECK(cJSON_GetObjectItem(o, "d")->valuedouble == 1.5);
	CHECK(isnan(cJSON_GetArrayItem(cJSON_GetObjectItem(o, "e"), 0)->valuedouble));
	CHECK(cJSON_GetArrayItem(cJSON_GetObjectItem(o, "e"), 1)->valuedouble == 2);
	CHECK_STR(kvb_pyjson_nonfinite_name(cJSON_GetObjectItem(o, "a")->valuedouble), "NaN");
	CHECK_STR(kvb_pyjson_nonfinite_name(cJSON_GetObjectItem(o, "c")->valuedouble), "-Infinity");
	cJSON_Delete(o);
}

static void test_pyjson__keeps_the_words_inside_strings(void)
{
	struct kvb_error err;
	cJSON *o = parse("{\"name\": \"NaN\", \"s\": \"x: Infinity, -Infinity\", \"NaN\": true}", &err);
	CHECK(o != NULL);
	if (!o)
		return;
	CHECK_STR(cJSON_GetObjectItem(o, "name")->valuestring, "NaN");
	CHECK_STR(cJSON_GetObjectItem(o, "s")->valuestring, "x: Infinity, -Infinity");
	CHECK(cJSON_IsTrue(cJSON_GetObjectItem(o, "NaN")));
	cJSON_Delete(o);
}

static void test_pyjson__keeps_order_and_the_last_of_a_repeated_key(void)
{
	struct kvb_error err;
	cJSON *o = parse("{\"z\": 1, \"a\": 2, \"z\": 3}", &err);
	CHECK(o != NULL);
	if (!o)
		return;
	CHECK_STR(o->child->string, "z");
	CHECK(cJSON_GetObjectItem(o, "z")->valuedouble == 3);
	CHECK(cJSON_GetArraySize(o) == 2);
	cJSON_Delete(o);
}

static void test_pyjson__errors_name_line_and_column(void)
{
	struct kvb_error err;
	CHECK(parse("{\n  \"a\": 1,\n  \"b\": nope\n}", &err) == NULL);
	CHECK_CONTAINS(err.msg, "t.json:3:");
	CHECK_CONTAINS(err.msg, "not valid JSON");
	CHECK(parse("{\"a\": 1} {\"b\": 2}", &err) == NULL);
	CHECK_CONTAINS(err.msg, "t.json:1:10: text after the JSON value");
	CHECK(parse("{\"a\": [1, 2", &err) == NULL);
	CHECK_CONTAINS(err.msg, "unexpected end of file");
	/* a number alone is complete at the end of the text */
	cJSON *n = parse("42", &err);
	CHECK(n && cJSON_IsNumber(n) && n->valuedouble == 42);
	cJSON_Delete(n);
}

#define TESTS                                                                                                  \
	T(test_pyjson__reads_python_nonfinite_tokens_as_numbers)                                               \
	T(test_pyjson__keeps_the_words_inside_strings)                                                         \
	T(test_pyjson__keeps_order_and_the_last_of_a_repeated_key)                                             \
	T(test_pyjson__errors_name_line_and_column)
#include "test_main.h"
