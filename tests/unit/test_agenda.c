/* Tests agenda loading: WA3 keys and precedence, sweeps, sections, ordering, and error reporting. */
#include "config/agenda.h"
#include "engine/catalog.h"
#include "engine/plan.h"
#include "core/buf.h"
#include "test.h"

#include <stdlib.h>

static int load(struct kvb_agenda *a, struct kvb_diag *d, const char *name, const char *text)
{
	struct kvb_doc doc;
	int rc;
	kvb_diag_init(d, NULL);
	rc = kvb_doc_parse(&doc, name, text, strlen(text), d);
	if (!rc)
		rc = kvb_agenda_from_doc(a, &doc, &kvb_catalog, d);
	else
		memset(a, 0, sizeof(*a));
	d->doc = NULL;
	kvb_doc_release(&doc);
	return rc;
}

static const char *cls(const struct kvb_spec *s, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(s->classifiers, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void test_agenda__precedence_workload_over_section_over_global(void)
{
	struct kvb_agenda a;
	struct kvb_diag d;
	int rc = load(&a, &d, "p.yaml",
		      "config:\n  iterations: 3\n  classifiers: {kernel_tree: tip, level: g}\n"
		      "  runtime_params: {cpus: \"0-1\", sysctl: {kernel.sched_child_runs_first: 0}}\n"
		      "sections:\n  - id: low\n    iterations: 2\n    classifiers: {level: s}\n    runtime_params: {cpus: \"0\"}\n"
		      "workloads:\n  - name: hackbench\n    iterations: 4\n    classifiers: {level: w}\n    params: {loops: 50}\n"
		      "  - name: sched_pipe\n");
	CHECK(rc == KVB_OK);
	CHECK(a.nspecs == 2);
	CHECK_STR(a.specs[0].id, "low-hackbench");
	CHECK_STR(a.specs[0].section, "low");
	CHECK(a.specs[0].iterations == 4);  /* workload > section */
	CHECK(a.specs[1].iterations == 2);  /* section > global */
	CHECK_STR(cls(&a.specs[0], "level"), "w");
	CHECK_STR(cls(&a.specs[1], "level"), "s");
	CHECK_STR(cls(&a.specs[1], "kernel_tree"), "tip");
	CHECK_STR(a.specs[0].rt.cpus, "0");
	CHECK(cJSON_GetObjectItemCaseSensitive(a.specs[0].rt.sysctl, "kernel.sched_child_runs_first") != NULL);
	CHECK(kvb_get_int(a.specs[0].params, "loops", 0) == 50);
	kvb_agenda_release(&a);
	kvb_diag_release(&d);
}

static void test_agenda__sweep_expands_to_one_spec_per_value_with_classifier(void)
{
	struct kvb_agenda a;
	struct kvb_diag d;
	int rc = load(&a, &d, "s.yaml",
		      "workloads:\n  - name: sched_pipe\n    sweep: {cgroup_depth: [0, 1, 2, 3], loops: [1000, 2000]}\n");
	CHECK(rc == KVB_OK);
	CHECK(a.nspecs == 8);
	CHECK_STR(cls(&a.specs[0], "cgroup_depth"), "0");
	CHECK_STR(cls(&a.specs[0], "loops"), "1000");
	CHECK_STR(cls(&a.specs[1], "loops"), "2000");
	CHECK_STR(cls(&a.specs[7], "cgroup_depth"), "3");
	CHECK(a.specs[7].rt.cgroup_depth == 3);
	CHECK(kvb_get_int(a.specs[7].params, "loops", 0) == 2000);
	CHECK_STR(a.specs[2].id, "sched_pipe;cgroup_depth=1;loops=1000");
	kvb_agenda_release(&a);
	kvb_diag_release(&d);
}

static void test_agenda__json_and_yaml_give_the_same_specs(void)
{
	struct kvb_agenda y, j;
	struct kvb_diag d1, d2;
	CHECK(!load(&y, &d1, "a.yaml", "config: {iterations: 2}\nworkloads:\n  - {name: hackbench, params: {groups: 4}}\n"));
	CHECK(!load(&j, &d2, "a.json", "{\"config\": {\"iterations\": 2},\n \"workloads\": [{\"name\": \"hackbench\", \"params\": {\"groups\": 4}}]}"));
	CHECK(y.nspecs == 1 && j.nspecs == 1);
	CHECK(y.specs[0].iterations == j.specs[0].iterations);
	CHECK(cJSON_Compare(y.specs[0].params, j.specs[0].params, 1));
	kvb_agenda_release(&y);
	kvb_agenda_release(&j);
	kvb_diag_release(&d1);
	kvb_diag_release(&d2);
}

static void test_agenda__reports_every_error_with_location_and_path(void)
{
	struct kvb_agenda a;
	struct kvb_diag d;
	int rc = load(&a, &d, "agendas/x.yaml",
		      "config:\n  iterations: 2\n  colour: red\n"
		      "workloads:\n  - name: hackbench\n    params:\n      loops: ten\n      mode: fibers\n"
		      "  - params: {loops: 3}\n  - name: dhrystone\n");
	CHECK(rc == KVB_EINPUT);
	CHECK(d.msgs.n == 5);
	for (size_t i = 0; i < d.msgs.n; i++)
		fprintf(stderr, "  %s\n", d.msgs.v[i]);
	CHECK_STR(d.msgs.n > 0 ? d.msgs.v[0] : NULL, "agendas/x.yaml:3:3: config.colour: unknown key 'colour'");
	CHECK_STR(d.msgs.n > 1 ? d.msgs.v[1] : NULL, "agendas/x.yaml:7:7: workloads[0].params.loops: expected integer, got \"ten\"");
	CHECK_STR(d.msgs.n > 2 ? d.msgs.v[2] : NULL,
		  "agendas/x.yaml:8:7: workloads[0].params.mode: expected one of process|thread, got \"fibers\"");
	CHECK_STR(d.msgs.n > 3 ? d.msgs.v[3] : NULL, "agendas/x.yaml:9:5: workloads[1]: missing required key 'name'");
	CHECK(d.msgs.n > 4 && strstr(d.msgs.v[4], "agendas/x.yaml:10:5: workloads[2].name: unknown workload \"dhrystone\""));
	kvb_agenda_release(&a);
	kvb_diag_release(&d);
}

static void test_agenda__syntax_error_and_empty_file_have_locations(void)
{
	struct kvb_agenda a;
	struct kvb_diag d;
	CHECK(load(&a, &d, "bad.yaml", "workloads:\n  - name: hackbench\n   params: {\n") == KVB_EINPUT);
	CHECK(d.msgs.n == 1 && strstr(d.msgs.v[0], "bad.yaml:3:") && strstr(d.msgs.v[0], "syntax error"));
	kvb_agenda_release(&a);
	kvb_diag_release(&d);
	CHECK(load(&a, &d, "empty.yaml", "") == KVB_EINPUT);
	CHECK(d.msgs.n == 1);
	CHECK_STR(d.msgs.n ? d.msgs.v[0] : NULL, "empty.yaml:1:1: file is empty");
	kvb_agenda_release(&a);
	kvb_diag_release(&d);
	CHECK(load(&a, &d, "bad.json", "{\"workloads\": [\n  {\"name\": \"hackbench\",}\n]}") == KVB_EINPUT);
	CHECK(d.msgs.n == 1 && strstr(d.msgs.v[0], "bad.json:2:") != NULL);
	kvb_agenda_release(&a);
	kvb_diag_release(&d);
}

static void test_agenda__json_errors_point_at_the_key(void)
{
	struct kvb_agenda a;
	struct kvb_diag d;
	CHECK(load(&a, &d, "j.json", "{\n  \"workloads\": [\n    {\"name\": \"sched_pipe\",\n     \"params\": {\"loops\": \"many\"}}\n  ]\n}") ==
	      KVB_EINPUT);
	CHECK(d.msgs.n == 1);
	CHECK(d.msgs.n && strstr(d.msgs.v[0], "j.json:4:") && strstr(d.msgs.v[0], "workloads[0].params.loops: expected integer"));
	kvb_agenda_release(&a);
	kvb_diag_release(&d);
}

static void test_plan__by_iteration_spreads_sections_and_rounds_alternate_variants(void)
{
	struct kvb_agenda a;
	struct kvb_diag d;
	struct kvb_plan p;
	CHECK(!load(&a, &d, "o.yaml",
		    "config: {iterations: 2}\nsections: [{id: X}, {id: Y}]\n"
		    "workloads: [{name: hackbench, id: A}, {name: sched_pipe, id: B}]\n"
		    "variants: [{name: base}, {name: new}]\n"));
	kvb_plan_build(&p, &a, 1);
	CHECK(p.n == 16);
	/* WA3 by_iteration: X.A1 Y.A1 X.B1 Y.B1 X.A2 ... for the first variant */
	CHECK_STR(p.jobs[0].spec->id, "X-A");
	CHECK_STR(p.jobs[1].spec->id, "Y-A");
	CHECK_STR(p.jobs[2].spec->id, "X-B");
	CHECK_STR(p.jobs[3].spec->id, "Y-B");
	CHECK(p.jobs[4].iteration == 2);
	CHECK(p.jobs[7].variant == 0 && p.jobs[8].variant == 1);
	kvb_plan_release(&p);
	kvb_plan_build(&p, &a, 2);
	/* two rounds: base r1, new r1, base r2, new r2; each round has iteration 1 then 2 */
	CHECK(p.n == 16);
	CHECK(p.jobs[0].round == 1 && p.jobs[0].variant == 0 && p.jobs[0].iteration == 1);
	CHECK(p.jobs[4].round == 1 && p.jobs[4].variant == 1);
	CHECK(p.jobs[8].round == 2 && p.jobs[8].variant == 0 && p.jobs[8].iteration == 2);
	kvb_plan_release(&p);
	kvb_agenda_release(&a);
	kvb_diag_release(&d);
}

static void test_agenda__section_groups_form_a_cross_product(void)
{
	struct kvb_agenda a;
	struct kvb_diag d;
	CHECK(!load(&a, &d, "g.yaml",
		    "sections:\n  - {id: f1, group: freq, classifiers: {freq: lo}}\n  - {id: f2, group: freq, classifiers: {freq: hi}}\n"
		    "  - {id: c1, group: cores, runtime_params: {cpus: \"0\"}}\n  - {id: c2, group: cores, runtime_params: {cpus: \"1\"}}\n"
		    "workloads: [hackbench]\n"));
	CHECK(a.nspecs == 4);
	CHECK_STR(a.specs[0].section, "f1-c1");
	CHECK_STR(a.specs[3].section, "f2-c2");
	CHECK_STR(cls(&a.specs[3], "freq"), "hi");
	CHECK_STR(a.specs[3].rt.cpus, "1");
	kvb_agenda_release(&a);
	kvb_diag_release(&d);
}

static void test_agenda__variant_knobs_and_command_line_variants(void)
{
	struct kvb_agenda a;
	struct kvb_diag d;
	struct kvb_error err;
	CHECK(!load(&a, &d, "v.yaml", "workloads: [hackbench]\nvariants:\n  - {name: a, cpus: \"0\"}\n  - {name: b, runtime: {cpus: \"0-1\"}}\n"));
	CHECK(a.nvariants == 2);
	CHECK_STR(a.variants[0].rt.cpus, "0");
	CHECK_STR(a.variants[1].rt.cpus, "0-1");
	CHECK(!kvb_agenda_add_variant_arg(&a, "c=/boot/vmlinuz,cmdline=maxcpus=1 quiet", &err));
	CHECK(a.nvariants == 3);
	CHECK_STR(a.variants[2].kernel, "/boot/vmlinuz");
	CHECK_STR(a.variants[2].cmdline, "maxcpus=1 quiet");
	/* -V for an agenda variant keeps what it does not give */
	CHECK(!kvb_agenda_add_variant_arg(&a, "a=/boot/other", &err));
	CHECK(a.nvariants == 3);
	CHECK_STR(a.variants[0].kernel, "/boot/other");
	CHECK_STR(a.variants[0].rt.cpus, "0");
	CHECK(kvb_agenda_add_variant_arg(&a, "d=/k,colour=red", &err) == KVB_EUSAGE);
	CHECK_CONTAINS(err.msg, "unknown key 'colour'");
	kvb_agenda_release(&a);
	kvb_diag_release(&d);
}

/* Spec ids are what the user wrote (issue 18): the workload name, numbered only when it repeats in one expansion. */
static void test_agenda__spec_ids_default_to_the_workload_name(void)
{
	struct kvb_agenda a;
	struct kvb_diag d;
	CHECK(!load(&a, &d, "i.yaml",
		    "workloads:\n  - name: hackbench\n  - name: sched_pipe\n  - hackbench\n  - {name: sched_messaging, id: mine}\n"));
	CHECK(a.nspecs == 4);
	CHECK_STR(a.specs[0].id, "hackbench1");
	CHECK_STR(a.specs[1].id, "sched_pipe");
	CHECK_STR(a.specs[2].id, "hackbench2");
	CHECK_STR(a.specs[3].id, "mine");
	kvb_agenda_release(&a);
	kvb_diag_release(&d);
	/* a section's own entry counts with the agenda's: low has two hackbench, high one */
	CHECK(!load(&a, &d, "s.yaml",
		    "sections:\n  - id: low\n    workloads: [hackbench]\n  - id: high\nworkloads: [hackbench, sched_pipe]\n"));
	CHECK(a.nspecs == 5);
	for (size_t i = 0; i < a.nspecs; i++) {
		const char *id = a.specs[i].id;
		CHECK(!strcmp(id, "low-hackbench1") || !strcmp(id, "low-hackbench2") || !strcmp(id, "low-sched_pipe") ||
		      !strcmp(id, "high-hackbench") || !strcmp(id, "high-sched_pipe"));
		for (size_t j = 0; j < i; j++)
			CHECK(strcmp(id, a.specs[j].id));
	}
	kvb_agenda_release(&a);
	kvb_diag_release(&d);
}

/* A merge key's list of mappings is folded whole: the 65th and later sources count too
 * (an earlier parser kept the first 64 and dropped the rest without a word). */
static void test_doc__merge_key_folds_every_mapping_of_its_list(void)
{
	struct kvb_buf y = KVB_BUF_INIT;
	struct kvb_doc doc;
	struct kvb_diag d;
	const cJSON *m;
	kvb_buf_adds(&y, "defs:\n");
	for (int i = 0; i < 70; i++)
		kvb_buf_addf(&y, "  - &a%d {k%d: %d, shared: %d}\n", i, i, i, i);
	kvb_buf_adds(&y, "m:\n  own: 1\n  <<: [");
	for (int i = 0; i < 70; i++)
		kvb_buf_addf(&y, "%s*a%d", i ? ", " : "", i);
	kvb_buf_adds(&y, "]\n");
	kvb_diag_init(&d, NULL);
	CHECK(kvb_doc_parse(&doc, "merge.yaml", y.data, y.len, &d) == KVB_OK);
	m = cJSON_GetObjectItemCaseSensitive(doc.root, "m");
	CHECK(cJSON_GetArraySize(m) == 72); /* own, k0..k69, shared */
	CHECK(cJSON_GetObjectItemCaseSensitive(m, "k69") && cJSON_GetObjectItemCaseSensitive(m, "k69")->valueint == 69);
	/* the first source that has a key wins, as YAML's merge says */
	CHECK(cJSON_GetObjectItemCaseSensitive(m, "shared")->valueint == 0);
	CHECK(!cJSON_GetObjectItemCaseSensitive(m, "<<"));
	kvb_doc_release(&doc);
	kvb_diag_release(&d);
	kvb_buf_release(&y);
}

/* iterations: 100000000 once made `agenda check` expand (and hang on) 100M jobs; kvbench's own classifier
 * names were silently overwritten by the job's. Both are errors at their key. */
static void test_agenda__job_limit_and_own_classifier_names_are_errors_at_the_key(void)
{
	struct kvb_agenda a;
	struct kvb_diag d;
	int rc = load(&a, &d, "big.yaml", "config: {iterations: 100000000}\nworkloads: [{name: sched_pipe}]\n");
	CHECK(rc == KVB_EINPUT);
	CHECK(d.msgs.n == 1 && strstr(d.msgs.v[0], "big.yaml:1:10: config.iterations: 100000000 iterations: more than"));
	CHECK(a.nspecs == 1 && a.specs[0].iterations == 1); /* not expanded */
	kvb_agenda_release(&a);
	kvb_diag_release(&d);
	/* under the limit per key, over it in total: 3 specs x 40000 x 1 variant */
	rc = load(&a, &d, "sum.yaml",
		  "config: {iterations: 40000}\nworkloads:\n  - {name: sched_pipe}\n  - {name: hackbench}\n  - {name: sched_pipe, id: b}\n");
	CHECK(rc == KVB_EINPUT);
	CHECK(d.msgs.n == 1 && strstr(d.msgs.v[0], "sum.yaml:2:1: workloads: 120000 jobs"));
	kvb_agenda_release(&a);
	kvb_diag_release(&d);
	rc = load(&a, &d, "own.yaml", "workloads:\n  - name: sched_pipe\n    classifiers: {iteration: 7, variant: x, tree: tip}\n");
	CHECK(rc == KVB_EINPUT);
	for (size_t i = 0; i < d.msgs.n; i++)
		fprintf(stderr, "  %s\n", d.msgs.v[i]);
	CHECK(d.msgs.n == 2);
	CHECK(d.msgs.n > 0 && strstr(d.msgs.v[0], "own.yaml:3:19: workloads[0].classifiers.iteration: classifier 'iteration' is kvbench's own"));
	CHECK(d.msgs.n > 1 && strstr(d.msgs.v[1], "own.yaml:3:33: workloads[0].classifiers.variant:"));
	kvb_agenda_release(&a);
	kvb_diag_release(&d);
}

/* cpus "3-1" and "0-" passed `agenda check` and failed only when the job ran: the job's own parser checks at load. */
static void test_agenda__bad_cpu_lists_are_errors_at_load(void)
{
	struct kvb_agenda a;
	struct kvb_diag d;
	int rc = load(&a, &d, "cpus.yaml",
		      "workloads:\n  - {name: sched_pipe, runtime_params: {cpus: \"3-1\"}}\n"
		      "  - {name: hackbench, runtime_params: {cpus: \"0-\"}}\n  - {name: sched_pipe, id: ok, runtime_params: {cpus: \"0-1,3\"}}\n");
	CHECK(rc == KVB_EINPUT);
	CHECK(d.msgs.n == 2);
	CHECK(d.msgs.n > 0 && strstr(d.msgs.v[0], "cpus.yaml:2:41: workloads[0].runtime_params.cpus: cpus '3-1'"));
	CHECK(d.msgs.n > 1 && strstr(d.msgs.v[1], "cpus.yaml:3:40: workloads[1].runtime_params.cpus: cpus '0-'"));
	CHECK(a.nspecs == 3 && !strcmp(a.specs[2].rt.cpus, "0-1,3"));
	kvb_agenda_release(&a);
	kvb_diag_release(&d);
}

#define TESTS                                                                                                          \
	T(test_agenda__bad_cpu_lists_are_errors_at_load)                                                               \
	T(test_agenda__job_limit_and_own_classifier_names_are_errors_at_the_key)                                       \
	T(test_agenda__spec_ids_default_to_the_workload_name)                                                          \
	T(test_agenda__precedence_workload_over_section_over_global)                                                   \
	T(test_agenda__sweep_expands_to_one_spec_per_value_with_classifier)                                            \
	T(test_agenda__json_and_yaml_give_the_same_specs)                                                              \
	T(test_agenda__reports_every_error_with_location_and_path)                                                     \
	T(test_agenda__syntax_error_and_empty_file_have_locations)                                                     \
	T(test_agenda__json_errors_point_at_the_key)                                                                   \
	T(test_plan__by_iteration_spreads_sections_and_rounds_alternate_variants)                                      \
	T(test_agenda__section_groups_form_a_cross_product)                                                            \
	T(test_agenda__variant_knobs_and_command_line_variants)                                        \
	T(test_doc__merge_key_folds_every_mapping_of_its_list)
#include "test_main.h"
