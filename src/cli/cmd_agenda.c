/* Implements `kvbench agenda check`: validate an agenda and print the expanded jobs. */
#include "cli/cli.h"
#include "engine/catalog.h"
#include "config/agenda.h"
#include "config/platform.h"
#include "engine/engine.h"
#include "engine/plan.h"
#include "engine/preflight.h"
#include "flash/flash.h"
#include "report/box.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Loads the agenda at path, its errors and warnings on stderr; KVB_EINPUT (a released) when it has errors. */
static int load_agenda(struct kvb_agenda *a, const char *path)
{
	struct kvb_diag d;
	int rc;
	kvb_diag_init(&d, NULL);
	rc = kvb_agenda_load(a, path, &kvb_catalog, &d);
	for (size_t i = 0; i < d.msgs.n; i++)
		fprintf(stderr, "%s\n", d.msgs.v[i]);
	for (size_t i = 0; i < d.warnings.n; i++)
		fprintf(stderr, "%s (warning)\n", d.warnings.v[i]);
	if (rc)
		fprintf(stderr, "kvbench: %s: %zu error%s\n", path, d.msgs.n, d.msgs.n == 1 ? "" : "s");
	kvb_diag_release(&d);
	if (!rc)
		return KVB_OK;
	kvb_agenda_release(a);
	return KVB_EINPUT;
}

/* The -V variants added to the agenda (or its default variant), their knobs checked; kvb_cli_fail's status on error. */
static int add_variants(struct kvb_agenda *a, const struct kvb_strv *variants)
{
	struct kvb_error err;
	for (size_t i = 0; i < variants->n; i++)
		if (kvb_agenda_add_variant_arg(a, variants->v[i], &err))
			return kvb_cli_fail(&err);
	kvb_agenda_default_variant(a);
	if (kvb_agenda_check_variant_knobs(a, &err))
		return kvb_cli_fail(&err);
	return KVB_OK;
}

/*
 * The agenda against platform plat_name: its preflight problems on stderr (*pre_rc, as
 * kvb_preflight_report) and, when *rounds is 0, the platform's default rounds. KVB_EINPUT
 * when the platform does not load (its errors on stderr).
 */
static int check_on_platform(const struct kvb_agenda *a, const char *plat_name, int *rounds, int *pre_rc, int *warmup)
{
	struct kvb_platform p;
	struct kvb_diag pd;
	struct kvb_preflight pf = { KVB_STRV_INIT, KVB_STRV_INIT };
	kvb_diag_init(&pd, NULL);
	if (kvb_platform_load(&p, plat_name, &kvb_catalog, &pd)) {
		for (size_t i = 0; i < pd.msgs.n; i++)
			fprintf(stderr, "%s\n", pd.msgs.v[i]);
		kvb_diag_release(&pd);
		kvb_platform_release(&p);
		return KVB_EINPUT;
	}
	if (!*rounds)
		*rounds = kvb_engine_default_rounds(&p, a);
	/* the warm-up `run` adds where each round boots (engine/run.c default_warmup): counted as it counts them */
	*warmup = kvb_flasher_boots_each_round(kvb_flasher_find(p.flash_method)) ? 1 : 0;
	kvb_preflight_run(a, &p, 0, 1, 0, &pf);
	*pre_rc = kvb_preflight_report(&pf, stderr);
	kvb_preflight_release(&pf);
	kvb_diag_release(&pd);
	kvb_platform_release(&p);
	return KVB_OK;
}

/* The plan's jobs as a table on stdout: seq, round, variant, spec, iteration, params, runtime knobs, classifiers. */
static void print_jobs(const struct kvb_agenda *a, const struct kvb_plan *plan)
{
	struct kvb_box b;
	kvb_box_init(&b, 8);
	kvb_box_header(&b, 0, "seq", KVB_ALIGN_RIGHT);
	kvb_box_header(&b, 1, "round", KVB_ALIGN_RIGHT);
	kvb_box_header(&b, 2, "variant", KVB_ALIGN_LEFT);
	kvb_box_header(&b, 3, "spec", KVB_ALIGN_LEFT);
	kvb_box_header(&b, 4, "iteration", KVB_ALIGN_RIGHT);
	kvb_box_header(&b, 5, "params", KVB_ALIGN_LEFT);
	kvb_box_header(&b, 6, "runtime", KVB_ALIGN_LEFT);
	kvb_box_header(&b, 7, "classifiers", KVB_ALIGN_LEFT);
	for (size_t i = 0; i < plan->n; i++) {
		const struct kvb_plan_job *j = &plan->jobs[i];
		struct kvb_runtime rt;
		char *p = cJSON_PrintUnformatted(j->spec->params), *cl = cJSON_PrintUnformatted(j->spec->classifiers);
		kvb_runtime_copy(&rt, &j->spec->rt);
		kvb_runtime_merge(&rt, &a->variants[j->variant].rt);
		cJSON *rj = kvb_runtime_to_json(&rt);
		char *r = cJSON_PrintUnformatted(rj);
		kvb_box_cellf(&b, "%d", j->seq);
		kvb_box_cellf(&b, "%d", j->round);
		kvb_box_cell(&b, a->variants[j->variant].name);
		kvb_box_cell(&b, j->spec->id);
		kvb_box_cellf(&b, "%d", j->iteration);
		kvb_box_cell(&b, p);
		kvb_box_cell(&b, r);
		kvb_box_cell(&b, cl);
		free(p);
		free(cl);
		free(r);
		cJSON_Delete(rj);
		kvb_runtime_release(&rt);
	}
	kvb_box_print(&b, stdout);
	kvb_box_release(&b);
}

/* 1 when a spec leaves its warm-up to the platform (warmup unset). */
static int unset_warmup(const struct kvb_agenda *a)
{
	for (size_t i = 0; i < a->nspecs; i++)
		if (a->specs[i].warmup < 0)
			return 1;
	return 0;
}

static const char *const synopsis[] = { "agenda check <file> [<options>]", NULL };

static const struct kvb_option options[] = {
	KVB_OPT_SHORT('p', "platform", "platform", "plan as `run -p NAME` would (its default rounds) and run the\n"
						   "preflight: variant files, the platform's files, the tools on\n"
						   "the board and its online CPUs against the cpus knobs (exit 3\n"
						   "on a problem)"),
	KVB_OPT_SHORT('V', "variant", "spec", "add a variant as `run -V` does (repeatable)"),
	KVB_OPT_VALUE('r', "rounds", "n", "plan with N rounds"),
	KVB_OPT_END(),
};

/* where the agenda file's keys are (a WA3 user's `help agenda` looks for them here) */
static const char agenda_text[] = "The agenda file's keys (config, sections, workloads, variants, runtime knobs): "
				  "`kvbench help agenda.yaml`.\n";
const struct kvb_cmd_usage kvb_usage_agenda = { synopsis, options, agenda_text, NULL };

int kvb_cmd_agenda(struct kvb_cli *cli, int argc, char **argv)
{
	(void)cli; /* flags 0: no DB */
	struct kvb_getopt g;
	struct kvb_agenda a;
	struct kvb_plan plan;
	int c, rc, rounds = 0, pre_rc = KVB_OK, warmup = 0;
	char planned[96];
	const char *plat_name = NULL;
	struct kvb_strv variants = KVB_STRV_INIT;
	if (kvb_getopt_init(&g, "agenda", &kvb_usage_agenda, NULL))
		return KVB_EINTERNAL;
	while ((c = kvb_getopt_next(&g, argc, argv)) != -1) {
		if (c == 'V')
			kvb_strv_push(&variants, optarg);
		else if (c == 'r')
			rounds = atoi(optarg) > 0 ? atoi(optarg) : 1;
		else if (c == 'p')
			plat_name = optarg;
		else {
			kvb_strv_release(&variants);
			return kvb_getopt_bad(&g, argv);
		}
	}
	if (optind + 2 != argc || strcmp(argv[optind], "check"))
		return kvb_cli_usage("agenda", "expected `agenda check FILE`");
	if ((rc = load_agenda(&a, argv[optind + 1]))) {
		kvb_strv_release(&variants);
		return rc;
	}
	rc = add_variants(&a, &variants);
	kvb_strv_release(&variants);
	if (!rc && plat_name) {
		rc = check_on_platform(&a, plat_name, &rounds, &pre_rc, &warmup);
	} else if (!rc) {
		/* no platform: the variants' own files still are what they say */
		struct kvb_preflight pf = { KVB_STRV_INIT, KVB_STRV_INIT };
		kvb_preflight_variant_files(&a, &pf);
		pre_rc = kvb_preflight_report(&pf, stderr);
		kvb_preflight_release(&pf);
	}
	if (rc) {
		kvb_agenda_release(&a);
		return rc;
	}
	{
		struct kvb_plan_opts po = { .rounds = rounds ? rounds : 1, .default_warmup = warmup };
		kvb_plan_build_opts(&plan, &a, &po);
	}
	printf("%s: %zu specs, %zu variants, %s, execution_order %s, max_retries %d\n", argv[optind + 1], a.nspecs,
	       a.nvariants, kvb_plan_describe(&plan, planned, sizeof(planned)), kvb_exec_order_name(a.order),
	       a.max_retries);
	if (a.instruments || a.instrument_settings) {
		/* what the run turns on and the settings it gives them, compact JSON: the WA3 translation visible */
		char *list = a.instruments ? cJSON_PrintUnformatted(a.instruments) : NULL;
		char *set = a.instrument_settings ? cJSON_PrintUnformatted(a.instrument_settings) : NULL;
		printf("instruments: %s%s%s\n", list ? list : "[] (the platform's)", set ? ", settings " : "", set ? set : "");
		free(list);
		free(set);
	}
	if (!plat_name && unset_warmup(&a))
		printf("(a platform that boots each round adds a warm-up job per spec, variant and round: `agenda check "
		       "-p PLATFORM` counts them as `run` does)\n");
	print_jobs(&a, &plan);
	kvb_plan_release(&plan);
	kvb_agenda_release(&a);
	return pre_rc;
}
