/* Implements `run --resume -V`: new files for a variant that failed, refused for one that has results. */
#include "engine/repair.h"
#include "core/suggest.h"
#include "core/buf.h"
#include "core/util.h"
#include "engine/engine.h"
#include "flash/fetch.h"
#include "store/status.h"

#include <stdlib.h>
#include <string.h>

static char *variant_names(const struct kvb_agenda *a)
{
	struct kvb_buf b = KVB_BUF_INIT;
	for (size_t i = 0; i < a->nvariants; i++)
		kvb_buf_addf(&b, "%s%s", i ? ", " : "", a->variants[i].name);
	return kvb_buf_detach(&b);
}

_Static_assert(KVB_VF_N == 5, "kvb_store_variant_repair takes the five files of enum kvb_vfile");

/* The variant's new files and the stored agenda, in one transaction. */
static int store_repair(struct kvb_store *st, int64_t run_id, int64_t vid, const struct kvb_variant *v,
			char sha[KVB_VF_N][65], const struct kvb_agenda *a, struct kvb_error *err)
{
	const char *files[KVB_VF_N] = { v->kernel, v->dtb, v->initrd, v->boot_image, v->modules };
	const char *sums[KVB_VF_N];
	char *aj = kvb_engine_agenda_json(a);
	int rc;
	for (int i = 0; i < KVB_VF_N; i++)
		sums[i] = files[i] ? sha[i] : NULL;
	rc = kvb_store_variant_repair(st, run_id, vid, v->name, files, sums, v->cmdline, aj, err);
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
	if ((rc = kvb_store_variant_jobs_done(st, vid, &done, err)))
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
