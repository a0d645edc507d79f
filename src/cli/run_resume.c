/* Implements `kvbench run --resume` (cli/run.h): the stored run reloaded, -V repairs, the stored stopping rule. */
#include "cli/run.h"
#include "engine/catalog.h"
#include "core/log.h"
#include "core/util.h"
#include "engine/repair.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int kvb_run_print_diag(struct kvb_diag *d)
{
	for (size_t i = 0; i < d->warnings.n; i++)
		fprintf(stderr, "%s (warning)\n", d->warnings.v[i]);
	for (size_t i = 0; i < d->msgs.n; i++)
		fprintf(stderr, "%s\n", d->msgs.v[i]);
	if (d->msgs.n)
		fprintf(stderr, "kvbench: %zu error%s\n", d->msgs.n, d->msgs.n == 1 ? "" : "s");
	return d->msgs.n ? KVB_EINPUT : KVB_OK;
}

/* Loads a stored run's agenda and platform for --resume; a finished run (status ok) loads nothing and sets *done
 * (the caller says so). */
static int load_stored(struct kvb_store *st, int64_t run, const char *plat_override, struct kvb_agenda *a,
		       struct kvb_platform *p, int *rounds, int *done, struct kvb_error *err)
{
	struct kvb_run_stored r;
	struct kvb_doc doc;
	struct kvb_diag d;
	int rc = kvb_store_run_load(st, run, &r, err);
	if (rc)
		return rc;
	*rounds = r.rounds; /* the plan is rebuilt exactly as it was stored */
	if (!strcmp(r.status, "ok")) {
		*done = 1;
		goto out;
	}
	if (!strcmp(r.status, "imported")) {
		rc = kvb_error_set(err, KVB_EINPUT, "run %lld is %s: nothing to resume", (long long)run, r.status);
		goto out;
	}
	kvb_diag_init(&d, NULL);
	char *name = kvb_xasprintf("%s (stored in run %lld)", r.agenda_path, (long long)run);
	rc = kvb_doc_parse(&doc, name, r.agenda_json, strlen(r.agenda_json), &d);
	if (!rc)
		rc = kvb_agenda_from_doc(a, &doc, &kvb_catalog, &d);
	kvb_doc_release(&doc);
	d.doc = NULL;
	/* the file the run was started with, when it is still there: a platform given as a path
	 * is not in the search path under its name */
	if (!rc)
		rc = kvb_platform_load(p, plat_override ? plat_override
						       : r.platform_path && kvb_is_file(r.platform_path) ? r.platform_path
						       : r.platform, &kvb_catalog, &d);
	if (rc && !plat_override && p->name == NULL && d.msgs.n)
		kvb_strv_pushf(&d.msgs, "run %lld was made on platform '%s': give its name or path with `--resume -p`",
			       (long long)run, r.platform);
	if (rc)
		kvb_run_print_diag(&d);
	kvb_diag_release(&d);
	free(name);
	if (rc)
		kvb_error_set(err, KVB_EINPUT, "cannot reload run %lld", (long long)run);
out:
	kvb_store_run_stored_release(&r);
	return rc;
}

/* --resume: the stored run's agenda, platform, rounds and stopping rule; -V repairs a failed variant.
 * Errors in err (the caller prints them). */
int kvb_run_setup_resume(struct kvb_cli *cli, struct run_args *r, struct run_setup *s, struct kvb_error *err)
{
	const char *db = cli->db_opt;
	int found = 0, rc;
	if (access(kvb_cli_db(db), F_OK))
		/* opening it read-write would create an empty database just to find nothing in it */
		return kvb_error_set(err, KVB_ENOTFOUND, "%s: no such results database, so no run to resume%s",
				     kvb_cli_db(db), db ? "" : " (give it with -d DB or $KVB_DB)");
	if ((rc = kvb_cli_store(cli, &s->st, err)))
		return rc;
	if (!r->resume_run && (rc = kvb_store_latest_run(s->st, &r->resume_run, err)))
		return rc;
	if (!r->resume_run)
		return kvb_error_set(err, KVB_EINPUT, "%s has no run to resume (start one with `kvbench run AGENDA -p "
				     "PLATFORM -d %s`)", s->st->path, s->st->path);
	if (r->rounds)
		kvb_warn("--rounds is ignored with --resume: the run keeps the rounds it was planned with");
	if ((rc = load_stored(s->st, r->resume_run, r->plat_name, &s->a, &s->p, &r->rounds, &s->done, err)))
		return rc;
	if (s->done && r->variants.n)
		/* -V repairs a failed variant; a finished run has none, and ignoring it would be silent */
		return kvb_error_set(err, KVB_EUSAGE, "run %lld is finished (status ok): nothing left to run, so -V '%s' "
				     "has no failed variant to apply to (start a new run for another kernel)",
				     (long long)r->resume_run, r->variants.v[0]);
	if (s->done) {
		printf("run %lld finished (status ok): nothing left to run\n", (long long)r->resume_run);
		return KVB_OK;
	}
	/* -V on resume: new files for a variant that failed (refused for one with results) */
	for (size_t i = 0; i < r->variants.n; i++)
		if ((rc = kvb_repair_variant(s->st, r->resume_run, &s->a, r->variants.v[i], r->unverified, err)))
			return rc;
	/* a run started --until-decided goes on with its stored rule */
	if (r->until)
		kvb_warn("--until-decided options are ignored with --resume: the run keeps the rule it was started with");
	kvb_decide_opts_release(&r->dec);
	if ((rc = kvb_decide_load(s->st, r->resume_run, &r->dec, &found, err)))
		return rc;
	r->until = found;
	/* the spare rounds for disturbed ones are the planned rounds beyond the looks */
	if (found && r->rounds > r->dec.max_rounds)
		r->dec.spare_rounds = r->rounds - r->dec.max_rounds;
	/* --resume -p X: X is the stored platform (found by path); a further -p joins its pool */
	return KVB_OK;
}
