/*
 * Reads a WA3 agenda as WA3 3.x's agenda parser does (ARM-software/
 * workload-automation, wa/framework/configuration/parsers.py and core.py,
 * commit 251c263c) and rewrites it into kvbench's spelling before
 * kvb_agenda_from_doc validates it:
 *
 *  - `include#: FILE | [FILE...]` at any level, relative to the including
 *    file: the included mapping is merged under the including one (maps:
 *    the includer's keys win; lists: included first; scalars: the
 *    includer's) as WA3's _process_includes / merge_config_values do.
 *  - JobSpec aliases: workload_name -> name, parameters / workload_params
 *    -> params (workload entries) or workload_parameters (config,
 *    sections), runtime_parameters kept, boot_params = boot_parameters.
 *  - augmentations and every alias (instruments, processors,
 *    instrumentation, output_processors, augment, result_processors) are
 *    merged into kvbench's `instruments` list; WA3 instrument names with a
 *    kvbench counterpart are renamed (trace-cmd -> ftrace), the others
 *    (output processors, Android-only instruments) dropped with a warning.
 *  - Run-wide boot_parameters: added to every declared variant's kernel
 *    command line (boot_params_to_variants).
 *  - Run settings with no meaning here (run_name, project, reboot_policy,
 *    device, ...), plugin configuration blocks (`csv: {...}`; trace-cmd's
 *    events and buffer_size become kvbench's `ftrace: {...}` settings),
 *    section/config `label`, per-job boot parameters and
 *    run-wide ones without declared variants: dropped with one warning
 *    naming each key.
 *  - Runtime parameters: cpuN_governor / cpuN_frequency / cpuN_min_frequency
 *    / cpuN_max_frequency become sysfs knobs on cpuN's cpufreq files (what
 *    devlib writes); NAME_governor / NAME_frequency / NAME_min_frequency /
 *    NAME_max_frequency / NAME_gov_tunables the per-cluster cpufreq knob
 *    (NAME checked against topology.clusters by preflight and when
 *    applied); CPU hotplug (num_cores, num_NAME_cores, cpuN_online),
 *    all-CPU and one-CPU governor tunables and all-CPU frequencies go to
 *    wa3_unapplied, which fails their jobs; the rest (Android settings, WA2
 *    names) are dropped with a warning.
 *  - Plugin names match ignoring case and '-' / '_' (rt_app = rt-app).
 *  - Workload parameters of WA3's versions of kvbench's workloads are
 *    translated as each workload's ops declare (wa3_params, workload.h:
 *    rt-app duration -> duration_s, jankbench loops -> reps, timeouts ->
 *    timeout_s); a parameter kvbench cannot apply (hackbench extra_params
 *    that is not empty) is an error.
 *
 * Every warning names the key once per file ("ignored: WA3 key 'X' has no
 * meaning in kvbench"); nothing here is an error except what cannot be
 * applied as asked and unreadable includes.
 */
#include "config/wa3_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INCLUDE_DEPTH 16

/* Warns once per (what, key): "PATH: ignored: WA3 WHAT 'KEY' WHY". */
void kvb_wa3_warn_once(struct wa3 *w, const char *path, const char *what, const char *key, const char *why)
{
	char *tag = kvb_xasprintf("%s\t%s", what, key);
	for (size_t i = 0; i < w->warned.n; i++)
		if (!strcmp(w->warned.v[i], tag)) {
			free(tag);
			return;
		}
	kvb_strv_push(&w->warned, tag);
	free(tag);
	kvb_diag_warn_at(w->d, path, "ignored: WA3 %s '%s' %s", what, key, why);
}

/* WA3's plugin-name matching: case and '-' / '_' do not matter. */
int kvb_wa3_name_eq(const char *a, const char *b)
{
	for (;; a++, b++) {
		char x = *a == '-' ? '_' : (char)tolower((unsigned char)*a);
		char y = *b == '-' ? '_' : (char)tolower((unsigned char)*b);
		if (x != y)
			return 0;
		if (!x)
			return 1;
	}
}

cJSON *kvb_wa3_get(cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k);
}

/* Moves o[from] to o[to] unless o[to] exists (then from is dropped with a warning). */
static void rename_key(struct wa3 *w, cJSON *o, const char *path, const char *from, const char *to)
{
	cJSON *v = cJSON_DetachItemFromObjectCaseSensitive(o, from);
	if (!v)
		return;
	w->wa3_spelled = 1;
	if (kvb_wa3_get(o, to)) {
		char *p = kvb_path_key(path, from), *why = kvb_xasprintf("is an alias of '%s', given too", to);
		kvb_wa3_warn_once(w, p, "key", from, why);
		free(why);
		free(p);
		cJSON_Delete(v);
		return;
	}
	cJSON_AddItemToObject(o, to, v);
}

static void drop(struct wa3 *w, cJSON *o, const char *path, const char *key, const char *what, const char *why)
{
	char *p;
	if (!kvb_wa3_get(o, key))
		return;
	w->wa3_spelled = 1;
	p = kvb_path_key(path, key);
	kvb_wa3_warn_once(w, p, what, key, why);
	free(p);
	cJSON_DeleteItemFromObjectCaseSensitive(o, key);
}

/* ---- include# ---- */

/* WA3 merge_config_values(included, own): maps and lists concatenate, the including file's scalars win. */
static cJSON *merge_values(cJSON *inc, cJSON *own)
{
	if (!own)
		return inc;
	if (cJSON_IsObject(inc) && cJSON_IsObject(own)) {
		cJSON *kv;
		while ((kv = own->child)) {
			cJSON_DetachItemViaPointer(own, kv);
			cJSON_DeleteItemFromObjectCaseSensitive(inc, kv->string);
			cJSON_AddItemToObject(inc, kv->string, kv);
		}
		cJSON_Delete(own);
		return inc;
	}
	if (cJSON_IsArray(inc) || cJSON_IsArray(own)) {
		cJSON *out = cJSON_IsArray(inc) ? inc : cJSON_CreateArray(), *it;
		if (!cJSON_IsArray(inc))
			cJSON_AddItemToArray(out, inc);
		if (cJSON_IsArray(own)) {
			while ((it = own->child)) {
				cJSON_DetachItemViaPointer(own, it);
				cJSON_AddItemToArray(out, it);
			}
			cJSON_Delete(own);
		} else {
			cJSON_AddItemToArray(out, own);
		}
		return out;
	}
	cJSON_Delete(inc);
	return own;
}

static int includes(struct wa3 *w, cJSON *node, const char *file, const char *path, int depth);

/* Loads one included file (relative to the includer's directory) with its own includes done. */
static cJSON *load_include(struct wa3 *w, const char *from_file, const char *rel, const char *at, const char *path,
			   int depth)
{
	char *dir = kvb_xstrdup(from_file), *slash = strrchr(dir, '/'), *full;
	struct kvb_doc doc;
	struct kvb_diag sub;
	cJSON *root = NULL;
	if (slash)
		slash[1] = '\0';
	full = rel[0] == '/' || !slash ? kvb_xstrdup(rel) : kvb_xasprintf("%s%s", dir, rel);
	free(dir);
	kvb_diag_init(&sub, NULL);
	if (kvb_doc_load(&doc, full, &sub)) {
		for (size_t i = 0; i < sub.msgs.n; i++)
			kvb_diag_at(w->d, path, "include# '%s': %s", rel, sub.msgs.v[i]);
		if (!sub.msgs.n)
			kvb_diag_at(w->d, path, "include# '%s': cannot load '%s'", rel, full);
	} else {
		root = doc.root;
		doc.root = NULL;
		/* the included nodes' lines, under the path they merge at (the includer's own nodes keep theirs) */
		if (w->d->doc)
			kvb_doc_adopt_locs((struct kvb_doc *)w->d->doc, &doc, at);
		if (includes(w, root, full, at, depth + 1)) {
			cJSON_Delete(root);
			root = NULL;
		}
	}
	kvb_doc_release(&doc);
	kvb_diag_release(&sub);
	free(full);
	return root;
}

/* Replaces every `include#` under node (WA3 _process_includes). Returns the number of errors. */
static int includes(struct wa3 *w, cJSON *node, const char *file, const char *path, int depth)
{
	int errors = 0;
	cJSON *inc, *repl = NULL;
	if (depth > MAX_INCLUDE_DEPTH) {
		kvb_diag_at(w->d, path, "include# nested more than %d deep (a loop?)", MAX_INCLUDE_DEPTH);
		return 1;
	}
	if (cJSON_IsArray(node)) {
		int i = 0;
		for (cJSON *c = node->child; c; c = c->next, i++) {
			char *p = kvb_path_idx(path, i);
			errors += includes(w, c, file, p, depth);
			free(p);
		}
		return errors;
	}
	if (!cJSON_IsObject(node))
		return 0;
	for (cJSON *c = node->child; c; c = c->next) {
		char *p;
		if (!strcmp(c->string, "include#"))
			continue;
		p = kvb_path_key(path, c->string);
		errors += includes(w, c, file, p, depth);
		free(p);
	}
	inc = cJSON_DetachItemFromObjectCaseSensitive(node, "include#");
	if (!inc)
		return errors;
	w->wa3_spelled = 1;
	{
		char *ip = kvb_path_key(path, "include#");
		if (cJSON_IsString(inc)) {
			repl = load_include(w, file, inc->valuestring, path, ip, depth);
		} else if (cJSON_IsArray(inc)) {
			repl = cJSON_CreateObject();
			for (cJSON *f = inc->child; f; f = f->next) {
				cJSON *one = cJSON_IsString(f) ? load_include(w, file, f->valuestring, path, ip, depth) : NULL;
				if (!cJSON_IsString(f))
					kvb_diag_at(w->d, ip, "include# list entries must be file names");
				if (!one) {
					errors++;
					continue;
				}
				repl = merge_values(one, repl);
			}
		} else {
			kvb_diag_at(w->d, ip, "include# must be a file name or a list of them");
		}
		if (!repl || !cJSON_IsObject(repl)) {
			if (repl)
				kvb_diag_at(w->d, ip, "an included file must hold a mapping");
			errors++;
		} else {
			cJSON *kv;
			while ((kv = repl->child)) {
				cJSON *own;
				cJSON_DetachItemViaPointer(repl, kv);
				own = cJSON_DetachItemFromObjectCaseSensitive(node, kv->string);
				{
					char *k = kvb_xstrdup(kv->string);
					cJSON_AddItemToObject(node, k, merge_values(kv, own));
					free(k);
				}
			}
		}
		cJSON_Delete(repl);
		free(ip);
	}
	cJSON_Delete(inc);
	return errors;
}

/* ---- augmentations ---- */

static const char *const augment_keys[] = { "augmentations", "instruments", "processors", "instrumentation",
					    "output_processors", "augment", "result_processors", NULL };

/* WA3 instruments / output processors (wa/instruments, wa/output_processors) and kvbench's counterpart. */
static const struct {
	const char *wa3, *kvb, *why;
} wa3_augs[] = {
	{ "trace-cmd", "ftrace", NULL },
	{ "cpufreq", "cpufreq", NULL },
	{ "dmesg", "dmesg", NULL },
	{ "proc_stat", "util", NULL },
	{ "energy_measurement", NULL, "has no counterpart: kvbench takes meters from the platform's instruments" },
	{ "energy_probe", NULL, "has no counterpart: declare an `aep` instrument in the platform" },
	{ "arm_energy_probe", NULL, "has no counterpart: declare an `aep` instrument in the platform" },
	{ "acme_cape", NULL, "has no counterpart: declare an `acme` instrument in the platform" },
	{ "monsoon", NULL, "has no counterpart: declare a `monsoon` instrument in the platform" },
	{ "juno_readenergy", NULL, "has no counterpart: declare a `juno-hwmon` instrument in the platform" },
	{ "hwmon", NULL, "has no counterpart: declare a `juno-hwmon` instrument in the platform" },
	{ "daq", NULL, "has no counterpart in kvbench" },
	{ "delay", NULL, "has no counterpart in kvbench" },
	{ "fps", NULL, "has no counterpart in kvbench" },
	{ "sysfs_extractor", NULL, "has no counterpart in kvbench" },
	{ "execution_time", NULL, "has no meaning in kvbench: every job's start and end are stored" },
	{ "apk_version", NULL, "has no counterpart in kvbench" },
	{ "interrupts", NULL, "has no counterpart in kvbench" },
	{ "perf", NULL, "has no counterpart in kvbench" },
	{ "perfetto", NULL, "has no counterpart in kvbench" },
	{ "file_poller", NULL, "has no counterpart in kvbench" },
	{ "screen_capture", NULL, "has no counterpart in kvbench" },
	{ "serialmon", NULL, "has no counterpart in kvbench" },
	{ "cpustates", NULL, "has no counterpart in kvbench" },
	{ "csv", NULL, "has no meaning in kvbench: results go to its SQLite store (`kvbench export` writes CSV)" },
	{ "sqlite", NULL, "has no meaning in kvbench: results go to its SQLite store" },
	{ "postgres", NULL, "has no meaning in kvbench: results go to its SQLite store" },
	{ "status", NULL, "has no meaning in kvbench: `kvbench show` lists job status" },
	{ "json", NULL, "has no meaning in kvbench: `kvbench diff --format json`" },
	{ "targz", NULL, "has no meaning in kvbench" },
	{ "uxperf", NULL, "has no counterpart in kvbench" },
	{ "~~", NULL, "(disable all) has no meaning in kvbench: the platform's instruments are listed there" },
};

/* Merges every augmentation alias of o into o.instruments (kvbench names). */
static void augmentations(struct wa3 *w, cJSON *o, const char *path, int allowed)
{
	cJSON *out = NULL;
	for (int k = 0; augment_keys[k]; k++) {
		cJSON *v = cJSON_DetachItemFromObjectCaseSensitive(o, augment_keys[k]);
		char *kp;
		if (!v)
			continue;
		kp = kvb_path_key(path, augment_keys[k]);
		if (!allowed) {
			kvb_wa3_warn_once(w, kp, "key", augment_keys[k], "has no meaning in a kvbench section (instruments are run-wide or per workload)");
			cJSON_Delete(v);
			free(kp);
			continue;
		}
		if (!out)
			out = cJSON_CreateArray();
		for (cJSON *it = cJSON_IsArray(v) ? v->child : v; it; it = cJSON_IsArray(v) ? it->next : NULL) {
			const char *s = cJSON_IsString(it) ? it->valuestring : NULL;
			const char *name;
			int off, mapped = 0;
			if (!s) {
				cJSON_AddItemToArray(out, cJSON_Duplicate(it, 1));
				continue;
			}
			off = s[0] == '~' && s[1] != '~';
			name = s + off;
			for (size_t i = 0; i < KVB_ARRAY_SIZE(wa3_augs); i++) {
				if (!kvb_wa3_name_eq(name, wa3_augs[i].wa3) && strcmp(s, wa3_augs[i].wa3))
					continue;
				mapped = 1;
				if (wa3_augs[i].kvb) {
					char *n = kvb_xasprintf("%s%s", off ? "~" : "", wa3_augs[i].kvb);
					cJSON_AddItemToArray(out, cJSON_CreateString(n));
					free(n);
				} else {
					kvb_wa3_warn_once(w, kp, "instrument", wa3_augs[i].wa3, wa3_augs[i].why);
				}
				break;
			}
			if (!mapped)
				cJSON_AddItemToArray(out, cJSON_CreateString(s));
		}
		cJSON_Delete(v);
		free(kp);
	}
	if (out)
		cJSON_AddItemToObject(o, "instruments", out);
}

enum level { L_CONFIG, L_SECTION, L_ENTRY };

static void jobspec(struct wa3 *w, cJSON *o, const char *path, enum level lv)
{
	static const char *const wparams[] = { "workload_parameters", "workload_params", "parameters", NULL };
	const char *pname = lv == L_ENTRY ? "params" : "workload_parameters";
	if (lv == L_ENTRY)
		rename_key(w, o, path, "workload_name", "name");
	else
		drop(w, o, path, "workload_name", "key", "names a workload outside a workload entry: no meaning in kvbench");
	for (int i = 0; wparams[i]; i++)
		if (strcmp(wparams[i], pname))
			rename_key(w, o, path, wparams[i], pname);
	if (lv == L_ENTRY && kvb_wa3_get(o, "workload_parameters"))
		rename_key(w, o, path, "workload_parameters", "params");
	drop(w, o, path, "boot_parameters", "key",
	     "has no meaning in kvbench: give a kernel command line per variant (variants[].cmdline)");
	drop(w, o, path, "boot_params", "key",
	     "has no meaning in kvbench: give a kernel command line per variant (variants[].cmdline)");
	drop(w, o, path, "flash", "key", "has no meaning in kvbench: variants name the kernels to flash");
	if (lv != L_ENTRY)
		drop(w, o, path, "label", "key", "has no meaning outside a workload entry in kvbench");
	augmentations(w, o, path, lv != L_SECTION);
	for (int i = 0; i < 2; i++) {
		const char *k = i ? "runtime_params" : "runtime_parameters";
		char *p = kvb_path_key(path, k);
		kvb_wa3_runtime(w, kvb_wa3_get(o, k), p);
		free(p);
	}
	if (lv == L_SECTION) {
		char *p = kvb_path_key(path, "params");
		kvb_wa3_runtime(w, kvb_wa3_get(o, "params"), p);
		free(p);
	}
}

static int is_known_config_key(const char *k)
{
	/* kvbench's own config keys (config/agenda.c's table), and WA3's spellings of them */
	static const char *const wa3[] = { "runtime_parameters", "workload_parameters", "instruments", NULL };
	if (kvb_keydef_find(kvb_agenda_config_keydefs(), k))
		return 1;
	for (int i = 0; wa3[i]; i++)
		if (!strcmp(wa3[i], k))
			return 1;
	return 0;
}

/*
 * WA3's global aliases: plugin parameters settable by a top-level name in config
 * (Parameter(..., global_alias=...) in wa/, commit 251c263c), e.g. trace-cmd's `trace_events`
 * that LISA's and WA2's agendas use. WA3 takes them, so they are a warning here, not an
 * unknown key: {alias, the plugin it configures}.
 */
static const char *const global_aliases[][2] = {
	{ "trace_functions", "trace-cmd" }, { "trace_top_buffer_size", "trace-cmd" }, { "trace_buffer_size_step", "trace-cmd" },
	{ "perf_command", "perf" }, { "perf_events", "perf" }, { "perf_labels", "perf" }, { "perf_options", "perf" },
	{ "perf_report_options", "perf" }, { "perf_type", "perf" },
	{ "daq_channel_map", "energy_measurement" }, { "daq_device_id", "energy_measurement" },
	{ "daq_dv_range", "energy_measurement" }, { "daq_labels", "energy_measurement" },
	{ "daq_resistor_values", "energy_measurement" }, { "daq_sampling_rate", "energy_measurement" },
	{ "daq_server_host", "energy_measurement" }, { "daq_server_port", "energy_measurement" },
	{ "daq_v_range", "energy_measurement" },
	{ "fixed_delay_before_start", "delay" }, { "fixed_delay_between_jobs", "delay" },
	{ "fixed_delay_between_specs", "delay" }, { "thermal_sleep_time", "delay" }, { "thermal_temp_file", "delay" },
	{ "thermal_threshold_before_start", "delay" }, { "thermal_threshold_between_jobs", "delay" },
	{ "thermal_threshold_between_specs", "delay" }, { "thermal_timeout", "delay" },
	{ "sysfs_extract_dirs", "sysfs_extractor" }, { "sqlite_database", "sqlite" }, { "sqlite_overwrite", "sqlite" },
	{ "use_all_classifiers", "csv" }, { "always_fetch_remote_assets", "the resource getters" },
	{ "cleanup_assets", "workloads" }, { "remote_assets_path", "the resource getters" },
	{ "remote_assets_url", "the resource getters" },
};

/*
 * WA3 plugin parameters with a kvbench instrument key: {WA3 plugin, its parameter, its global
 * alias, kvbench's instrument type, its key}. trace-cmd's (wa/instruments/trace_cmd.py, commit
 * 251c263c): `events` (-e) and `buffer_size` (KB, -b) are what ftrace's events and buffer_kb take.
 */
static const char *const plugin_params[][5] = {
	{ "trace-cmd", "events", "trace_events", "ftrace", "events" },
	{ "trace-cmd", "buffer_size", "trace_buffer_size", "ftrace", "buffer_kb" },
};

/* o's settings block for kvbench instrument type kvb (`ftrace: {...}`), made when absent. */
static cJSON *settings_block(cJSON *o, const char *kvb)
{
	cJSON *b = cJSON_GetObjectItemCaseSensitive(o, kvb);
	return cJSON_IsObject(b) ? b : cJSON_AddObjectToObject(o, kvb);
}

/* Moves v to kvbench's key of WA3's plugin parameter (row i of plugin_params) in o's settings. */
static void move_param(cJSON *o, size_t i, cJSON *v)
{
	cJSON *b;
	if (cJSON_IsNull(v)) { /* WA3's `buffer_size: null` (its user guide's agenda): the default, i.e. unset */
		cJSON_Delete(v);
		return;
	}
	b = settings_block(o, plugin_params[i][3]);
	cJSON_DeleteItemFromObjectCaseSensitive(b, plugin_params[i][4]);
	cJSON_AddItemToObject(b, plugin_params[i][4], v);
}

/*
 * A WA3 plugin configuration block (`trace-cmd: {events: [...], buffer_size: 8192}`) of an
 * instrument with a kvbench counterpart: its parameters kvbench's instrument takes are moved to
 * that instrument's settings (agenda.c reads `ftrace: {...}` under config:), the others warned
 * about and dropped. Returns 1 when kv named such a plugin (kv is then consumed), else 0.
 */
static int plugin_block(struct wa3 *w, cJSON *o, cJSON *kv, const char *path)
{
	const char *plugin = NULL;
	cJSON *p, *next;
	for (size_t i = 0; i < sizeof(plugin_params) / sizeof(plugin_params[0]); i++)
		if (kvb_wa3_name_eq(kv->string, plugin_params[i][0]))
			plugin = plugin_params[i][0];
	if (!plugin || !cJSON_IsObject(kv))
		return 0;
	w->wa3_spelled = 1;
	cJSON_DetachItemViaPointer(o, kv);
	for (p = kv->child; p; p = next) {
		size_t i = 0, n = sizeof(plugin_params) / sizeof(plugin_params[0]);
		next = p->next;
		while (i < n && (strcmp(plugin_params[i][0], plugin) || !kvb_wa3_name_eq(p->string, plugin_params[i][1])))
			i++;
		if (i < n) {
			move_param(o, i, cJSON_DetachItemViaPointer(kv, p));
		} else if (!cJSON_IsNull(p)) { /* null is WA3's "the default": nothing is lost */
			char *bp = kvb_path_key(path, kv->string), *kp = kvb_path_key(bp, p->string);
			char *why = kvb_xasprintf("(a parameter of %s) has no counterpart in kvbench", plugin);
			kvb_wa3_warn_once(w, kp, "parameter", p->string, why);
			free(why);
			free(kp);
			free(bp);
		}
	}
	cJSON_Delete(kv);
	return 1;
}

static void config(struct wa3 *w, cJSON *o, const char *path)
{
	cJSON *kv, *next;
	if (!cJSON_IsObject(o))
		return;
	for (size_t i = 0; i < sizeof(plugin_params) / sizeof(plugin_params[0]); i++) {
		cJSON *v = cJSON_DetachItemFromObjectCaseSensitive(o, plugin_params[i][2]);
		if (v) {
			w->wa3_spelled = 1;
			move_param(o, i, v);
		}
	}
	for (int i = 0; kvb_wa3_run_settings[i]; i++)
		drop(w, o, path, kvb_wa3_run_settings[i], "run setting", "has no meaning in kvbench");
	for (size_t i = 0; i < sizeof(global_aliases) / sizeof(global_aliases[0]); i++) {
		char *why = kvb_xasprintf("(a parameter of %s) has no meaning in kvbench%s", global_aliases[i][1],
					  !strcmp(global_aliases[i][1], "trace-cmd")
						  ? ": kvbench's ftrace instrument takes events and buffer_kb (trace_events, trace_buffer_size)"
						  : "");
		drop(w, o, path, global_aliases[i][0], "global alias", why);
		free(why);
	}
	jobspec(w, o, path, L_CONFIG);
	/* WA3 takes what is left as plugin configuration (`trace-cmd: {buffer_size: ...}`, `csv: {...}`);
	   kvbench's own instrument settings (`ftrace: {...}`) stay for agenda.c */
	for (kv = o->child; kv; kv = next) {
		struct kvb_catalog_backend be;
		next = kv->next;
		if (is_known_config_key(kv->string) || !kvb_catalog_find_instrument(w->catalog, kv->string, &be) ||
		    plugin_block(w, o, kv, path))
			continue;
		if (cJSON_IsObject(kv)) {
			char *p = kvb_path_key(path, kv->string);
			kvb_wa3_warn_once(w, p, "plugin configuration", kv->string, "has no meaning in kvbench");
			free(p);
			cJSON_Delete(cJSON_DetachItemViaPointer(o, kv));
		}
	}
}

/* p holds a parameter only WA3's version of the workload has (a row other than WARN_IF_WA3): a WA3 agenda. */
static int has_wa3_param(const struct kvb_wa3_param *t, cJSON *p)
{
	for (; t->wa3; t++)
		if (t->conv != KVB_WA3_WARN_IF_WA3 && kvb_wa3_get(p, t->wa3))
			return 1;
	return 0;
}

/* One row of a workload's WA3 translation (workload.h) applied to its entry e, parameters p at path pp. */
static void wa3_param(struct wa3 *w, cJSON *e, cJSON *p, const char *pp, const char *what,
		      const struct kvb_wa3_param *t, int wa3_agenda)
{
	cJSON *v = kvb_wa3_get(p, t->wa3);
	char *kp;
	switch (t->conv) {
	case KVB_WA3_RENAME:
		rename_key(w, p, pp, t->wa3, t->to);
		break;
	case KVB_WA3_TO_ENTRY:
		if (v && !kvb_wa3_get(e, t->to))
			cJSON_AddItemToObject(e, t->to, cJSON_DetachItemViaPointer(p, v));
		break;
	case KVB_WA3_CPU_MASK:
		if (v && (cJSON_IsNumber(v) || cJSON_IsString(v) || cJSON_IsArray(v))) {
			kvb_wa3_cpu_mask_knob(e, v, t->to);
			cJSON_DeleteItemFromObjectCaseSensitive(p, t->wa3);
		}
		break;
	case KVB_WA3_DROP:
		drop(w, p, pp, t->wa3, what, t->why);
		break;
	case KVB_WA3_REFUSE_UNLESS_EMPTY:
		if (v && !(cJSON_IsString(v) && !*v->valuestring)) {
			kp = kvb_path_key(pp, t->wa3);
			kvb_diag_at(w->d, kp, "%s", t->why);
			free(kp);
			cJSON_DeleteItemFromObjectCaseSensitive(p, t->wa3);  /* the error says it all */
		} else {
			drop(w, p, pp, t->wa3, what, "is empty: nothing to apply");
		}
		break;
	case KVB_WA3_WARN_IF_WA3:
		if (v && wa3_agenda) {
			kp = kvb_path_key(pp, t->wa3);
			kvb_diag_warn_at(w->d, kp, "%s", t->why);
			free(kp);
		}
		break;
	}
}

/* Workload parameters of WA3's version of workload wl, translated by its ops' wa3_params table, in order. */
static void workload_params(struct wa3 *w, cJSON *e, const struct kvb_catalog_workload *wl, const char *path)
{
	cJSON *p = kvb_wa3_get(e, "params");
	char *pp, *what;
	int wa3_agenda;
	if (!cJSON_IsObject(p) || !wl->wa3_params)
		return;
	pp = kvb_path_key(path, "params");
	what = kvb_xasprintf("%s parameter", wl->name);
	/* decided before any row applies: a row that moves a WA3 parameter away still says the agenda is WA3's */
	wa3_agenda = w->wa3_spelled || has_wa3_param(wl->wa3_params, p);
	for (const struct kvb_wa3_param *t = wl->wa3_params; t->wa3; t++)
		wa3_param(w, e, p, pp, what, t, wa3_agenda);
	free(what);
	free(pp);
}

/* Resolves a WA3 plugin name to kvbench's workload of that name (case, '-' and '_' ignored) into *wl: 0, or -1. */
static int workload_of(const struct wa3 *w, const char *n, struct kvb_catalog_workload *wl)
{
	for (size_t i = 0; !w->catalog->workload(i, wl); i++)
		if (kvb_wa3_name_eq(n, wl->name))
			return 0;
	return -1;
}

static void entry(struct wa3 *w, cJSON *list, cJSON *e, const char *path)
{
	cJSON *n;
	struct kvb_catalog_workload wl;
	if (cJSON_IsString(e)) {
		if (!workload_of(w, e->valuestring, &wl) && strcmp(wl.name, e->valuestring))
			cJSON_ReplaceItemViaPointer(list, e, cJSON_CreateString(wl.name));
		return;
	}
	if (!cJSON_IsObject(e))
		return;
	jobspec(w, e, path, L_ENTRY);
	n = kvb_wa3_get(e, "name");
	if (!cJSON_IsString(n) || workload_of(w, n->valuestring, &wl))
		return;
	if (strcmp(wl.name, n->valuestring))
		cJSON_ReplaceItemInObjectCaseSensitive(e, "name", cJSON_CreateString(wl.name));
	workload_params(w, e, &wl, path);
}

static void entries(struct wa3 *w, cJSON *list, const char *path)
{
	int i = 0;
	cJSON *next;
	if (!cJSON_IsArray(list))
		return;
	for (cJSON *e = list->child; e; e = next, i++) {
		char *p = kvb_path_idx(path, i);
		next = e->next;
		entry(w, list, e, p);
		free(p);
	}
}

/*
 * Run-wide boot_parameters {k: v} become kernel command line words "k=v" (a true value: "k")
 * added to every variant the agenda declares: on a platform that flashes they are booted
 * with, elsewhere the identity check fails the variant saying the option is missing from
 * /proc/cmdline. Without declared variants they stay a warning (variants[].cmdline).
 */
static void boot_params_to_variants(struct wa3 *w, cJSON *r, const char *cfgname)
{
	cJSON *cfg = kvb_wa3_get(r, cfgname), *bp, *vs = kvb_wa3_get(r, "variants");
	const char *key = "boot_parameters";
	struct kvb_buf words = KVB_BUF_INIT;
	char *p;
	if (!cJSON_IsObject(cfg))
		return;
	bp = kvb_wa3_get(cfg, key);
	if (!bp) {
		key = "boot_params";
		bp = kvb_wa3_get(cfg, key);
	}
	if (!cJSON_IsObject(bp) || !cJSON_IsArray(vs) || !vs->child)
		return;
	for (const cJSON *kv = bp->child; kv; kv = kv->next) {
		char *v = cJSON_IsTrue(kv) ? NULL : kvb_node_str(kv);
		if (cJSON_IsFalse(kv) || cJSON_IsNull(kv)) {
			free(v);
			continue;
		}
		kvb_buf_addf(&words, "%s%s%s%s", words.len ? " " : "", kv->string, v ? "=" : "", v ? v : "");
		free(v);
	}
	for (cJSON *v = vs->child; v && words.len; v = v->next) {
		const char *old = cJSON_IsObject(v) ? kvb_get_str(v, "cmdline", NULL) : NULL;
		char *cl;
		if (!cJSON_IsObject(v))
			continue;
		cl = old && *old ? kvb_xasprintf("%s %s", old, words.data) : kvb_xstrdup(words.data);
		cJSON_DeleteItemFromObjectCaseSensitive(v, "cmdline");
		cJSON_AddStringToObject(v, "cmdline", cl);
		free(cl);
	}
	p = kvb_path_key(cfgname, key);
	kvb_diag_warn_at(w->d, p, "WA3 %s added to every variant's kernel command line: '%s'", key, words.data);
	free(p);
	kvb_buf_release(&words);
	cJSON_DeleteItemFromObjectCaseSensitive(cfg, key);
}

cJSON *kvb_wa3_normalize(const cJSON *root, const char *file, const struct kvb_catalog *cat, struct kvb_diag *d)
{
	struct wa3 w = { .d = d, .catalog = cat };
	cJSON *r = cJSON_Duplicate(root, 1), *s;
	includes(&w, r, file ? file : "", "", 0);
	boot_params_to_variants(&w, r, "config");
	boot_params_to_variants(&w, r, "global");
	config(&w, kvb_wa3_get(r, "config"), "config");
	config(&w, kvb_wa3_get(r, "global"), "global");
	entries(&w, kvb_wa3_get(r, "workloads"), "workloads");
	s = kvb_wa3_get(r, "sections");
	if (cJSON_IsArray(s)) {
		int i = 0;
		for (cJSON *x = s->child; x; x = x->next, i++) {
			char *p = kvb_path_idx("sections", i), *wp;
			if (cJSON_IsObject(x)) {
				jobspec(&w, x, p, L_SECTION);
				wp = kvb_path_key(p, "workloads");
				entries(&w, kvb_wa3_get(x, "workloads"), wp);
				free(wp);
			}
			free(p);
		}
	}
	kvb_strv_release(&w.warned);
	return r;
}
