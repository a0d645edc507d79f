/* Implements `run --resume -V`: new files for a variant that failed, refused for one that has results. */
#include "engine/repair.h"
#include "core/suggest.h"
#include "core/buf.h"
#include "core/util.h"
#include "engine/engine.h"
#include "flash/fetch.h"

#include <stdlib.h>
#include <string.h>

/* The count(*) that sql (one ?, bound to id) gives, in *n; KVB_ESTORE when it cannot be read. */
static enum kvb_err count(struct kvb_store *st, const char *sql, int64_t id, int64_t *n, struct kvb_error *err)
{
	sqlite3_stmt *q;
	int rc = KVB_OK;
	if (sqlite3_prepare_v2(st->db, sql, -1, &q, NULL) != SQLITE_OK)
		return kvb_error_set(err, KVB_ESTORE, "%s: %s", st->path, sqlite3_errmsg(st->db));
	sqlite3_bind_int64(q, 1, id);
	if (sqlite3_step(q) == SQLITE_ROW)
		*n = sqlite3_column_int64(q, 0);
	else
		rc = kvb_error_set(err, KVB_ESTORE, "%s: %s", st->path, sqlite3_errmsg(st->db));
	sqlite3_finalize(q);
	return rc;
}

static char *variant_names(const struct kvb_agenda *a)
{
	struct kvb_buf b = KVB_BUF_INIT;
	for (size_t i = 0; i < a->nvariants; i++)
		kvb_buf_addf(&b, "%s%s", i ? ", " : "", a->variants[i].name);
	return kvb_buf_detach(&b);
}

static void bind_opt(sqlite3_stmt *q, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(q, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(q, i);
}

static int exec(struct kvb_store *st, const char *sql, struct kvb_error *err)
{
	char *msg = NULL;
	if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		kvb_error_set(err, KVB_ESTORE, "%s: %s", st->path, msg ? msg : sqlite3_errmsg(st->db));
		sqlite3_free(msg);
		return KVB_ESTORE;
	}
	return KVB_OK;
}

/* The row update, the job reset and the stored agenda, in one transaction. */
static int store_repair(struct kvb_store *st, int64_t run_id, int64_t vid, const struct kvb_variant *v,
			char sha[KVB_VF_N][65], const struct kvb_agenda *a, struct kvb_error *err)
{
	static const char upd_variant[] =
		"UPDATE variant SET kernel = ?1, kernel_sha256 = ?2, dtb = ?3, dtb_sha256 = ?4, initrd = ?5,"
		" initrd_sha256 = ?6, boot_image = ?7, boot_image_sha256 = ?8, modules = ?9, modules_sha256 = ?10,"
		" cmdline = ?11, expected_release = NULL, expected_version = NULL, status = 'pending', error = NULL"
		" WHERE id = ?12";
	static const char upd_jobs[] =
		"UPDATE job SET status = 'pending', error = NULL, attempts = 0, start_ns = NULL, end_ns = NULL"
		" WHERE variant_id = ?1 AND status IN ('failed', 'skipped')";
	static const char upd_run[] = "UPDATE run SET agenda_json = ?1 WHERE id = ?2";
	const char *files[KVB_VF_N] = { v->kernel, v->dtb, v->initrd, v->boot_image, v->modules };
	sqlite3_stmt *q = NULL;
	char *aj = kvb_engine_agenda_json(a);
	int rc;
	if ((rc = exec(st, "BEGIN IMMEDIATE", err)))
		goto out;
	if (sqlite3_prepare_v2(st->db, upd_variant, -1, &q, NULL) != SQLITE_OK)
		goto dberr;
	for (int i = 0; i < KVB_VF_N; i++) {
		bind_opt(q, 1 + 2 * i, files[i]);
		bind_opt(q, 2 + 2 * i, files[i] ? sha[i] : NULL);
	}
	bind_opt(q, 11, v->cmdline);
	sqlite3_bind_int64(q, 12, vid);
	if (sqlite3_step(q) != SQLITE_DONE)
		goto dberr;
	sqlite3_finalize(q);
	if (sqlite3_prepare_v2(st->db, upd_jobs, -1, &q, NULL) != SQLITE_OK)
		goto dberr;
	sqlite3_bind_int64(q, 1, vid);
	if (sqlite3_step(q) != SQLITE_DONE)
		goto dberr;
	sqlite3_finalize(q);
	if (sqlite3_prepare_v2(st->db, upd_run, -1, &q, NULL) != SQLITE_OK)
		goto dberr;
	sqlite3_bind_text(q, 1, aj, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(q, 2, run_id);
	if (sqlite3_step(q) != SQLITE_DONE)
		goto dberr;
	sqlite3_finalize(q);
	q = NULL;
	rc = exec(st, "COMMIT", err);
	goto out;
dberr:
	rc = kvb_error_set(err, KVB_ESTORE, "%s: repairing variant '%s': %s", st->path, v->name, sqlite3_errmsg(st->db));
	sqlite3_finalize(q);
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
out:
	free(aj);
	return rc;
}

int kvb_repair_variant(struct kvb_store *st, int64_t run_id, struct kvb_agenda *a, const char *arg,
		       int allow_unverified, struct kvb_error *err)
{
	static const char *const names[KVB_VF_N] = { "kernel", "dtb", "initrd", "boot_image", "modules" };
	const char *eq = strchr(arg, '=');
	char *name, *old_kernel = NULL, sha[KVB_VF_N][65];
	struct kvb_variant *v = NULL;
	int64_t vid = 0, done = 0;
	int rc;
	if (!eq || eq == arg)
		return kvb_error_set(err, KVB_EUSAGE, "-V '%s': expected NAME=KERNEL[,key=value...]", arg);
	/* files only: a knob is part of what the variant is, and its stored runtime_json says what ran */
	if (!strncmp(eq + 1, "cpus=", 5) || strstr(eq, ",cpus="))
		return kvb_error_set(err, KVB_EUSAGE,
				     "--resume -V '%s': cpus cannot change on resume (the variant's jobs so far ran "
				     "with its knobs); give new files only, or start a new run",
				     arg);
	name = kvb_xstrndup(arg, (size_t)(eq - arg));
	for (size_t i = 0; i < a->nvariants; i++)
		if (!strcmp(a->variants[i].name, name))
			v = &a->variants[i];
	if (!v || (rc = kvb_store_variant_find(st, run_id, name, &vid, err)) || !vid) {
		char *all = variant_names(a), dym[160];
		const char **names = kvb_xcalloc(a->nvariants + 1, sizeof(*names));
		for (size_t i = 0; i < a->nvariants; i++)
			names[i] = a->variants[i].name;
		rc = kvb_error_set(err, KVB_EUSAGE,
				   "--resume -V %s: run %lld has no variant '%s'%s (its variants: %s); a new variant needs "
				   "a new run",
				   name, (long long)run_id, name, kvb_did_you_mean(dym, sizeof(dym), name, names, a->nvariants),
				   all);
		free(names);
		free(all);
		goto out;
	}
	if ((rc = count(st, "SELECT count(*) FROM job WHERE variant_id = ? AND status NOT IN ('pending', 'running', "
			"'failed', 'skipped')", vid, &done, err)))
		goto out;
	if (done != 0) {
		rc = kvb_error_set(err, KVB_EUSAGE,
				   "--resume -V %s: variant '%s' of run %lld already has %lld finished job%s from kernel "
				   "'%s'; new files under the same name would put two kernels in one column. Keep this "
				   "run as it is, or compare the new kernel in a new run (`kvbench run AGENDA -V "
				   "%s-new=...`)",
				   name, name, (long long)run_id, (long long)done, done == 1 ? "" : "s",
				   v->kernel ? v->kernel : "(none)", name);
		goto out;
	}
	old_kernel = v->kernel ? kvb_xstrdup(v->kernel) : NULL;
	/* a sha256 belongs to the file it was given with: a new kernel without one drops the old */
	if (!strstr(eq, "sha256=")) {
		free(v->sha256);
		v->sha256 = NULL;
		cJSON_DeleteItemFromObjectCaseSensitive(v->raw, "sha256");
	}
	if ((rc = kvb_agenda_add_variant_arg(a, arg, err)))
		goto out;
	{
		const char *files[KVB_VF_N] = { v->kernel, v->dtb, v->initrd, v->boot_image, v->modules };
		for (int i = 0; i < KVB_VF_N; i++) {
			struct kvb_fetched f;
			char what[256];
			sha[i][0] = '\0';
			if (!files[i])
				continue;
			snprintf(what, sizeof(what), "--resume -V %s: %s", name, names[i]);
			if ((rc = kvb_fetch(files[i], i == KVB_VF_KERNEL ? v->sha256 : NULL, allow_unverified, what, &f,
					    err)))
				goto out;
			memcpy(sha[i], f.sha256, sizeof(f.sha256));
			kvb_fetched_release(&f);
		}
	}
	if ((rc = store_repair(st, run_id, vid, v, sha, a, err)))
		goto out;
	kvb_store_event(st, run_id, "info", "variant '%s' repaired on resume: kernel '%s' -> '%s' (sha256 %s)", name,
			old_kernel ? old_kernel : "(none)", v->kernel ? v->kernel : "(none)",
			v->kernel ? sha[KVB_VF_KERNEL] : "-");
out:
	free(old_kernel);
	free(name);
	return rc;
}
