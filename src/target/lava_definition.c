/* Implements a unit's LAVA job definition: the files it offers, its timeouts, the deploy and boot actions from the platform's templates (lava_def.c) and the test action that runs the recorded commands. */
#include "target/lava_internal.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static int is_url(const char *s, int file_ok)
{
	return s && (!strncmp(s, "http://", 7) || !strncmp(s, "https://", 8) || (file_ok && !strncmp(s, "file://", 7)));
}

/* "http://HOST:PORT" of kvbench's server as host sees it (IPv6 in brackets). Owned. */
static char *base_url(const char *host, unsigned port)
{
	return kvb_xasprintf(strchr(host, ':') && host[0] != '[' ? "http://[%s]:%u" : "http://%s:%u", host, port);
}

void kvb_lava_parts_release(struct def_parts *p)
{
	for (int i = 0; i < KVB_LV_N; i++)
		free(p->owned[i]);
	for (size_t i = 0; i < p->nfiles; i++)
		free(p->files[i]);
	memset(p, 0, sizeof(*p));
}

/*
 * Variable v as LAVA downloads the file: a URL as given (file:// too when file_ok),
 * else the local copy: file:// offline (--dry-run), else its URL on kvbench's
 * server (base/ftoken/name), queued in p->files for offering.
 */
static int set_file(struct def_parts *p, enum kvb_lava_var v, enum kvb_lava_var comp, const char *given,
		    const char *local, int file_ok, const char *base, const char *ftoken, struct kvb_error *err)
{
	const char *name;
	if (is_url(given, file_ok)) {
		p->vars[v] = given;
		if (comp != KVB_LV_N)
			p->vars[comp] = kvb_lava_compression(given);
		return KVB_OK;
	}
	if (!local && given && !is_url(given, 1))
		local = given; /* --dry-run: the variant's files are not fetched */
	if (!local)
		return KVB_OK;
	if (comp != KVB_LV_N)
		p->vars[comp] = kvb_lava_compression(local);
	if (!base) {
		char *abs = realpath(local, NULL);
		p->owned[v] = kvb_xasprintf("file://%s", abs ? abs : local);
		free(abs);
	} else {
		CURL *c = curl_easy_init();
		char *esc;
		if (p->nfiles == MAX_OFFERS)
			return kvb_error_set(err, KVB_EINPUT, "LAVA: too many files for one job (%s)", local);
		name = strrchr(local, '/') ? strrchr(local, '/') + 1 : local;
		esc = c ? curl_easy_escape(c, name, 0) : NULL;
		p->owned[v] = kvb_xasprintf("%s/%s/%s", base, ftoken, esc ? esc : name);
		if (esc)
			curl_free(esc);
		if (c)
			curl_easy_cleanup(c);
		p->files[p->nfiles++] = kvb_xstrdup(local);
	}
	p->vars[v] = p->owned[v];
	return KVB_OK;
}

static cJSON *minutes(long m)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "minutes", (double)m);
	return o;
}

/*
 * The job's test action timeout and its own, minutes: the test action's is
 * lava.test_timeout_min, else the sum of its commands' own timeouts (a workload's
 * timeout_s ...) and 2 minutes for the shell; the job's outlasts all its actions.
 */
static void job_timeouts(const struct lava_state *st, long *test, long *job)
{
	long deploy = (long)kvb_get_int(st->lava, "deploy_timeout_min", 10), boot = (long)kvb_get_int(st->conn, "boot_timeout_min", 5);
	long report = ((long)kvb_get_int(st->lava, "report_timeout_s", 300) + 59) / 60;
	uint64_t sum_ms = 0;
	for (size_t k = 0; k < st->n; k++)
		sum_ms += st->v[k].timeout_ms;
	*test = (long)kvb_get_int(st->lava, "test_timeout_min", (long long)((sum_ms + 59999) / 60000) + 2);
	/* LAVA ends a job at its own timeout whatever its actions do: it must outlast all of them */
	*job = deploy + boot + *test + report + 5;
	if (kvb_get_int(st->conn, "job_timeout_min", 0) > *job)
		*job = (long)kvb_get_int(st->conn, "job_timeout_min", 0);
}

/* The report step: wait for kvbench's results (report_url), file them as LAVA test cases; else exit statuses. */
static char *report_step(const struct lava_state *st, const char *report_url)
{
	struct kvb_buf b = KVB_BUF_INIT, labels = KVB_BUF_INIT;
	long limit = ((long)kvb_get_int(st->lava, "report_timeout_s", 300) + 1) / 2;
	for (size_t i = 0; i < st->n; i++) {
		int seen = 0;
		if (strncmp(st->v[i].key, "job ", 4))
			continue;
		for (size_t k = 0; k < i && !seen; k++)
			seen = !strcmp(st->v[k].label, st->v[i].label);
		if (!seen)
			kvb_buf_addf(&labels, " %s", st->v[i].label);
	}
	if (report_url)
		kvb_buf_addf(&b,
			     "echo \"KVB-$KVB_N - WAIT\"; kvb_i=0; kvb_m=0; kvb_ok=; while [ $kvb_i -lt %ld ]; do "
			     "if { wget -q -O /tmp/kvb-r '%s' || busybox wget -q -O /tmp/kvb-r '%s' || "
			     "curl -sf -o /tmp/kvb-r '%s'; } 2>/dev/null; then kvb_m=0; read kvb_h </tmp/kvb-r; "
			     "[ \"$kvb_h\" = 'kvb-results 1 ready' ] && { kvb_ok=1; break; }; "
			     "else kvb_m=$((kvb_m + 1)); [ $kvb_m -ge 15 ] && break; fi; kvb_i=$((kvb_i + 1)); sleep 2; done; ",
			     limit, report_url, report_url, report_url);
	else
		kvb_buf_adds(&b, "kvb_ok=; ");
	kvb_buf_addf(&b,
		     /* KMSG: lava-test-case signals through /dev/kmsg as one kernel message, which the
		      * console prints whole: a printk cannot land inside it (Linaro test-definitions PR #562) */
		     "if [ -n \"$kvb_ok\" ]; then sed 1d /tmp/kvb-r | while read kvb_c kvb_r kvb_v kvb_u; do "
		     "if [ -n \"$kvb_v\" ]; then KMSG=1 lava-test-case \"$kvb_c\" --result \"$kvb_r\" --measurement \"$kvb_v\" "
		     "--units \"$kvb_u\"; else KMSG=1 lava-test-case \"$kvb_c\" --result \"$kvb_r\"; fi; done; "
		     "else echo \"KVB-$KVB_N - NOTE no results from kvbench: filing exit statuses\"; "
		     "for kvb_c in%s; do case \"$kvb_bad\" in *\" $kvb_c \"*) kvb_r=fail;; *) kvb_r=pass;; esac; "
		     "KMSG=1 lava-test-case \"$kvb_c\" --result $kvb_r; done; fi",
		     labels.len ? labels.data : " none");
	kvb_buf_release(&labels);
	return kvb_buf_detach(&b);
}

/*
 * The boot image of a device type that flashes one (fastboot), built into st->boot_image as
 * the fastboot flasher builds it, in the unit's artifact directory.
 */
static int build_boot_image(struct lava_state *st, const struct kvb_batch_unit *u, struct kvb_error *err)
{
	const struct kvb_variant *var = u->variant;
	char *dir = kvb_xasprintf("%s/lava-boot-image", u->artifact_dir);
	int rc;
	if (kvb_mkdir_p(dir, 0755)) {
		rc = kvb_error_set(err, KVB_ESTORE, "cannot create %s: %s", dir, strerror(errno));
		free(dir);
		return rc;
	}
	/* --dry-run fetches nothing: the variant's local files are the paths it gives */
	struct kvb_variant vv = *var;
	const char *given[KVB_VF_N] = { var->kernel, var->dtb, var->initrd, var->boot_image, var->modules };
	for (int i = 0; i < KVB_VF_N; i++)
		if (!vv.local[i] && given[i] && !is_url(given[i], 1))
			vv.local[i] = (char *)given[i];
	rc = kvb_fastboot_build_boot_image(st->plat, &vv, dir, NULL, &st->boot_image, err);
	free(dir);
	return rc;
}

/* The file variables of parts (set_file): only the files the template downloads are offered. */
static int template_files(const struct lava_state *st, const cJSON *tmpl, const struct kvb_variant *var,
			  const char *base, struct def_parts *parts, struct kvb_error *err)
{
	const char *rootfs = kvb_get_str(st->conn, "rootfs", NULL);
	struct {
		enum kvb_lava_var v, comp;
		const char *given, *local;
		int file_ok;
	} f[] = {
		{ KVB_LV_KERNEL, KVB_LV_N, var->kernel, var->local[KVB_VF_KERNEL], 0 },
		{ KVB_LV_INITRD, KVB_LV_INITRD_COMPRESSION, var->initrd, var->local[KVB_VF_INITRD], 0 },
		{ KVB_LV_DTB, KVB_LV_N, var->dtb, var->local[KVB_VF_DTB], 0 },
		{ KVB_LV_MODULES, KVB_LV_MODULES_COMPRESSION, var->modules, var->local[KVB_VF_MODULES], 0 },
		{ KVB_LV_BOOT_IMAGE, KVB_LV_N, var->boot_image,
		  var->local[KVB_VF_BOOT_IMAGE] ? var->local[KVB_VF_BOOT_IMAGE] : st->boot_image, 0 },
		{ KVB_LV_ROOTFS, KVB_LV_ROOTFS_COMPRESSION, rootfs, rootfs, 1 },
	};
	int rc = KVB_OK;
	for (size_t i = 0; i < KVB_ARRAY_SIZE(f) && !rc; i++)
		if (kvb_lava_template_uses(tmpl, f[i].v))
			rc = set_file(parts, f[i].v, f[i].comp, f[i].given, f[i].local, f[i].file_ok, base, st->ftoken, err);
	return rc;
}

/* The job's device tags: connection.tags, then the device's own tag; NULL when there are none. */
static cJSON *job_tags(const struct lava_state *st)
{
	cJSON *tags = cJSON_CreateArray();
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(st->conn, "tags");
	for (const cJSON *tg = cJSON_IsArray(v) ? v->child : v; tg; tg = cJSON_IsArray(v) ? tg->next : NULL) {
		char *ts = kvb_node_str(tg);
		cJSON_AddItemToArray(tags, cJSON_CreateString(ts ? ts : ""));
		free(ts);
	}
	if (st->job_tag[0])
		cJSON_AddItemToArray(tags, cJSON_CreateString(st->job_tag));
	if (cJSON_GetArraySize(tags))
		return tags;
	cJSON_Delete(tags);
	return NULL;
}

/* The job's context: the template's, then the connection's over it; NULL when empty. */
static cJSON *job_context(const struct lava_state *st, const cJSON *tmpl)
{
	cJSON *ctx = cJSON_CreateObject();
	for (int k = 0; k < 2; k++) {
		const cJSON *src = k ? cJSON_GetObjectItemCaseSensitive(st->conn, "context")
				     : cJSON_GetObjectItemCaseSensitive(tmpl, "context");
		for (const cJSON *kv = cJSON_IsObject(src) ? src->child : NULL; kv; kv = kv->next) {
			cJSON_DeleteItemFromObjectCaseSensitive(ctx, kv->string);
			cJSON_AddItemToObject(ctx, kv->string, cJSON_Duplicate(kv, 1));
		}
	}
	if (ctx->child)
		return ctx;
	cJSON_Delete(ctx);
	return NULL;
}

/* The job without its actions: device type, name, timeouts (minutes), priority, visibility, tags, context, metadata. */
static cJSON *job_head(const struct lava_state *st, const struct kvb_batch_unit *u, const cJSON *tmpl, const char *dt,
		       long test_min, long job_min)
{
	cJSON *job = cJSON_CreateObject(), *to = cJSON_CreateObject(), *o;
	const cJSON *v;
	cJSON_AddStringToObject(job, "device_type", dt);
	cJSON_AddStringToObject(job, "job_name", u->name);
	cJSON_AddItemToObject(to, "job", minutes(job_min));
	cJSON_AddItemToObject(to, "action", minutes(test_min));
	cJSON_AddItemToObject(to, "connection", minutes(2));
	cJSON_AddItemToObject(job, "timeouts", to);
	v = cJSON_GetObjectItemCaseSensitive(st->lava, "priority");
	if (cJSON_IsNumber(v))
		cJSON_AddNumberToObject(job, "priority", v->valuedouble);
	else
		cJSON_AddStringToObject(job, "priority", kvb_get_str(st->lava, "priority", "medium"));
	v = cJSON_GetObjectItemCaseSensitive(st->lava, "visibility");
	cJSON_AddItemToObject(job, "visibility", v ? cJSON_Duplicate(v, 1) : cJSON_CreateString("public"));
	if ((o = job_tags(st)))
		cJSON_AddItemToObject(job, "tags", o);
	if ((o = job_context(st, tmpl)))
		cJSON_AddItemToObject(job, "context", o);
	if ((v = cJSON_GetObjectItemCaseSensitive(st->lava, "metadata")))
		cJSON_AddItemToObject(job, "metadata", cJSON_Duplicate(v, 1));
	return job;
}

/* The test action: the prelude (nonce, console loglevel, kvb_x), every recorded command, then the results. */
static cJSON *test_action(const struct lava_state *st, const struct kvb_batch_unit *u, const char *report_url,
			  long test_min)
{
	cJSON *steps = cJSON_CreateArray(), *run, *meta, *repo, *def, *defs, *test, *a;
	char *s = kvb_lava_shell_prelude(st->nonce, (int)kvb_get_int(st->lava, "console_loglevel", 1));
	cJSON_AddItemToArray(steps, cJSON_CreateString(s));
	free(s);
	for (size_t k = 0; k < st->n; k++) {
		s = kvb_lava_shell_step(k, st->v[k].label, st->v[k].argv_sh);
		cJSON_AddItemToArray(steps, cJSON_CreateString(s));
		free(s);
	}
	s = report_step(st, report_url);
	cJSON_AddItemToArray(steps, cJSON_CreateString(s));
	free(s);
	run = cJSON_CreateObject();
	cJSON_AddItemToObject(run, "steps", steps);
	meta = cJSON_CreateObject();
	cJSON_AddStringToObject(meta, "format", "Lava-Test Test Definition 1.0");
	cJSON_AddStringToObject(meta, "name", "kvbench");
	cJSON_AddStringToObject(meta, "description", u->name);
	repo = cJSON_CreateObject();
	cJSON_AddItemToObject(repo, "metadata", meta);
	cJSON_AddItemToObject(repo, "run", run);
	def = cJSON_CreateObject();
	cJSON_AddItemToObject(def, "repository", repo);
	cJSON_AddStringToObject(def, "from", "inline");
	cJSON_AddStringToObject(def, "name", "kvbench");
	cJSON_AddStringToObject(def, "path", "inline/kvbench.yaml");
	defs = cJSON_CreateArray();
	cJSON_AddItemToArray(defs, def);
	test = cJSON_CreateObject();
	cJSON_AddItemToObject(test, "timeout", minutes(test_min));
	cJSON_AddItemToObject(test, "definitions", defs);
	a = cJSON_CreateObject();
	cJSON_AddItemToObject(a, "test", test);
	return a;
}

/*
 * The definition for what was recorded (JSON, which LAVA's YAML loader reads), with
 * the unit's nonce and file token; port: kvbench's server (0 offline: local files
 * as file:// URLs). Files to serve go to parts. Owned; NULL + err.
 */
char *kvb_lava_build_definition(struct lava_state *st, const struct kvb_batch_unit *u, unsigned port,
		       struct def_parts *parts, struct kvb_error *err)
{
	const cJSON *c = st->conn, *tmpl;
	const struct kvb_variant *var = u->variant;
	const char *dt = kvb_get_str(c, "device_type", "");
	const char *host = kvb_get_str(c, "serve_host", NULL), *rhost = kvb_get_str(c, "report_host", NULL);
	cJSON *job = NULL, *actions = NULL;
	struct kvb_buf cmdline = KVB_BUF_INIT;
	char *base = NULL, *s = NULL, *report_url = NULL;
	long test_min, job_min;

	memset(parts, 0, sizeof(*parts));
	if (!(tmpl = kvb_lava_template(st->lava, dt))) {
		kvb_error_set(err, KVB_EINPUT, "%s: lava.device_types has no template for device type '%s'", st->plat->file, dt);
		return NULL;
	}
	if (port)
		base = base_url(host && *host ? host : kvb_get_str(c, "serve_address", "127.0.0.1"), port);
	if (rhost && *rhost) {
		char *rb = base_url(rhost, port);
		report_url = kvb_xasprintf("%s/%s/results", rb, st->ftoken);
		free(rb);
	}
	if (kvb_lava_template_uses(tmpl, KVB_LV_BOOT_IMAGE) && !var->local[KVB_VF_BOOT_IMAGE] &&
	    !is_url(var->boot_image, 0) && !st->boot_image && build_boot_image(st, u, err))
		goto out;
	if (template_files(st, tmpl, var, base, parts, err))
		goto out;
	kvb_buf_addf(&cmdline, "%s%s%s", kvb_get_str(c, "kernel_cmdline", ""), var->cmdline ? " " : "",
		     var->cmdline ? var->cmdline : "");
	parts->vars[KVB_LV_CMDLINE] = cmdline.data;
	parts->vars[KVB_LV_PROMPT] = kvb_get_str(c, "prompt", "kvb-lava# ");
	parts->vars[KVB_LV_DEVICE_TYPE] = dt;

	job_timeouts(st, &test_min, &job_min);
	job = job_head(st, u, tmpl, dt, test_min, job_min);
	actions = cJSON_CreateArray();
	if (kvb_lava_template_actions(tmpl, dt, parts->vars, (long)kvb_get_int(st->lava, "deploy_timeout_min", 10),
				      (long)kvb_get_int(c, "boot_timeout_min", 5), actions, err))
		goto out;
	cJSON_AddItemToArray(actions, test_action(st, u, report_url, test_min));
	cJSON_AddItemToObject(job, "actions", actions);
	actions = NULL;
	s = cJSON_Print(job);
out:
	parts->vars[KVB_LV_CMDLINE] = NULL;
	cJSON_Delete(actions);
	cJSON_Delete(job);
	kvb_buf_release(&cmdline);
	free(base);
	free(report_url);
	return s;
}
