/* Implements a bisect's measurements (steps.h): one commit built and run as a stored run. */
#include "bisect/steps.h"
#include "engine/catalog.h"
#include "config/agenda.h"
#include "core/log.h"
#include "core/util.h"
#include "engine/engine.h"
#include "kbuild/prepare.h"
#include "store/disturbance.h"

#include <stdlib.h>
#include <string.h>

/* The agenda run on commit sha (already built into set); the engine's return. */
static int run_agenda(struct kvb_bisect *b, struct kvb_agenda *a, struct kvb_build_set *set, const char *sha,
		      int rounds, int64_t *run_id, struct kvb_error *err)
{
	char *cmd = kvb_xasprintf("%s (step %d, %.12s)", b->row.command_line, b->step, sha);
	struct kvb_run_opts ro = {
		.agenda = a, .plat = &b->plat, .store = b->st, .rounds = rounds, .command_line = cmd,
		.on_variants = kvb_build_record, .on_variants_arg = set,
	};
	int rc = kvb_engine_run(&ro, run_id, err);
	free(cmd);
	return rc;
}

/* What the stored run says about the measurement: interrupted, the variant failed (*why), or measured. */
static int read_outcome(struct kvb_bisect *b, int64_t run_id, int engine_rc, char **why, int *booted,
			struct kvb_error *err)
{
	struct kvb_run_outcome o;
	int rc = kvb_store_run_outcome(b->st, run_id, &o, err);
	if (rc)
		return rc;
	if (*booted == 0)
		*booted = o.boots > 0;
	/* the engine's own signal handler caught a Ctrl-C: it says so, whatever the run's status reads */
	if (engine_rc == KVB_EINTR || (o.run_status && !strcmp(o.run_status, "interrupted"))) {
		b->cancel = 1;
		rc = kvb_error_set(err, KVB_EINTR, "run %lld interrupted", (long long)run_id);
	} else if (o.variant_status && !strcmp(o.variant_status, "failed")) {
		*why = kvb_xstrdup(o.variant_error ? o.variant_error : "variant failed");
	} else if (!o.run_status) {
		rc = kvb_error_set(err, KVB_ESTORE, "%s: run %lld of the bisect is not stored", b->st->path,
				   (long long)run_id);
	}
	kvb_store_run_outcome_release(&o);
	return rc;
}

/* KVB_BISECT_FIRST_BOOTS, or fewer when the agenda's specs have fewer iterations (a round would be empty). */
static int first_boots(const struct kvb_agenda *a)
{
	int most = 0;
	for (size_t i = 0; i < a->nspecs; i++)
		if (a->specs[i].iterations > most)
			most = a->specs[i].iterations;
	return most > 0 && most < KVB_BISECT_FIRST_BOOTS ? most : KVB_BISECT_FIRST_BOOTS;
}

int kvb_bisect_disturbance(struct kvb_bisect *b, const int64_t *runs, size_t nruns, const char *what, int64_t *left_out,
			   struct kvb_error *err)
{
	struct kvb_disturbance d;
	int rc = kvb_store_disturbance(b->st, runs, nruns, &d, err);
	*left_out = 0;
	if (rc)
		return rc;
	*left_out = d.left_out;
	if (d.left_out) {
		char *line = kvb_disturbance_line(&d);
		kvb_info("bisect: %s: %s", what, line ? line : "jobs left out by the host");
		free(line);
	}
	return KVB_OK;
}

int kvb_bisect_too_busy(struct kvb_bisect *b, const int64_t *runs, size_t nruns, const char *what,
			struct kvb_error *err)
{
	struct kvb_disturbance d;
	int rc = kvb_store_disturbance(b->st, runs, nruns, &d, err);
	if (rc)
		return rc;
	return kvb_error_set(err, KVB_EUNDECIDED,
			     "the host was too busy to decide %s: %lld of %lld jobs disturbed; run on a quieter host or on "
			     "the instruction-clock board -p qemu-x86_64-icount",
			     what, (long long)d.disturbed, (long long)d.on_host);
}

int kvb_bisect_measure(struct kvb_bisect *b, const char *sha, int rounds, int64_t *run_id, char **why, int *booted,
		       struct kvb_error *err)
{
	struct kvb_agenda a;
	struct kvb_diag d;
	struct kvb_build_set set;
	struct kvb_prepare_opts po = { .allow_dirty = 1, .repo = b->row.repo, .cancel = &b->cancel,
				       .platform_file = b->plat.file };
	const char *const shas[] = { sha };
	int rc;

	*why = NULL;
	*run_id = 0;
	*booted = 0;
	if (b->cancel) /* Ctrl-C between runs (git, a cached image): our handler, not the engine's, caught it */
		return kvb_error_set(err, KVB_EINTR, "interrupted before measuring %.12s", sha);
	memset(&a, 0, sizeof(a));
	memset(&set, 0, sizeof(set));
	kvb_diag_init(&d, NULL);
	if (kvb_agenda_load(&a, b->row.agenda_path, &kvb_catalog, &d)) {
		rc = kvb_error_set(err, KVB_EINPUT, "%s", d.msgs.n ? d.msgs.v[0] : "cannot load the agenda");
		goto out;
	}
	if (rounds <= 0 && a.rounds <= 0)
		rounds = first_boots(&a); /* not the platform's default (3 on QEMU): two boots a side can decide */
	kvb_build_set_variants(&a, b->row.repo, shas, 1);
	po.platform_build = b->plat.doc.root ? cJSON_GetObjectItemCaseSensitive(b->plat.doc.root, "build") : NULL;
	if ((rc = kvb_build_prepare(&a, &po, &set, err)))
		goto out;
	if (set.n && set.items[0].res.error)
		*booted = -1; /* a commit that does not build says nothing about the board */
	if (b->cancel) {
		rc = kvb_error_set(err, KVB_EINTR, "interrupted before measuring %.12s", sha);
		goto out;
	}
	rc = run_agenda(b, &a, &set, sha, rounds, run_id, err);
	/* failed jobs or an interrupted run: the stored run and its variant say which */
	/* KVB_ETARGET with a run: it ran and no board answered for its variant (exit 4); the variant's error says why */
	if (!rc || rc == KVB_EJOBS || rc == KVB_EINTR || (rc == KVB_ETARGET && *run_id))
		rc = *run_id ? read_outcome(b, *run_id, rc, why, booted, err)
			     : kvb_error_set(err, KVB_EINTR, "interrupted before the run of %.12s began", sha);
out:
	kvb_diag_release(&d);
	kvb_build_set_release(&set);
	kvb_agenda_release(&a);
	return rc;
}

int kvb_bisect_measure_endpoint(struct kvb_bisect *b, const char *which, const char *sha, int64_t *run, int extra,
				int64_t *left_out, struct kvb_error *err)
{
	char *why = NULL, *what;
	int booted, rc;
	int64_t more = 0;
	*left_out = 0;
	if (*run && !extra)
		return KVB_OK; /* measured (its disturbance was counted when it was) */
	kvb_info("bisect: measuring the %s endpoint %.12s%s", which, sha, extra ? " once more" : "");
	rc = kvb_bisect_measure(b, sha, extra ? 1 : b->row.rounds, extra ? &more : run, &why, &booted, err);
	if (!rc && why && booted != -1) {
		/* an endpoint is a commit that builds and boots (its other runs say so): one failed
		 * boot or identity check of it is the board's, seen under load (a boot timeout), so it
		 * gets one more try before the bisect is aborted; the failed run stays stored */
		kvb_warn("bisect: the %s endpoint %.12s could not be measured (%s): measuring it once more", which, sha,
			 why);
		free(why);
		why = NULL;
		rc = kvb_bisect_measure(b, sha, extra ? 1 : b->row.rounds, extra ? &more : run, &why, &booted, err);
	}
	if (!rc && why) {
		rc = kvb_error_set(err, KVB_ETARGET, "the %s endpoint %.12s cannot be measured: %s", which, sha, why);
		free(why);
	}
	if (rc) {
		if (!extra)
			*run = 0; /* not measured: --resume measures it again */
		return rc;
	}
	if (extra) {
		if (!(rc = kvb_store_bisect_add_endpoint_run(b->st, b->row.id, which, more, err)))
			kvb_bisect_runs_add(&b->ends, more);
	} else {
		rc = kvb_store_bisect_set_endpoint(b->st, b->row.id, which, *run, err);
	}
	if (rc)
		return rc;
	what = kvb_xasprintf("the %s endpoint %.12s", which, sha);
	rc = kvb_bisect_disturbance(b, extra ? &more : run, 1, what, left_out, err);
	free(what);
	return rc;
}
