/* Implements a board session: flash, boot and identity for (variant, round), knobs a crashed run left, a variant failed or skipped. */
#include "engine/run_internal.h"
#include "flash/kimage.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

int kvb_run_target_alive(struct engine *e)
{
	static const char *const argv[] = { "true", NULL };
	struct kvb_exec_result r;
	struct kvb_error err;
	int rc;
	kvb_exec_result_init(&r);
	rc = kvb_target_exec(&e->target, argv, 20000, &r, &err);
	kvb_exec_result_release(&r);
	return rc == KVB_OK && r.exit_code == 0;
}

/* Puts back knob values a crashed earlier run on this platform left changed (0004_knobs.sql). */
static void restore_leftover_knobs(struct engine *e)
{
	struct kvb_strv paths = KVB_STRV_INIT, vals = KVB_STRV_INIT;
	struct kvb_error err;
	if (kvb_store_knob_leftovers(e->st, e->plat->name, &paths, &vals, &err)) {
		kvb_warn("%s", err.msg);
	} else if (paths.n) {
		for (size_t i = 0; i < paths.n; i++)
			kvb_warn("restoring %s to '%s' (left changed by an interrupted run)", paths.v[i], vals.v[i]);
		if (kvb_knobs_write_back(&e->target, &paths, &vals, &err))
			kvb_warn("cannot restore every knob: %s", err.msg);
		else if (kvb_store_knob_clear(e->st, e->plat->name, &err))
			kvb_warn("%s", err.msg);
		kvb_store_event(e->st, e->run_id, "warning", "restored %zu knob(s) left changed by an interrupted run", paths.n);
	}
	kvb_strv_release(&paths);
	kvb_strv_release(&vals);
}

/* Marks every not-final job of variant v in round (or all rounds if round 0) as skipped. */
void kvb_run_skip_jobs(struct engine *e, size_t v, int round, const char *why)
{
	for (size_t i = 0; i < e->plan.n; i++) {
		const struct kvb_plan_job *j = &e->plan.jobs[i];
		struct kvb_error err;
		if (j->variant != v || (round && j->round != round))
			continue;
		if (strcmp(e->rows[i].status, "pending") && strcmp(e->rows[i].status, "running"))
			continue;
		struct kvb_job_outcome o = { .status = "skipped", .error = why, .attempts = e->rows[i].attempts };
		cJSON *c = kvb_run_job_classifiers(e, j);
		if (kvb_store_job_commit(e->st, e->run_id, e->rows[i].id, &o, NULL, c, &err))
			kvb_err("%s", err.msg);
		snprintf(e->rows[i].status, sizeof(e->rows[i].status), "skipped");
		cJSON_Delete(c);
	}
}

/* --until-decided: the look after round r; when it says stop, the rest of the plan is skipped. */
int kvb_run_until_decided_stop(struct engine *e, int r)
{
	struct kvb_error err;
	int stop = 0;
	char why[96];
	double elapsed = (double)(kvb_mono_ns() - e->t0_ns) / 1e9;
	/* the rounds run since t0 took this long each, on average: so will the next (--max-time) */
	e->looks++;
	if (kvb_decide_look(e->st, e->run_id, e->o->decide, r, e->a->order == KVB_ORDER_DUET, elapsed,
			    elapsed / e->looks, &stop, &err))
		kvb_err("%s", err.msg);
	if (!stop)
		return 0;
	snprintf(why, sizeof(why), "not needed: decided after round %d (--until-decided)", r);
	for (size_t v = 0; v < e->a->nvariants; v++)
		kvb_run_skip_jobs(e, v, 0, why);
	return 1;
}

void kvb_run_fail_variant(struct engine *e, size_t v, const char *why, int code)
{
	struct kvb_error err;
	e->variant_failed[v] = 1;
	e->failures++;
	e->target_failures += code == KVB_ETARGET || code == KVB_EBOARD;
	kvb_err("variant %s failed: %s", e->a->variants[v].name, why); /* an event via log_to_events */
	if (kvb_store_variant_status(e->st, e->variant_ids[v], "failed", why, &err))
		kvb_err("%s", err.msg);
	kvb_run_skip_jobs(e, v, 0, why);
}

/*
 * "<artdir>/boot-<variant>-r<round>". A variant name is agenda text: it only
 * enters the path as one sanitised component (no '/', no leading '.'), with
 * the variant's index when sanitising changed it, so two names cannot share
 * a directory and none can leave the run's directory.
 */
char *kvb_run_boot_dir(struct engine *e, size_t v, int round)
{
	const char *name = e->a->variants[v].name;
	char *safe = kvb_path_component(name), *d;
	if (strcmp(safe, name))
		d = kvb_xasprintf("%s/boot-%s-%zu-r%d", e->artdir, safe, v, round);
	else
		d = kvb_xasprintf("%s/boot-%s-r%d", e->artdir, safe, round);
	free(safe);
	return d;
}

/* The variant's kernel and boot_image are what they say and for the platform's arch (flash/kimage.h
 * kvb_kimage_check, the preflight's check), before the flasher copies anything: KVB_EINPUT fails the
 * variant, not the run (a text file given as kernel on an ssh-copy board was copied and the board
 * rebooted into a timeout). */
static int check_images(struct engine *e, const struct kvb_variant *vr, struct kvb_error *err)
{
	static const int fields[] = { KVB_VF_KERNEL, KVB_VF_BOOT_IMAGE };
	for (size_t i = 0; i < KVB_ARRAY_SIZE(fields); i++) {
		char *note = NULL;
		const char *path = vr->local[fields[i]];
		if (!path)
			continue;
		if (kvb_kimage_check(path, fields[i] == KVB_VF_BOOT_IMAGE, e->plat->arch, &note, err)) {
			kvb_error_prefix(err, "%s: not flashed", fields[i] == KVB_VF_BOOT_IMAGE ? "boot_image" : "kernel");
			return KVB_EINPUT;
		}
		free(note);
	}
	return KVB_OK;
}

/* Flash + boot + identity for (variant, round). */
int kvb_run_bring_up(struct engine *e, size_t v, int round, struct kvb_error *err)
{
	kvb_run_thread_engine = e;
	const struct kvb_flasher_ops *fl = kvb_flasher_find(e->plat->flash_method);
	struct kvb_flash_ctx fc;
	struct kvb_boot_row b;
	struct kvb_identity id;
	int rc;
	char *bdir = kvb_run_boot_dir(e, v, round);
	e->identity_failed = 0;

	memset(&b, 0, sizeof(b));
	memset(&id, 0, sizeof(id));
	e->boot_id = 0;
	b.round = round;
	b.started_ns = kvb_wall_ns();
	if (kvb_mkdir_nofollow(bdir, 0755)) {
		rc = kvb_error_set(err, KVB_ESTORE, "cannot create artifact directory %s: %s", bdir, strerror(errno));
		goto out;
	}
	if (!fl) {
		rc = kvb_error_set(err, KVB_EINPUT, "%s: flash.method '%s' is not available", e->plat->file,
				   e->plat->flash_method);
		goto out;
	}
	if ((fl->caps & KVB_FLASH_INSTALLS_KERNEL) && (rc = check_images(e, &e->a->variants[v], err)))
		goto out;
	if (!e->target_open) {
		e->target.wants = kvb_instr_set_wants(&e->instr);
		rc = kvb_target_open(&e->target, e->plat, err);
		if (rc)
			goto out;
		e->target.cancel = &kvb_run_cancel;
		e->target_open = 1;
	}
	memset(&fc, 0, sizeof(fc));
	fc.target = &e->target;
	fc.plat = e->plat;
	fc.variant = &e->a->variants[v];
	fc.artifact_dir = bdir;
	fc.round = round;
	fc.timeout_ms = (uint64_t)e->plat->boot_timeout_s * 1000;
	rc = fl->flash(&fc, err);
	if (fc.console_log) {
		/* the boot's console is kept whatever happened (a kernel that does not boot explains itself there) */
		struct kvb_error e2;
		if (!access(fc.console_log, R_OK) && kvb_store_run_artifact(e->st, e->run_id, "console", fc.console_log, &e2))
			kvb_warn("%s", e2.msg);
		free(fc.console_log);
	}
	if (rc)
		goto out;
	rc = kvb_identity_check(&e->target, &e->a->variants[v], &id, err);
	e->identity_failed = rc != KVB_OK && id.cmdline; /* read whole, then compared: another kernel ran */
	if (!rc)
		restore_leftover_knobs(e);
out:
	b.ready_ns = kvb_wall_ns();
	b.status = rc ? "failed" : "ok";
	b.error = rc ? err->msg : NULL;
	b.running_release = id.release;
	b.running_version = id.version;
	b.running_cmdline = id.cmdline;
	b.board = e->device[0] ? e->device : e->board;
	b.lava_job_id = e->lava_job_id;
	b.lava_url = e->lava_url[0] ? e->lava_url : NULL;
	{
		struct kvb_error e2;
		/* a new row for every boot, so a resumed round's boot never replaces the killed one (issue 38) */
		if (kvb_store_boot_record(e->st, e->variant_ids[v], &b, &e->boot_id, &e2))
			kvb_err("%s", e2.msg);
	}
	if (!rc)
		kvb_store_event(e->st, e->run_id, "info", "variant %s round %d: running %s (%s)", e->a->variants[v].name,
				round, id.release ? id.release : "?", id.cmdline ? id.cmdline : "");
	kvb_identity_release(&id);
	free(bdir);
	return rc;
}

/* After a failed attempt the board does not answer: its boot timeout to come back. 1 when it did, 0: lost. */
int kvb_run_board_came_back(struct engine *e)
{
	/* The board stopped answering: give it its boot timeout to come back. */
	struct kvb_error e3;
	kvb_warn("target not answering; waiting up to %d s", e->plat->boot_timeout_s);
	if (e->pool_ctl) /* meanwhile no unit of the pool waits for this board */
		kvb_pool_board_trouble(e->pool_ctl, 1);
	if (kvb_target_wait_ready(&e->target, (uint64_t)e->plat->boot_timeout_s * 1000, &e3) || !kvb_run_target_alive(e))
		return 0;
	if (e->pool_ctl)
		kvb_pool_board_trouble(e->pool_ctl, 0);
	return 1;
}
