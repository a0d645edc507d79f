/* Implements --dry-run: the plan printed, and a batch target's definitions written. */
#include "engine/run_internal.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

/* Writes def to path with a header line saying what it is. 0, or -1 (errno). */
static int write_definition(const char *path, const char *def)
{
	FILE *f = kvb_fopen_nofollow(path);
	int bad;
	if (!f)
		return -1;
	bad = fprintf(f, "# written by kvbench run --dry-run: the LAVA job this unit would be (files on this host\n"
			 "# appear as file:// URLs; a run serves them over HTTP). JSON, which LAVA reads as YAML.\n%s\n",
		      def) < 0;
	bad |= fclose(f) != 0;
	return bad ? -1 : 0;
}

/*
 * --dry-run on a batch target (LAVA): each (variant, round) is recorded with the
 * target offline (nothing is reached, nothing runs) and the definition it would
 * submit is written to o->dry_run_dir/VARIANT-rROUND.yaml, for the user to read
 * (and for LAVA's own `lava-run --validate`).
 */
static int dry_run_batch(struct engine *e, struct kvb_error *err)
{
	const struct kvb_target_ops *ops = kvb_target_find(e->plat->conn_type);
	char tmp[] = "/tmp/kvbench-dry-run-XXXXXX";
	int rc = KVB_OK;
	if (!ops || !ops->batch || !e->o->dry_run_dir)
		return KVB_OK;
	if (kvb_mkdir_p(e->o->dry_run_dir, 0755))
		return kvb_error_set(err, KVB_ESTORE, "cannot create %s: %s", e->o->dry_run_dir, strerror(errno));
	if (!mkdtemp(tmp))
		return kvb_error_set(err, KVB_ESTORE, "cannot create a directory under /tmp: %s", strerror(errno));
	e->artdir = kvb_xstrdup(tmp); /* the recording's scratch (attempt_job's artifact directories) */
	e->target.offline = 1;
	if ((rc = kvb_target_open(&e->target, e->plat, err)))
		goto out;
	e->target_open = 1;
	for (int r = 1; r <= e->plan.rounds && !rc; r++)
		for (size_t v = 0; v < e->a->nvariants && !rc; v++) {
			char *safe = kvb_path_component(e->a->variants[v].name);
			char *dir = kvb_xasprintf("%s/%s-r%d", e->o->dry_run_dir, safe, r);
			char *path = kvb_xasprintf("%s.yaml", dir), name[256], *def;
			struct kvb_batch_unit u = { .variant = &e->a->variants[v], .round = r, .name = name, .artifact_dir = dir };
			snprintf(name, sizeof(name), "kvbench run (dry run) variant %s round %d", e->a->variants[v].name, r);
			kvb_run_batch_record(e, v, r, NULL);
			if (!(def = ops->batch->describe(&e->target, &u, err)))
				rc = err->code ? err->code : KVB_EINPUT;
			else if (write_definition(path, def))
				rc = kvb_error_set(err, KVB_ESTORE, "cannot write %s: %s", path, strerror(errno));
			else
				printf("unit  round %d  %-16s definition: %s\n", r, e->a->variants[v].name, path);
			free(def);
			free(path);
			free(dir);
			free(safe);
		}
out:
	if (e->target_open)
		kvb_target_close(&e->target);
	e->target_open = 0;
	{
		const char *rm[] = { "rm", "-rf", tmp, NULL };
		struct kvb_spawn_opts so = { .argv = rm, .timeout_ms = 60000 };
		struct kvb_exec_result r;
		struct kvb_error e2;
		kvb_exec_result_init(&r);
		kvb_spawn_run(&so, &r, &e2);
		kvb_exec_result_release(&r);
	}
	free(e->artdir);
	e->artdir = NULL;
	return rc;
}

/* --dry-run: the plan, one line a job; on a batch target, each unit's definition written out. */
int kvb_run_print_plan(struct engine *e, struct kvb_error *err)
{
	int rc;
	struct kvb_plan_opts po = kvb_run_plan_opts(e);
	kvb_plan_build_opts(&e->plan, e->a, &po);
	for (size_t i = 0; i < e->plan.n; i++) {
		const struct kvb_plan_job *j = &e->plan.jobs[i];
		/* --until-decided's spare rounds run only in place of a round the host disturbed */
		const char *spare = po.spare_rounds > 0 && j->round > po.rounds ? "  (spare round)" : "";
		if (j->warmup)
			printf("%4d  round %d  %-16s %-24s warm-up%s\n", j->seq, j->round, e->a->variants[j->variant].name,
			       j->spec->id, spare);
		else
			printf("%4d  round %d  %-16s %-24s #%d%s\n", j->seq, j->round, e->a->variants[j->variant].name,
			       j->spec->id, j->iteration, spare);
	}
	rc = dry_run_batch(e, err);
	kvb_plan_release(&e->plan);
	return rc;
}
