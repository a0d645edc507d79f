/* Implements a run's setup: the variants' files fetched, the run, variants and jobs stored, the plan (or the resumed one). */
#include "engine/run_internal.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

/* The most iterations any spec of the agenda has (0: no spec). */
static int max_iterations(const struct kvb_agenda *a)
{
	int m = 0;
	for (size_t i = 0; i < a->nspecs; i++)
		if (a->specs[i].iterations > m)
			m = a->specs[i].iterations;
	return m;
}

int kvb_engine_default_rounds(const struct kvb_platform *plat, const struct kvb_agenda *a)
{
	const struct kvb_flasher_ops *fl = kvb_flasher_find(plat->flash_method);
	int kernels = 0;
	if (a->rounds > 0)
		return a->rounds;
	for (size_t i = 0; i < a->nvariants; i++)
		kernels |= a->variants[i].kernel || a->variants[i].boot_image;
	int rounds = fl && fl->default_rounds ? fl->default_rounds : kernels ? 1 : 2;
	/* rounds split each spec's iterations: past the most iterations a spec has, a round is empty
	 * (`iterations: 1` ran in "round 2" of 2, round 1 had no job) */
	int maxit = max_iterations(a);
	return maxit > 0 && rounds > maxit ? maxit : rounds;
}

char *kvb_engine_agenda_json(const struct kvb_agenda *a)
{
	cJSON *root = a->raw ? cJSON_Duplicate(a->raw, 1) : cJSON_CreateObject();
	cJSON *vs = cJSON_CreateArray();
	char *s;
	for (size_t i = 0; i < a->nvariants; i++)
		cJSON_AddItemToArray(vs, a->variants[i].raw ? cJSON_Duplicate(a->variants[i].raw, 1) : cJSON_CreateObject());
	cJSON_DeleteItemFromObjectCaseSensitive(root, "variants");
	cJSON_AddItemToObject(root, "variants", vs);
	s = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	return s;
}

/*
 * Fetches and verifies every file a variant names, and reads the kernel's
 * version string so the identity check knows what must be running. A
 * variant whose files cannot be had gets the reason in *why (owned).
 */
static void resolve_variant(struct engine *e, struct kvb_variant *v, char **why)
{
	const char *src[KVB_VF_N] = { v->kernel, v->dtb, v->initrd, v->boot_image, v->modules };
	static const char *const names[KVB_VF_N] = { "kernel", "dtb", "initrd", "boot_image", "modules" };
	struct kvb_error err;
	*why = v->unusable ? kvb_xstrdup(v->unusable) : NULL;
	for (int i = 0; i < KVB_VF_N && !*why; i++) {
		struct kvb_fetched f;
		char what[256];
		if (!src[i] || v->local[i])
			continue;
		snprintf(what, sizeof(what), "variant '%s' %s", v->name, names[i]);
		if (kvb_fetch(src[i], i == KVB_VF_KERNEL ? v->sha256 : NULL, e->o->allow_unverified, what, &f, &err)) {
			*why = kvb_xstrdup(err.msg);
			break;
		}
		v->local[i] = f.path;
		f.path = NULL;
		memcpy(v->local_sha256[i], f.sha256, sizeof(f.sha256));
		kvb_fetched_release(&f);
	}
	if (!*why && (v->local[KVB_VF_KERNEL] || v->local[KVB_VF_BOOT_IMAGE]) && !v->expected_release) {
		struct kvb_kimage_id id;
		/* a boot image given whole is what fastboot flashes: its kernel is the one to expect */
		int from_bootimg = v->local[KVB_VF_BOOT_IMAGE] &&
				   (!v->local[KVB_VF_KERNEL] ||
				    (kvb_flasher_find(e->plat->flash_method)->caps & KVB_FLASH_WHOLE_BOOT_IMAGE));
		memset(&id, 0, sizeof(id));
		if (from_bootimg ? kvb_bootimg_identify(v->local[KVB_VF_BOOT_IMAGE], &id, NULL, &err)
						: kvb_kimage_identify(v->local[KVB_VF_KERNEL], &id, &err)) {
			kvb_warn("variant '%s': %s; the identity check will only compare the cmdline", v->name, err.msg);
		} else {
			v->expected_release = id.release ? kvb_xstrdup(id.release) : NULL;
			v->expected_version = id.version ? kvb_xstrdup(id.version) : NULL;
		}
		kvb_kimage_id_release(&id);
	}
}

/* What resume hooks read of the run's earlier jobs (struct kvb_run_memory), through e's store connection. */
static int run_classifier(void *arg, const char *key, char *buf, size_t size)
{
	struct engine *e = arg;
	return kvb_store_run_classifier(e->st, e->run_id, key, buf, size) == 1;
}

int kvb_run_is_final(const char *status)
{
	return strcmp(status, "pending") && strcmp(status, "running");
}

/* A resumed run: each workload's state on e's board is filled by its resume hook when first made. */
void kvb_run_resume_workloads(struct engine *e)
{
	e->resumed = (struct kvb_run_memory){ .classifier = run_classifier, .arg = e };
	e->wstates.resumed = &e->resumed;
}

/* Warm-up jobs of a spec that sets none: 1 where every round is a fresh boot (its first runs
 * pay for the boot: page cache, first-run work), else 0 (docs/design.md#noise). */
static int default_warmup(struct engine *e)
{
	return kvb_flasher_boots_each_round(kvb_flasher_find(e->plat->flash_method)) ? 1 : 0;
}

/* The plan's options: the run's rounds (--rounds, else the default), the spare ones of --until-decided
 * apart, and the warm-up of a spec that sets none. */
struct kvb_plan_opts kvb_run_plan_opts(struct engine *e)
{
	const struct kvb_run_opts *o = e->o;
	int rounds = o->rounds > 0 ? o->rounds : kvb_engine_default_rounds(e->plat, e->a);
	struct kvb_plan_opts po = { .rounds = rounds, .default_warmup = default_warmup(e) };
	if (o->rounds > max_iterations(e->a) && !o->decide && !o->resume_run && max_iterations(e->a) > 0)
		kvb_warn("--rounds %d: the agenda's specs have at most %d iteration%s, split over the rounds: "
			 "%d of the %d rounds have no jobs (raise iterations:)",
			 o->rounds, max_iterations(e->a), max_iterations(e->a) == 1 ? "" : "s",
			 o->rounds - max_iterations(e->a), o->rounds);
	if (o->decide && o->decide->spare_rounds > 0 && rounds > o->decide->spare_rounds) {
		/* --until-decided on a board on this host: the rounds beyond the looks stand in for disturbed ones */
		po.spare_rounds = o->decide->spare_rounds;
		po.rounds = rounds - po.spare_rounds;
	}
	/* where every job shares one boot, each round runs the iterations again (decide.h) */
	po.add_rounds = o->decide && o->decide->add_rounds;
	return po;
}

/* --resume: each variant's files are had again, and its row is found in the run. */
static int find_variants(struct engine *e, struct kvb_error *err)
{
	int rc;
	for (size_t v = 0; v < e->a->nvariants; v++) {
		resolve_variant(e, &e->a->variants[v], &e->variant_why[v]);
		if ((rc = kvb_store_variant_find(e->st, e->run_id, e->a->variants[v].name, &e->variant_ids[v], err)))
			return rc;
		if (!e->variant_ids[v])
			return kvb_error_set(err, KVB_ESTORE, "run %lld has no variant '%s'", (long long)e->run_id,
					     e->a->variants[v].name);
	}
	return KVB_OK;
}

/* A new run's row (e->run_id), with its default warm-up (po) and --until-decided's settings. */
static int store_run(struct engine *e, const struct kvb_plan_opts *po, struct kvb_error *err)
{
	const struct kvb_run_opts *o = e->o;
	int rc;
	/* the platform is stored for the record, never its secrets (ssh passphrase ...) */
	cJSON *redacted = kvb_redact_secrets(e->plat->doc.root);
	char *aj = kvb_engine_agenda_json(e->a), *pj = cJSON_PrintUnformatted(redacted);
	char *ppath = e->plat->file ? realpath(e->plat->file, NULL) : NULL;
	cJSON_Delete(redacted);
	struct kvb_run_info ri = {
		.agenda_path = e->a->file,
		.agenda_json = aj,
		.platform = e->plat->name,
		.platform_json = pj,
		.rounds = po->rounds + po->spare_rounds, /* every round, the spare ones too */
		.exec_order = kvb_exec_order_name(e->a->order),
		.max_retries = e->a->max_retries,
		.command_line = o->command_line,
		.boots_each_round = kvb_flasher_boots_each_round(kvb_flasher_find(e->plat->flash_method)),
		.platform_path = ppath,
	};
	rc = kvb_store_run_begin(e->st, &ri, &e->run_id, err);
	if (!rc)
		rc = kvb_store_run_set_warmup(e->st, e->run_id, po->default_warmup, err);
	free(aj);
	free(pj);
	free(ppath);
	if (!rc && o->decide)
		rc = kvb_decide_save(e->st, e->run_id, o->decide, err);
	return rc;
}

/* A new run's variants: each one's files are had, and its row stored (e->variant_ids) with what they were. */
static int store_variants(struct engine *e, struct kvb_error *err)
{
	int rc = KVB_OK;
	for (size_t v = 0; v < e->a->nvariants && !rc; v++) {
		struct kvb_variant *var = &e->a->variants[v];
		cJSON *rtj = kvb_runtime_to_json(&var->rt);
		char *rts = cJSON_PrintUnformatted(rtj), *why = NULL;
#define SHA(i) (var->local[i] ? var->local_sha256[i] : NULL)
		resolve_variant(e, var, &why);
		struct kvb_variant_row vr = {
			.name = var->name, .position = (int)v, .kernel = var->kernel,
			.kernel_sha256 = SHA(KVB_VF_KERNEL), .dtb = var->dtb, .dtb_sha256 = SHA(KVB_VF_DTB),
			.initrd = var->initrd, .initrd_sha256 = SHA(KVB_VF_INITRD), .boot_image = var->boot_image,
			.boot_image_sha256 = SHA(KVB_VF_BOOT_IMAGE), .modules = var->modules,
			.modules_sha256 = SHA(KVB_VF_MODULES), .cmdline = var->cmdline,
			.expected_release = var->expected_release, .expected_version = var->expected_version,
			.runtime_json = rts,
		};
#undef SHA
		rc = kvb_store_variant_add(e->st, e->run_id, &vr, &e->variant_ids[v], err);
		e->variant_why[v] = why;
		free(rts);
		cJSON_Delete(rtj);
	}
	return rc;
}

/* The job rows of the plan: what each job is, with its parameters and knobs as JSON (owned by the rows). */
static void fill_rows(struct engine *e)
{
	for (size_t i = 0; i < e->plan.n; i++) {
		const struct kvb_plan_job *j = &e->plan.jobs[i];
		cJSON *rtj;
		struct kvb_runtime rt;
		e->rows[i].variant_id = e->variant_ids[j->variant];
		e->rows[i].seq = j->seq;
		e->rows[i].round = j->round;
		e->rows[i].iteration = j->iteration;
		e->rows[i].spec_id = j->spec->id;
		e->rows[i].workload = j->spec->workload;
		e->rows[i].label = j->spec->label;
		e->rows[i].section = j->spec->section;
		e->rows[i].params_json = cJSON_PrintUnformatted(j->spec->params);
		kvb_run_job_runtime(e, j, &rt);
		rtj = kvb_runtime_to_json(&rt);
		e->rows[i].runtime_json = cJSON_PrintUnformatted(rtj);
		cJSON_Delete(rtj);
		kvb_runtime_release(&rt);
	}
}

/* --resume: what failed or was skipped is planned again, the rows' states are loaded, the run is running again. */
/*
 * --resume boots every round with jobs left afresh: a spec's warm-up in such a (variant, round)
 * that ran in the earlier boot runs again before the spec's first job left, so that job is not
 * the first after a boot, as in every other boot (docs/design.md#noise). Its row goes back to
 * pending; its earlier attempt stays in job_attempt.
 */
static int resume_rewarm(struct engine *e, struct kvb_error *err)
{
	int64_t n = 0;
	for (size_t i = 0; i < e->plan.n; i++) {
		const struct kvb_plan_job *w = &e->plan.jobs[i];
		int left = 0;
		if (!w->warmup || !kvb_run_is_final(e->rows[i].status) || !e->rows[i].id)
			continue;
		for (size_t k = 0; k < e->plan.n && !left; k++) {
			const struct kvb_plan_job *j = &e->plan.jobs[k];
			left = !j->warmup && j->variant == w->variant && j->round == w->round && j->spec == w->spec &&
			       !kvb_run_is_final(e->rows[k].status);
		}
		if (!left)
			continue;
		if (kvb_store_job_pending(e->st, e->rows[i].id, err))
			return KVB_ESTORE;
		snprintf(e->rows[i].status, sizeof(e->rows[i].status), "pending");
		n++;
	}
	if (n)
		kvb_store_event(e->st, e->run_id, "info", "resume: %lld warm-up job%s run again in the boots to come",
				(long long)n, n == 1 ? "" : "s");
	return KVB_OK;
}

static int resume_plan(struct engine *e, struct kvb_error *err)
{
	int64_t replanned = 0;
	int rc, killed = 0;
	/* a boot a killed run left with jobs to run (SIGKILL, a crash: nobody marked it) is interrupted;
	 * before the replan, which makes failed and skipped jobs pending again in boots that ended */
	rc = kvb_store_boots_interrupted(e->st, e->run_id, &killed, err);
	if (!rc && killed)
		kvb_store_event(e->st, e->run_id, "info", "resume: %d boot%s left with jobs to run marked interrupted", killed,
				killed == 1 ? "" : "s");
	/* what failed or was skipped runs again: a resume never leaves a failure as it found it and calls it done */
	if (!rc)
		rc = kvb_store_replan(e->st, e->run_id, &replanned, err);
	if (!rc && replanned) {
		kvb_info("run %lld: %lld failed or skipped job%s planned again", (long long)e->run_id,
			 (long long)replanned, replanned == 1 ? "" : "s");
		kvb_store_event(e->st, e->run_id, "info", "resume: %lld failed or skipped job%s planned again",
				(long long)replanned, replanned == 1 ? "" : "s");
	}
	if (!rc)
		rc = kvb_store_plan_load(e->st, e->run_id, e->rows, e->plan.n, err);
	if (!rc)
		rc = resume_rewarm(e, err);
	if (!rc)
		rc = kvb_store_run_status(e->st, e->run_id, "running", 0, err);
	if (!rc)
		kvb_store_event(e->st, e->run_id, "info", "resumed");
	return rc;
}

/* The run's plan and rows, stored for a new run or reloaded from the store for --resume (e->run_id). */
int kvb_run_setup(struct engine *e, struct kvb_error *err)
{
	const struct kvb_run_opts *o = e->o;
	struct kvb_plan_opts po = kvb_run_plan_opts(e);
	int rc;
	if (o->resume_run > 0 && (rc = kvb_store_run_get_warmup(e->st, o->resume_run, &po.default_warmup, err)))
		return rc;
	kvb_plan_build_opts(&e->plan, e->a, &po);
	e->rows = kvb_xcalloc(e->plan.n + 1, sizeof(*e->rows));
	e->variant_ids = kvb_xcalloc(e->a->nvariants + 1, sizeof(*e->variant_ids));
	e->variant_failed = kvb_xcalloc(e->a->nvariants + 1, sizeof(*e->variant_failed));
	e->variant_why = kvb_xcalloc(e->a->nvariants + 1, sizeof(*e->variant_why));
	if (o->resume_run > 0) {
		e->run_id = o->resume_run;
		if ((rc = find_variants(e, err)))
			return rc;
	} else {
		if ((rc = store_run(e, &po, err)) || (rc = store_variants(e, err)))
			return rc;
		if (o->on_variants && (rc = o->on_variants(o->on_variants_arg, e->st, e->run_id, err)))
			return rc;
	}
	fill_rows(e);
	if (o->resume_run > 0) {
		rc = resume_plan(e, err);
		if (!rc)
			kvb_run_resume_workloads(e); /* jobs still to run work as the earlier ones did (rt-app: their pLoad) */
	} else {
		rc = kvb_store_plan_add(e->st, e->run_id, e->rows, e->plan.n, err);
	}
	return rc;
}

void kvb_run_release_engine(struct engine *e)
{
	kvb_workload_states_release(&e->wstates);
	for (size_t i = 0; e->rows && i < e->plan.n; i++) {
		free(e->rows[i].params_json);
		free(e->rows[i].runtime_json);
	}
	free(e->rows);
	free(e->job_cgroup);
	cJSON_Delete(e->knob_recorded);
	free(e->variant_ids);
	free(e->variant_failed);
	for (size_t v = 0; e->variant_why && v < e->a->nvariants; v++)
		free(e->variant_why[v]);
	free(e->variant_why);
	free(e->artdir);
	free(e->instr_err);
	kvb_instr_set_release(&e->instr);
	kvb_plan_release(&e->plan);
	if (e->target_open)
		kvb_target_close(&e->target);
}
