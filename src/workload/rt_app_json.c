/*
 * Loads an rt-app use case as rt-app loads it: with json-c (rt-app's
 * src/rt-app_parse_config.c reads its file with json_object_from_file, a
 * default, non-strict json-c tokener). So `/ * * /` and `//` comments and
 * trailing commas are accepted, and a key given twice in one object keeps
 * its last value, exactly what rt-app sees. The json-c tree is then handed to
 * the rest of kvbench as cJSON (serialised by json-c, parsed by cJSON).
 *
 * Before json-c, a key repeated in one object is renamed as rt-app's workgen
 * does (rt-app doc/tutorial.txt "You don't have to ensure uniqueness of key";
 * doc/workgen check_unikid_json): the second "run" of a phase becomes "run1",
 * the next "run2" (the counter is per object and only grows), so a sequence
 * of events keeps every event; WA3's rt_app workload runs workgen too.
 */
#include "workload/rt_app.h"
#include "core/buf.h"
#include "core/log.h"
#include "core/util.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

/* One open object or array of the text being scanned. */
struct frame {
	int is_object, want_key;
	int curid;              /* workgen's per-object suffix counter, starts at 1 */
	struct kvb_strv keys;   /* keys seen in this object */
};

static int has_key(const struct kvb_strv *k, const char *s)
{
	for (size_t i = 0; i < k->n; i++)
		if (!strcmp(k->v[i], s))
			return 1;
	return 0;
}

/* Copies text to out, renaming repeated keys of an object as workgen does (see the file comment). */
static void unique_keys(const char *t, size_t len, struct kvb_buf *out)
{
	struct frame *st = NULL;
	size_t depth = 0, cap = 0;
	for (size_t i = 0; i < len;) {
		char c = t[i];
		struct frame *top = depth ? &st[depth - 1] : NULL;
		if (c == '/' && i + 1 < len && (t[i + 1] == '*' || t[i + 1] == '/')) {
			const char *e = t[i + 1] == '*' ? strstr(t + i + 2, "*/") : memchr(t + i, '\n', len - i);
			size_t j = e ? (size_t)(e - t) + (t[i + 1] == '*' ? 2 : 0) : len;
			kvb_buf_add(out, t + i, j - i);
			i = j;
			continue;
		}
		if (c == '"') {
			size_t j = i + 1;
			while (j < len && t[j] != '"')
				j += t[j] == '\\' ? 2 : 1;
			j = j < len ? j + 1 : len;
			if (top && top->is_object && top->want_key) {
				char *key = kvb_xstrndup(t + i + 1, j - i >= 2 ? j - i - 2 : 0);
				top->want_key = 0;
				if (has_key(&top->keys, key)) {
					char *nk = kvb_xasprintf("%s%d", key, top->curid);
					while (has_key(&top->keys, nk)) {
						free(nk);
						nk = kvb_xasprintf("%s%d", key, ++top->curid);
					}
					free(key);
					key = nk;
					kvb_buf_addf(out, "\"%s\"", key);
				} else {
					kvb_buf_add(out, t + i, j - i);
				}
				kvb_strv_push(&top->keys, key);
				free(key);
			} else {
				kvb_buf_add(out, t + i, j - i);
			}
			i = j;
			continue;
		}
		if (c == '{' || c == '[') {
			if (depth == cap)
				st = kvb_xrealloc(st, (cap = cap ? 2 * cap : 16) * sizeof(*st));
			st[depth++] = (struct frame){ .is_object = c == '{', .want_key = c == '{', .curid = 1,
						      .keys = { 0 } };
		} else if ((c == '}' || c == ']') && depth) {
			kvb_strv_release(&st[--depth].keys);
		} else if (c == ',' && top && top->is_object) {
			top->want_key = 1;
		}
		kvb_buf_addc(out, c);
		i++;
	}
	while (depth)
		kvb_strv_release(&st[--depth].keys);
	free(st);
}

/*
 * The events of a phase as rt-app reads them (scheduler-tools/rt-app 55cb0c0,
 * src/rt-app_parse_config.c): a key is an event when it starts with one of
 * events[] (obj_is_event, a prefix match: "lock_order" is a "lock" event), and
 * parse_task_event_data takes the first branch whose prefix the key has and
 * requires its value's json-c type; any other type is "Unknown or mismatch KEY
 * event type" and the event is lost (rt-app logs it critical). JSON_ANY: no
 * check (suspend, yield take no value).
 */
#define JSON_ANY ((enum json_type)-1)
static const struct {
	const char *prefix;
	enum json_type type;
	const char *what;
} rtapp_events[] = {
	{ "run", json_type_int, "an integer (us)" },   /* run, runtime */
	{ "sleep", json_type_int, "an integer (us)" },
	{ "memrun", json_type_object, "an object" },
	{ "mem", json_type_int, "an integer" },
	{ "iorun", json_type_int, "an integer" },
	{ "lock", json_type_string, "a resource name" },
	{ "unlock", json_type_string, "a resource name" },
	{ "signal", json_type_string, "a resource name" },
	{ "broad", json_type_string, "a resource name" },
	{ "wait", json_type_object, "an object {ref, mutex}" },
	{ "sync", json_type_object, "an object {ref, mutex}" },
	{ "barrier", json_type_string, "a resource name" },
	{ "timer", json_type_object, "an object {ref, period, mode}" },
	{ "resume", json_type_string, "a task name" },
	{ "suspend", JSON_ANY, NULL },
	{ "yield", JSON_ANY, NULL },
	{ "fork", json_type_string, "a task name" },
	{ "sem_post", json_type_string, "a resource name" },
	{ "sem_wait", json_type_string, "a resource name" },
};

/* Byte offset of "key" (quoted) in t at or after from, or from when absent. */
static size_t key_at(const char *t, size_t len, size_t from, const char *key)
{
	size_t n = strlen(key);
	for (size_t i = from; i + n + 2 <= len; i++)
		if (t[i] == '"' && !strncmp(t + i + 1, key, n) && t[i + 1 + n] == '"')
			return i;
	return from;
}

/* Warns (file:line:col) of each key of the phase object ph that rt-app drops as "Unknown or mismatch". */
static void check_phase_events(const char *file, const char *t, size_t len, size_t at, const char *where,
			       struct json_object *ph)
{
	json_object_object_foreach(ph, key, val)
	{
		for (size_t i = 0; i < KVB_ARRAY_SIZE(rtapp_events); i++) {
			enum json_type ty = json_object_get_type(val);
			int line, col;
			if (strncmp(key, rtapp_events[i].prefix, strlen(rtapp_events[i].prefix)))
				continue;
			if (rtapp_events[i].type == JSON_ANY || ty == rtapp_events[i].type)
				break;
			kvb_line_col(t, len, key_at(t, len, at, key), &line, &col);
			kvb_warn("%s:%d:%d: %s: key '%s' is an rt-app '%s' event (by its prefix) and takes %s, not %s: rt-app "
				 "drops it (\"Unknown or mismatch %s event type\")%s",
				 file, line, col, where, key, rtapp_events[i].prefix, rtapp_events[i].what,
				 json_type_to_name(ty), key,
				 json_object_object_get_ex(ph, "exec", NULL) || json_object_object_get_ex(ph, "resources", NULL)
					 ? "; this phase is in rt-app's pre-1.0 grammar (exec, period, lock_order, resources), "
					   "which rt-app 1.0 does not read"
					 : "");
			break;
		}
	}
}

/* The warnings of check_phase_events for every task of root and every phase of a task with "phases". */
static void check_events(const char *file, const char *t, size_t len, struct json_object *root)
{
	struct json_object *tasks;
	size_t at0;
	if (!json_object_object_get_ex(root, "tasks", &tasks) || !json_object_is_type(tasks, json_type_object))
		return;
	at0 = key_at(t, len, 0, "tasks");
	json_object_object_foreach(tasks, name, task)
	{
		struct json_object *phases;
		size_t at = key_at(t, len, at0, name);
		char *where;
		if (!json_object_is_type(task, json_type_object))
			continue;
		if (json_object_object_get_ex(task, "phases", &phases) && json_object_is_type(phases, json_type_object)) {
			size_t pat = key_at(t, len, at, "phases");
			json_object_object_foreach(phases, pname, ph)
			{
				if (!json_object_is_type(ph, json_type_object))
					continue;
				where = kvb_xasprintf("task '%s' phase '%s'", name, pname);
				check_phase_events(file, t, len, key_at(t, len, pat, pname), where, ph);
				free(where);
			}
		} else {
			where = kvb_xasprintf("task '%s'", name);
			check_phase_events(file, t, len, at, where, task);
			free(where);
		}
	}
}

int kvb_rtapp_config_load(const char *file, cJSON **out, struct kvb_error *err)
{
	struct kvb_buf raw = KVB_BUF_INIT, b = KVB_BUF_INIT;
	struct json_tokener *tok = NULL;
	struct json_object *jo = NULL;
	const cJSON *tasks;
	cJSON *root = NULL;
	int line, col, rc = KVB_OK;

	*out = NULL;
	if (kvb_buf_read_file(&raw, file)) {
		rc = kvb_error_set(err, KVB_EINPUT, "cannot read rt-app config '%s': %s", file, strerror(errno));
		goto out;
	}
	/* Renaming keeps every newline, so lines and columns of errors stay those of the file (columns
	   after a renamed key on the same line move by the suffix). */
	unique_keys(raw.data, raw.len, &b);
	tok = json_tokener_new();
	if (!tok) {
		rc = kvb_error_set(err, KVB_EINPUT, "%s: json-c could not allocate a tokener", file);
		goto out;
	}
	jo = json_tokener_parse_ex(tok, b.data, (int)b.len);
	if (!jo || json_tokener_get_error(tok) != json_tokener_success) {
		enum json_tokener_error je = json_tokener_get_error(tok);
		size_t off = json_tokener_get_parse_end(tok);
		if (je == json_tokener_continue)  /* the text ended inside a value */
			off = b.len;
		kvb_line_col(b.data, b.len, off, &line, &col);
		rc = kvb_error_set(err, KVB_EINPUT, "%s:%d:%d: not valid rt-app JSON (json-c: %s)", file, line, col,
				   je == json_tokener_continue ? "unexpected end of file" : json_tokener_error_desc(je));
		goto out;
	}
	{
		/* rt-app reads its file with json_object_from_file, which parses one value and ignores what
		   follows it (json_object_from_fd_ex hands the whole file to json_tokener_parse_ex and keeps
		   the first value): so does kvbench, and says so (nothing silent) */
		size_t end = json_tokener_get_parse_end(tok);
		while (end < b.len && strchr(" \t\r\n", b.data[end]))
			end++;
		if (end < b.len) {
			kvb_line_col(b.data, b.len, end, &line, &col);
			kvb_warn("%s:%d:%d: text after the end of the JSON object ignored, as rt-app (json-c) ignores it",
				 file, line, col);
		}
	}
	check_events(file, b.data, b.len, jo);
	root = cJSON_Parse(json_object_to_json_string_ext(jo, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	if (!root) {
		rc = kvb_error_set(err, KVB_EINPUT, "%s: json-c output not readable by cJSON", file);
		goto out;
	}
	tasks = cJSON_GetObjectItemCaseSensitive(root, "tasks");
	if (!cJSON_IsObject(root) || !cJSON_IsObject(tasks) || !tasks->child) {
		rc = kvb_error_set(err, KVB_EINPUT, "%s: an rt-app config needs a non-empty \"tasks\" object", file);
		goto out;
	}
	*out = root;
	root = NULL;
out:
	cJSON_Delete(root);
	if (jo)
		json_object_put(jo);
	if (tok)
		json_tokener_free(tok);
	kvb_buf_release(&b);
	kvb_buf_release(&raw);
	return rc;
}
