/*
 * WA3 agendas as WA3 3.x reads them: the field's agendas (tests/fixtures/field/wa3-agenda/
 * PROVENANCE) and WA3 spellings of kvbench's own workloads.
 */
#include "config/agenda.h"
#include "engine/catalog.h"
#include "config/margins.h"
#include "config/platform.h"
#include "config/wa3.h"
#include "engine/preflight.h"
#include "workload/workload.h"
#include "core/buf.h"
#include "test.h"

#include <stdlib.h>

#define FIELD KVB_SOURCE_DIR "/tests/fixtures/field/wa3-agenda"

static int load_text(struct kvb_agenda *a, struct kvb_diag *d, const char *text)
{
	struct kvb_doc doc;
	int rc;
	kvb_diag_init(d, NULL);
	rc = kvb_doc_parse(&doc, "wa3.yaml", text, strlen(text), d);
	if (!rc)
		rc = kvb_agenda_from_doc(a, &doc, &kvb_catalog, d);
	else
		memset(a, 0, sizeof(*a));
	d->doc = NULL;
	kvb_doc_release(&doc);
	return rc;
}

static const char *joined(const struct kvb_strv *v)
{
	static struct kvb_buf b = KVB_BUF_INIT;
	kvb_buf_reset(&b);
	for (size_t i = 0; i < v->n; i++)
		kvb_buf_addf(&b, "%s\n", v->v[i]);
	return b.data;
}

/* WA3's own include test (tests/data/includes): include# at the top, in config, in sections, nested. */
static void test_wa3__include_merges_as_wa3_does(void)
{
	struct kvb_doc doc;
	struct kvb_diag d;
	cJSON *r;
	const cJSON *s, *c;
	kvb_diag_init(&d, NULL);
	CHECK(kvb_doc_load(&doc, FIELD "/tests-data/includes/agenda.yaml", &d) == KVB_OK);
	d.doc = &doc;
	r = kvb_wa3_normalize(doc.root, doc.file, &kvb_catalog, &d);
	CHECK(d.msgs.n == 0);
	/* config: included [cpufreq, trace-cmd] then own [~execution_time]; trace-cmd is ftrace here,
	   execution_time has no counterpart (a warning). */
	c = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "config"), "instruments");
	CHECK(cJSON_GetArraySize(c) == 2);
	CHECK_STR(cJSON_GetArrayItem(c, 0)->valuestring, "cpufreq");
	CHECK_STR(cJSON_GetArrayItem(c, 1)->valuestring, "ftrace");
	CHECK_CONTAINS(joined(&d.warnings), "ignored: WA3 instrument 'execution_time' has no meaning in kvbench");
	/* top-level include#: the workloads */
	c = cJSON_GetObjectItem(r, "workloads");
	CHECK(cJSON_GetArraySize(c) == 2);
	CHECK_STR(cJSON_GetArrayItem(c, 0)->valuestring, "dhrystone");
	/* sections: section2 includes ../section-include.yaml (relative to itself) */
	s = cJSON_GetObjectItem(r, "sections");
	CHECK(cJSON_GetArraySize(s) == 2);
	CHECK_STR(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(s, 0), "classifiers"), "section")->valuestring,
		  "one");
	c = cJSON_GetObjectItem(cJSON_GetArrayItem(s, 1), "classifiers");
	CHECK_STR(cJSON_GetObjectItem(c, "section")->valuestring, "two");
	CHECK(cJSON_IsTrue(cJSON_GetObjectItem(c, "included")));
	CHECK(!cJSON_GetObjectItem(r, "include#"));
	cJSON_Delete(r);
	kvb_doc_release(&doc);
	kvb_diag_release(&d);
}

/* WA3's tests/data/test-agenda.yaml: global boot_parameters and cluster runtime parameters warn, never fail. */
static void test_wa3__test_agenda_fails_only_on_workloads_kvbench_lacks(void)
{
	struct kvb_agenda a;
	struct kvb_diag d;
	const char *msgs, *warns;
	kvb_diag_init(&d, NULL);
	CHECK(kvb_agenda_load(&a, FIELD "/tests-data/test-agenda.yaml", &kvb_catalog, &d) == KVB_EINPUT);
	msgs = joined(&d.msgs);
	CHECK(d.msgs.n == 4);
	CHECK_CONTAINS(msgs, "workloads[0].name: unknown workload \"exoplayer\" (known: hackbench");
	CHECK_CONTAINS(msgs, "unknown workload \"antutu\"");
	warns = joined(&d.warnings);
	CHECK_CONTAINS(warns, "test-agenda.yaml:3:9: global.boot_parameters: ignored: WA3 key 'boot_parameters'");
	CHECK(!strstr(warns, "'a7_governor'"));  /* a cluster governor: cpufreq knob, checked against the platform */
	CHECK_CONTAINS(warns, "ignored: WA3 runtime parameter 'a7_cores' has no kvbench knob");  /* WA2's name */
	CHECK_CONTAINS(warns, "ignored: WA3 runtime parameter 'os_mode'");
	kvb_agenda_release(&a);
	kvb_diag_release(&d);
}

/* WA3 spellings of kvbench's workloads: names, aliases, params, cpuN runtime parameters, plugin blocks. */
static void test_wa3__spellings_of_kvbench_workloads_are_honoured(void)
{
	struct kvb_agenda a;
	struct kvb_diag d;
	const char *warns;
	const cJSON *v;
	int rc = load_text(&a, &d,
			   "config:\n"
			   "  run_name: trial\n"
			   "  allow_phone_home: false\n"
			   "  instrumentation: [trace-cmd, csv]\n"
			   "  trace-cmd: {buffer_size: 10000}\n"
			   "  label: x\n"
			   "sections:\n"
			   "  - id: perf\n"
			   "    label: fast\n"
			   "    params: {cpu0_governor: performance, big_governor: schedutil}\n"
			   "workloads:\n"
			   "  - workload_name: Rt_App\n"
			   "    parameters: {config: " KVB_SOURCE_DIR
			   "/tests/fixtures/field/rt-app-config/wa3/taskset.json, duration: 5, taskset_mask: 0x6}\n"
			   "  - name: HACKBENCH\n"
			   "    boot_params: {os_mode: mp}\n"
			   "    workload_params: {groups: 4, timeout: 60, extra_params: ''}\n"
			   "  - name: jankbench\n"
			   "    params: {test_ids: [list_view], loops: 3, pull_results_db: true}\n");
	for (size_t i = 0; i < d.msgs.n; i++)
		fprintf(stderr, "%s\n", d.msgs.v[i]);
	CHECK(rc == KVB_OK);
	if (rc)
		return;
	CHECK(a.nspecs == 3);
	CHECK_STR(a.specs[0].workload, "rt-app");
	CHECK(cJSON_GetObjectItem(a.specs[0].params, "duration_s")->valueint == 5);
	CHECK_STR(a.specs[0].rt.cpus, "1,2");  /* mask 0x6 */
	CHECK(!cJSON_GetObjectItem(a.specs[0].params, "taskset_mask"));
	CHECK_STR(a.specs[1].workload, "hackbench");
	CHECK(a.specs[1].timeout_s == 60);
	CHECK(cJSON_GetObjectItem(a.specs[1].params, "groups")->valueint == 4);
	CHECK(cJSON_GetObjectItem(a.specs[2].params, "reps")->valueint == 3);
	/* the section's cpu0_governor is a sysfs knob on cpu0's cpufreq */
	v = cJSON_GetObjectItem(a.specs[0].rt.sysfs, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
	CHECK(cJSON_IsString(v) && !strcmp(v->valuestring, "performance"));
	CHECK(cJSON_GetArraySize(a.instruments) == 1);
	CHECK_STR(cJSON_GetArrayItem(a.instruments, 0)->valuestring, "ftrace");
	warns = joined(&d.warnings);
	CHECK_CONTAINS(warns, "config.run_name: ignored: WA3 run setting 'run_name' has no meaning in kvbench");
	CHECK_CONTAINS(warns, "ignored: WA3 run setting 'allow_phone_home'");
	CHECK(!strstr(warns, "trace-cmd")); /* its buffer_size is ftrace's buffer_kb now */
	CHECK(cJSON_GetObjectItem(cJSON_GetObjectItem(a.instrument_settings, "ftrace"), "buffer_kb")->valueint == 10000);
	CHECK_CONTAINS(warns, "ignored: WA3 instrument 'csv'");
	/* the section's big_governor is the per-cluster cpufreq knob (no warning) */
	v = cJSON_GetObjectItem(cJSON_GetObjectItem(a.specs[0].rt.cpufreq, "big"), "governor");
	CHECK(cJSON_IsString(v) && !strcmp(v->valuestring, "schedutil"));
	CHECK(!strstr(warns, "'big_governor'"));
	CHECK_CONTAINS(warns, "ignored: WA3 key 'boot_params'");
	CHECK_CONTAINS(warns, "ignored: WA3 jankbench parameter 'pull_results_db'");
	CHECK_CONTAINS(warns, "config.label: ignored: WA3 key 'label' has no meaning outside a workload entry");
	kvb_agenda_release(&a);
	kvb_diag_release(&d);
	/* Run-wide boot parameters go onto every declared variant's command line. */
	CHECK(load_text(&a, &d,
			"global: {boot_parameters: {os_mode: mp_a15_bootcluster, quiet: true}}\n"
			"variants: [{name: a, cmdline: 'maxcpus=2'}, {name: b}]\n"
			"workloads: [hackbench]\n") == KVB_OK);
	CHECK(a.nvariants == 2);
	CHECK_STR(a.variants[0].cmdline, "maxcpus=2 os_mode=mp_a15_bootcluster quiet");
	CHECK_STR(a.variants[1].cmdline, "os_mode=mp_a15_bootcluster quiet");
	CHECK_CONTAINS(joined(&d.warnings), "global.boot_parameters: WA3 boot_parameters added to every variant's kernel");
	kvb_agenda_release(&a);
	kvb_diag_release(&d);
	/* What kvbench cannot apply is an error; an unknown workload still lists the known ones. */
	CHECK(load_text(&a, &d,
			"workloads:\n"
			"  - name: hackbench\n"
			"    params: {extra_params: '-T'}\n"
			"  - name: dhry_stone\n") == KVB_EINPUT);
	CHECK_CONTAINS(joined(&d.msgs), "workloads[0].params.extra_params: WA3 hackbench extra_params cannot be applied");
	CHECK(!strstr(joined(&d.warnings), "extra_params"));  /* not also "ignored: ... is empty" (seen on a real WA3 agenda) */
	CHECK_CONTAINS(joined(&d.msgs), "unknown workload \"dhry_stone\" (known: hackbench, ");
	kvb_agenda_release(&a);
	kvb_diag_release(&d);
}

/*
 * WA3's CpufreqRuntimeConfig names per cluster (wa/framework/target/runtime_config.py, commit
 * 251c263c): NAME_governor / NAME_frequency / NAME_min_frequency / NAME_max_frequency are the
 * per-cluster cpufreq knob; a section's and a job's keys for one cluster both hold (WA3 merges per
 * parameter). CPU hotplug (num_NAME_cores, num_cores, cpuN_online) has no kvbench knob: the job
 * fails with the reason, never runs without it.
 */
static void test_wa3__cluster_runtime_params_become_cpufreq_knobs(void)
{
	struct kvb_agenda a;
	struct kvb_diag d;
	struct kvb_error err;
	const cJSON *big, *little;
	int rc = load_text(&a, &d,
			   "sections:\n"
			   "  - id: s1\n"
			   "    runtime_params: {big_governor: userspace, little_max_frequency: 1402000}\n"
			   "workloads:\n"
			   "  - name: hackbench\n"
			   "    runtime_parameters: {big_frequency: 2362000, little_min_frequency: 533000}\n"
			   "  - name: hackbench\n"
			   "    id: hp\n"
			   "    runtime_parameters: {num_big_cores: 2, big_gov_tunables: {rate_limit_us: 500}}\n");
	for (size_t i = 0; i < d.msgs.n; i++)
		fprintf(stderr, "%s\n", d.msgs.v[i]);
	CHECK(rc == KVB_OK);
	if (rc)
		return;
	CHECK(a.nspecs == 2);
	big = cJSON_GetObjectItem(a.specs[0].rt.cpufreq, "big");
	little = cJSON_GetObjectItem(a.specs[0].rt.cpufreq, "little");
	CHECK_STR(cJSON_GetObjectItem(big, "governor")->valuestring, "userspace");
	CHECK(cJSON_GetObjectItem(big, "frequency")->valuedouble == 2362000);
	CHECK(cJSON_GetObjectItem(little, "max_freq")->valuedouble == 1402000);
	CHECK(cJSON_GetObjectItem(little, "min_freq")->valuedouble == 533000);
	CHECK(!a.specs[0].rt.unapplied);
	CHECK(kvb_runtime_check_applicable(&a.specs[0].rt, &err) == KVB_OK);
	/* the second job carries hotplug and tunables: it fails, naming the key and why */
	CHECK(cJSON_GetObjectItem(a.specs[1].rt.unapplied, "num_big_cores")->valueint == 2);
	/* big_gov_tunables is the cluster's tunables (applied with its governor, or the job fails saying so) */
	CHECK(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(a.specs[1].rt.cpufreq, "big"), "tunables"),
				  "rate_limit_us")->valueint == 500);
	CHECK(!cJSON_GetObjectItem(a.specs[1].rt.unapplied, "big_gov_tunables"));
	CHECK(kvb_runtime_check_applicable(&a.specs[1].rt, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "runtime parameter 'num_big_cores' cannot be applied: CPU hotplug");
	CHECK_CONTAINS(kvb_runtime_unapplied_reason("cpu4_gov_tunables"), "governor tunables");
	CHECK_CONTAINS(joined(&d.warnings), "runtime_parameters.num_big_cores: WA3 runtime parameter 'num_big_cores' cannot be applied, its jobs will fail: CPU hotplug");
	kvb_agenda_release(&a);
	kvb_diag_release(&d);
}

/* A cluster the platform does not declare is a preflight problem naming the WA3 key and the known clusters. */
static void test_wa3__unknown_cluster_is_named_before_the_run(void)
{
	struct kvb_agenda a;
	struct kvb_platform p;
	struct kvb_diag d, pd;
	struct kvb_preflight pf = { KVB_STRV_INIT, KVB_STRV_INIT };
	const char *probs;
	CHECK(load_text(&a, &d,
			"workloads:\n"
			"  - name: hackbench\n"
			"    runtime_parameters: {a15_governor: performance, a15_frequency: 1800000, big_governor: schedutil,\n"
			"                         A53_governor: powersave,\n"
			"                         num_little_cores: 2}\n") == KVB_OK);
	kvb_diag_init(&pd, NULL);
	CHECK(kvb_platform_load(&p, KVB_SOURCE_DIR "/platforms/hikey960", &kvb_catalog, &pd) == KVB_OK);
	kvb_preflight_run(&a, &p, 1, 0, 0, &pf);
	probs = joined(&pf.problems);
	CHECK_CONTAINS(probs, "job 'hackbench': runtime knob cpufreq.a15 (WA3 'a15_governor', 'a15_frequency'): 'a15' names "
			      "no cluster (name or core type) in topology.clusters of platform 'hikey960' (known: little "
			      "(cortex-a53), big (cortex-a73))");
	CHECK_CONTAINS(probs, "WA3 runtime parameter 'num_little_cores' cannot be applied: CPU hotplug");
	CHECK(!strstr(probs, "cpufreq.big"));
	CHECK(!strstr(probs, "cpufreq.A53"));  /* WA3's core name: hikey960's little cluster is cortex-a53 */
	kvb_preflight_release(&pf);
	kvb_platform_release(&p);
	kvb_diag_release(&pd);
	kvb_agenda_release(&a);
	kvb_diag_release(&d);
}

/*
 * Every LISA wltests agenda and every whole, valid-YAML agenda of WA3's agenda documentation
 * loads; what is left are workloads kvbench does not have (Android apps, dhrystone, memcpy).
 * Not loaded on purpose: docs l198, l509, l705 (not valid YAML as printed), l597, l624, l663,
 * l675 (config fragments without workloads, which WA3 refuses too).
 */
static void test_wa3__field_agendas_fail_only_on_missing_workloads(void)
{
	static const char *const files[] = {
		"lisa-wltests/example-exoplayer-simple.yaml", "lisa-wltests/example-jankbench.yaml",
		"lisa-wltests/example-rich.yaml", "lisa-wltests/sched-evaluation-full-traced.yaml",
		"lisa-wltests/sched-evaluation-full.yaml", "lisa-wltests/sched-evaluation-small.yaml",
		"docs/howtos-agenda-l25.yaml", "docs/howtos-agenda-l66.yaml", "docs/howtos-agenda-l84.yaml",
		"docs/howtos-agenda-l99.yaml", "docs/howtos-agenda-l128.yaml", "docs/howtos-agenda-l159.yaml",
		"docs/howtos-agenda-l318.yaml", "docs/howtos-agenda-l354.yaml", "docs/howtos-agenda-l442.yaml",
		"docs/howtos-agenda-l757.yaml", "docs/userreference-agenda-l21.yaml",
	};
	int clean = 0;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *path = kvb_xasprintf("%s/%s", FIELD, files[i]);
		struct kvb_agenda a;
		struct kvb_diag d;
		kvb_diag_init(&d, NULL);
		if (kvb_agenda_load(&a, path, &kvb_catalog, &d) == KVB_OK)
			clean++;
		for (size_t k = 0; k < d.msgs.n; k++)
			if (!strstr(d.msgs.v[k], "unknown workload \"")) {
				fprintf(stderr, "%s\n", d.msgs.v[k]);
				CHECK(0);
			}
		kvb_agenda_release(&a);
		kvb_diag_release(&d);
		free(path);
	}
	CHECK(clean == 1);  /* example-jankbench.yaml names only jankbench */
}

/*
 * `config` and `global` together (WA2's example agendas, LISA's antutu agenda: tests/fixtures/field/
 * wa3-agenda/PROVENANCE): WA3's AgendaParser loads config, then global, into one state
 * (parsers.py _populate_and_validate_config): a key of global overrides config's; runtime
 * parameters, workload parameters and classifiers merge key by key, augmentations concatenate
 * (merge_config_values). Once refused here with "both 'config' and its alias 'global'".
 */
static void test_wa3__config_and_global_merge_as_wa3_reads_them(void)
{
	struct kvb_agenda a;
	struct kvb_diag d;
	int rc = load_text(&a, &d,
			   "config:\n"
			   "  iterations: 2\n"
			   "  max_retries: 5\n"
			   "  execution_order: by_section\n"
			   "  instruments: [util, cpufreq]\n"
			   "  runtime_params: {sysctl: {kernel.sched_autogroup_enabled: 0}, governor: performance}\n"
			   "  classifiers: {kernel: a, tag: x1}\n"
			   "  workload_parameters: {loops: 7, groups: 3}\n"
			   "global:\n"
			   "  iterations: 5\n"
			   "  instruments: [~cpufreq]\n"
			   "  runtime_params: {governor: schedutil}\n"
			   "  classifiers: {kernel: b}\n"
			   "  workload_parameters: {groups: 4}\n"
			   "workloads: [hackbench]\n");
	for (size_t i = 0; i < d.msgs.n; i++)
		fprintf(stderr, "%s\n", d.msgs.v[i]);
	CHECK(rc == KVB_OK);
	if (!rc && a.nspecs == 1) {
		const struct kvb_spec *sp = &a.specs[0];
		CHECK(sp->iterations == 5);             /* global's */
		CHECK(a.max_retries == 5);              /* config's: global has none */
		CHECK(a.order == KVB_ORDER_BY_SECTION); /* config's */
		CHECK_STR(sp->rt.governor, "schedutil"); /* global's key wins ... */
		CHECK(cJSON_GetObjectItem(sp->rt.sysctl, "kernel.sched_autogroup_enabled") != NULL); /* ... config's stays */
		CHECK_STR(cJSON_GetObjectItem(sp->classifiers, "kernel")->valuestring, "b");
		CHECK_STR(cJSON_GetObjectItem(sp->classifiers, "tag")->valuestring, "x1");
		CHECK(cJSON_GetObjectItem(sp->params, "groups")->valueint == 4);
		CHECK(cJSON_GetObjectItem(sp->params, "loops")->valueint == 7);
		/* [util, cpufreq] + [~cpufreq]: the toggle comes after, so cpufreq is off when the set is built */
		CHECK(cJSON_GetArraySize(a.instruments) == 3);
		CHECK_STR(cJSON_GetArrayItem(a.instruments, 2)->valuestring, "~cpufreq");
	}
	kvb_agenda_release(&a);
	kvb_diag_release(&d);
	/* the field's: only workloads kvbench lacks (antutu, dhrystone, ...) or WA2 keys remain errors */
	static const char *const files[] = { "wlauto/agenda-example-tutorial.yaml", "wlauto/agenda-example-biglittle.yaml",
					     "lisa-android/antutu.yaml" };
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *path = kvb_xasprintf("%s/%s", FIELD, files[i]);
		kvb_diag_init(&d, NULL);
		kvb_agenda_load(&a, path, &kvb_catalog, &d);
		CHECK(!strstr(joined(&d.msgs), "both 'config' and its alias 'global'"));
		/* the rest are workloads kvbench lacks: WA3's global aliases (antutu's trace_events,
		   trace_buffer_size of trace-cmd) are warnings, as WA3 takes them */
		for (size_t k = 0; k < d.msgs.n; k++)
			if (!strstr(d.msgs.v[k], "unknown workload \"")) {
				fprintf(stderr, "%s\n", d.msgs.v[k]);
				CHECK(0);
			}
		kvb_agenda_release(&a);
		kvb_diag_release(&d);
		free(path);
	}
	/* margins merge as maps: global's key first, then config's (config/margins.c) */
	{
		cJSON *ag = cJSON_Parse("{\"config\": {\"margins\": {\"time\": 2, \"default\": 1}},"
					" \"global\": {\"margins\": {\"default\": 3}}}");
		CHECK_NEAR(kvb_margin_from_agenda(ag, "hackbench", "time"), 0.02, 1e-12);
		CHECK_NEAR(kvb_margin_from_agenda(ag, "hackbench", "other"), 0.03, 1e-12);
		cJSON_Delete(ag);
	}
	/* the tutorial's global.iterations 5 reaches the jobs: its cyclictest entry sets 10 of its own */
	CHECK(load_text(&a, &d,
			"config: {project: governor_comparison, run_name: x}\n"
			"global: {iterations: 5}\n"
			"workloads: [{name: cyclictest, iterations: 10}, hackbench]\n") == KVB_OK);
	CHECK(a.nspecs == 2 && a.specs[0].iterations == 10 && a.specs[1].iterations == 5);
	kvb_agenda_release(&a);
	kvb_diag_release(&d);
}

/*
 * WA3's rt-app use cases by name (LISA's rtapp.yaml: `config: mp3-short`, tests/fixtures/field/
 * wa3-agenda/PROVENANCE) and WA3's default use case when config is left out: resolved from
 * $KVB_RTAPP_USE_CASES (here WA3's shipped use cases, tests/fixtures/field/rt-app-config/wa3).
 */
static void test_wa3__rt_app_use_case_names_resolve(void)
{
	struct kvb_agenda a;
	struct kvb_diag d;
	int rc;
	setenv("KVB_RTAPP_USE_CASES", KVB_SOURCE_DIR "/tests/fixtures/field/rt-app-config/wa3", 1);
	kvb_diag_init(&d, NULL);
	rc = kvb_agenda_load(&a, FIELD "/lisa-android/rtapp.yaml", &kvb_catalog, &d);
	for (size_t i = 0; i < d.msgs.n; i++)
		fprintf(stderr, "%s\n", d.msgs.v[i]);
	CHECK(rc == KVB_OK);
	CHECK(a.nspecs == 1 && !strcmp(a.specs[0].workload, "rt-app"));
	kvb_agenda_release(&a);
	kvb_diag_release(&d);
	rc = load_text(&a, &d, "workloads: [{name: rt_app, params: {duration: 3}}]\n");
	for (size_t i = 0; i < d.msgs.n; i++)
		fprintf(stderr, "%s\n", d.msgs.v[i]);
	CHECK(rc == KVB_OK);
	kvb_agenda_release(&a);
	kvb_diag_release(&d);
	unsetenv("KVB_RTAPP_USE_CASES");
	setenv("KVB_WA3_PACKAGE_DIR", "", 1);
	CHECK(load_text(&a, &d, "workloads: [{name: rt_app, params: {config: no-such-case}}]\n") == KVB_EINPUT);
	CHECK_CONTAINS(joined(&d.msgs), "workloads[0].params.config: rt-app config 'no-such-case': no file no-such-case.json in");
	CHECK_CONTAINS(joined(&d.msgs), "set KVB_RTAPP_USE_CASES");
	unsetenv("KVB_WA3_PACKAGE_DIR");
	kvb_agenda_release(&a);
	kvb_diag_release(&d);
}

/* WA3's rt_app cpus is a cpu_mask: "0-1" and [0, 1] are accepted by WA3 (once 'unknown key cpus' here). */
static void test_wa3__rt_app_cpus_lists_map_to_the_cpus_knob(void)
{
	struct kvb_agenda a;
	struct kvb_diag d;
	int rc = load_text(&a, &d,
			   "workloads:\n"
			   "  - {name: rt_app, id: s, params: {config: " KVB_SOURCE_DIR "/tests/fixtures/field/rt-app-config/wa3/taskset.json, cpus: \"0-1\"}}\n"
			   "  - {name: rt_app, id: l, params: {config: " KVB_SOURCE_DIR "/tests/fixtures/field/rt-app-config/wa3/taskset.json, cpus: [0, 2]}}\n"
			   "  - {name: rt_app, id: h, params: {config: " KVB_SOURCE_DIR "/tests/fixtures/field/rt-app-config/wa3/taskset.json, cpus: \"0x5\"}}\n");
	for (size_t i = 0; i < d.msgs.n; i++)
		fprintf(stderr, "%s\n", d.msgs.v[i]);
	CHECK(rc == KVB_OK);
	CHECK(a.nspecs == 3);
	if (a.nspecs == 3) {
		CHECK_STR(a.specs[0].rt.cpus, "0-1");
		CHECK_STR(a.specs[1].rt.cpus, "0,2");
		CHECK_STR(a.specs[2].rt.cpus, "0,2"); /* mask 0x5 */
		CHECK(!cJSON_GetObjectItem(a.specs[1].params, "cpus"));
	}
	kvb_agenda_release(&a);
	kvb_diag_release(&d);
}

/* WA3's hackbench declares fds but never passes it (`hackbench -s -g -l` only): kvbench does, so a WA3 agenda's
 * fds gets a warning; kvbench's own agenda (no WA3 spelling) does not. */
static void test_wa3__hackbench_fds_warns_that_wa3_never_passed_it(void)
{
	struct kvb_agenda a;
	struct kvb_diag d;
	int rc = load_text(&a, &d, "workloads:\n  - name: hackbench\n    workload_parameters: {groups: 2, fds: 10}\n");
	CHECK(rc == KVB_OK);
	CHECK(d.warnings.n == 1);
	CHECK(d.warnings.n == 1 && strstr(d.warnings.v[0], "wa3.yaml:2:5: workloads[0].params.fds: kvbench passes fds to hackbench (-f); WA3's hackbench never did"));
	for (size_t i = 0; i < d.warnings.n; i++)
		fprintf(stderr, "%s\n", d.warnings.v[i]);
	kvb_agenda_release(&a);
	kvb_diag_release(&d);
	rc = load_text(&a, &d, "workloads:\n  - {name: hackbench, params: {groups: 2, fds: 10}}\n");
	CHECK(rc == KVB_OK);
	CHECK(d.warnings.n == 0);
	kvb_agenda_release(&a);
	kvb_diag_release(&d);
}

/* An error in a workload that came from an include# file names that file and line (was the includer's 1:1). */
static void test_wa3__errors_in_included_files_name_that_file_and_line(void)
{
	struct kvb_agenda a;
	struct kvb_diag d;
	kvb_diag_init(&d, NULL);
	CHECK(kvb_agenda_load(&a, FIELD "/tests-data/includes/agenda.yaml", &kvb_catalog, &d) == KVB_EINPUT);
	for (size_t i = 0; i < d.msgs.n; i++)
		fprintf(stderr, "%s\n", d.msgs.v[i]);
	CHECK(d.msgs.n == 2);
	/* workloads.yaml: line 2 "    - dhrystone", line 3 "    - name: memcpy" */
	CHECK(d.msgs.n > 0 && strstr(d.msgs.v[0], "includes/workloads.yaml:2:7: workloads[0]: unknown workload \"dhrystone\""));
	CHECK(d.msgs.n > 1 && strstr(d.msgs.v[1], "includes/workloads.yaml:3:7: workloads[1].name: unknown workload \"memcpy\""));
	/* the includer's own nodes keep its file and line */
	CHECK(d.warnings.n > 0 && strstr(d.warnings.v[0], "includes/agenda.yaml:2:5: config.augmentations:"));
	kvb_agenda_release(&a);
	kvb_diag_release(&d);
}

/* Each workload's WA3 table (ops->wa3_params) is whole: a rename lands on a parameter the workload has (or one a later
 * row translates again), a dropped or refused key is none of kvbench's own (dropping it would lose a real parameter),
 * a WARN_IF_WA3 key is one of kvbench's, and each row carries what its kind needs. */
static void test_wa3__workload_tables_translate_to_kvbench_keys(void)
{
	int tables = 0;
	for (size_t i = 0; kvb_workloads[i]; i++) {
		const struct kvb_workload_ops *w = kvb_workloads[i];
		tables += w->wa3_params != NULL;
		for (const struct kvb_wa3_param *t = w->wa3_params; t && t->wa3; t++) {
			int wants_to = t->conv == KVB_WA3_RENAME || t->conv == KVB_WA3_TO_ENTRY || t->conv == KVB_WA3_CPU_MASK;
			int own = kvb_keydef_find(w->params, t->wa3) != NULL;
			CHECK(t->conv >= KVB_WA3_RENAME && t->conv <= KVB_WA3_WARN_IF_WA3);
			CHECK(!wants_to == !t->to && !wants_to == !!t->why);
			if (t->conv == KVB_WA3_RENAME) {
				int later = 0;
				for (const struct kvb_wa3_param *u = t + 1; u->wa3; u++)
					later |= !strcmp(u->wa3, t->to);
				CHECK(kvb_keydef_find(w->params, t->to) || later);
			}
			if (t->conv == KVB_WA3_DROP || t->conv == KVB_WA3_REFUSE_UNLESS_EMPTY)
				CHECK(!own);
			if (t->conv == KVB_WA3_WARN_IF_WA3)
				CHECK(own);
		}
	}
	CHECK(tables == 3);  /* WA3's hackbench, rt-app and jankbench */
	CHECK(kvb_workload_find("jankbench")->wa3_params && !strcmp(kvb_workload_find("jankbench")->wa3_params[0].to, "reps"));
}

/*
 * Instrument settings: kvbench's own `ftrace: {...}` under config: (config then global merged key
 * by key), and WA3's trace-cmd plugin block and global aliases (wa/instruments/trace_cmd.py:
 * events, buffer_size in KB; `null` its default, as in WA3's user guide's agenda,
 * tests/fixtures/field/wa3-agenda/docs/userguide-l365.yaml) turned into the same settings.
 */
static void test_wa3__instrument_settings_from_config_and_trace_cmd(void)
{
	struct kvb_agenda a;
	struct kvb_diag d;
	const cJSON *f;
	CHECK(load_text(&a, &d,
			"config: {instruments: [ftrace], ftrace: {buffer_kb: 4096, events: [sched:sched_switch]}}\n"
			"global: {ftrace: {events: [irq:irq_handler_entry]}}\n"
			"workloads: [hackbench]\n") == KVB_OK);
	f = cJSON_GetObjectItem(a.instrument_settings, "ftrace");
	CHECK(f && cJSON_GetObjectItem(f, "buffer_kb")->valueint == 4096);
	CHECK(f && cJSON_GetArraySize(cJSON_GetObjectItem(f, "events")) == 1);
	CHECK(f && !strcmp(cJSON_GetArrayItem(cJSON_GetObjectItem(f, "events"), 0)->valuestring, "irq:irq_handler_entry"));
	kvb_agenda_release(&a);
	kvb_diag_release(&d);
	/* a misspelt key of the instrument is an error at its line, a type that is no instrument an unknown key */
	CHECK(load_text(&a, &d, "config:\n  ftrace: {bufer_kb: 1}\n  ftrase: {buffer_kb: 1}\nworkloads: [hackbench]\n") != KVB_OK);
	CHECK_CONTAINS(joined(&d.msgs), "wa3.yaml:2:12: config.ftrace.bufer_kb: unknown key 'bufer_kb' (did you mean 'buffer_kb'?)");
	CHECK_CONTAINS(joined(&d.warnings), "config.ftrase: ignored: WA3 plugin configuration 'ftrase'");
	kvb_agenda_release(&a);
	kvb_diag_release(&d);
	/* WA3: augmentations [trace-cmd] -> ftrace; its block's events and buffer_size -> events, buffer_kb */
	CHECK(load_text(&a, &d,
			"config:\n"
			"  augmentations: [trace-cmd]\n"
			"  trace-cmd: {events: ['sched*', irq], buffer_size: 100000, buffer_size_step: 1000, functions: null}\n"
			"workloads: [hackbench]\n") == KVB_OK);
	CHECK(cJSON_GetArraySize(a.instruments) == 1 && !strcmp(cJSON_GetArrayItem(a.instruments, 0)->valuestring, "ftrace"));
	f = cJSON_GetObjectItem(a.instrument_settings, "ftrace");
	CHECK(f && cJSON_GetObjectItem(f, "buffer_kb")->valueint == 100000);
	CHECK(f && !strcmp(cJSON_GetArrayItem(cJSON_GetObjectItem(f, "events"), 1)->valuestring, "irq"));
	CHECK(f && cJSON_GetArraySize(f) == 2);
	CHECK_CONTAINS(joined(&d.warnings), "config.trace-cmd.buffer_size_step: ignored: WA3 parameter 'buffer_size_step'");
	CHECK(!strstr(joined(&d.warnings), "functions")); /* null: WA3's default, nothing lost */
	kvb_agenda_release(&a);
	kvb_diag_release(&d);
	/* LISA's antutu agenda spells them as global aliases (trace_events, trace_buffer_size); null is unset */
	CHECK(load_text(&a, &d,
			"config:\n  instrumentation: [trace-cmd]\n  trace_events: ['sched_switch', 'cpu_idle']\n"
			"  trace_buffer_size: 80000\n  trace-cmd: {buffer_size: null}\nworkloads: [hackbench]\n") == KVB_OK);
	f = cJSON_GetObjectItem(a.instrument_settings, "ftrace");
	CHECK(f && cJSON_GetObjectItem(f, "buffer_kb")->valueint == 80000);
	CHECK(f && cJSON_GetArraySize(cJSON_GetObjectItem(f, "events")) == 2);
	kvb_agenda_release(&a);
	kvb_diag_release(&d);
}

#define TESTS                                                          \
	T(test_wa3__config_and_global_merge_as_wa3_reads_them) \
	T(test_wa3__instrument_settings_from_config_and_trace_cmd) \
	T(test_wa3__rt_app_use_case_names_resolve) \
	T(test_wa3__errors_in_included_files_name_that_file_and_line) \
	T(test_wa3__hackbench_fds_warns_that_wa3_never_passed_it) \
	T(test_wa3__rt_app_cpus_lists_map_to_the_cpus_knob) \
	T(test_wa3__include_merges_as_wa3_does)                        \
	T(test_wa3__test_agenda_fails_only_on_workloads_kvbench_lacks) \
	T(test_wa3__spellings_of_kvbench_workloads_are_honoured)       \
	T(test_wa3__cluster_runtime_params_become_cpufreq_knobs)       \
	T(test_wa3__unknown_cluster_is_named_before_the_run)           \
	T(test_wa3__field_agendas_fail_only_on_missing_workloads)      \
	T(test_wa3__workload_tables_translate_to_kvbench_keys)
#include "test_main.h"
