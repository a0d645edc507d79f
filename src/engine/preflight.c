/* Implements the preflight: variant files, platform files and target tools, checked before the first flash. */
#include "engine/preflight.h"
#include "flash/kimage.h"
#include "engine/affinity.h"
#include "core/error.h"
#include "core/buf.h"
#include "engine/cgroup.h"
#include "engine/cpufreq_plan.h"
#include "core/sha256.h"
#include "flash/fetch.h"
#include "flash/flash.h"
#include "instrument/session.h"
#include "target/target.h"
#include "workload/workload.h"

#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Seconds a URL gets to answer a HEAD, and the board to answer at all (it may be off: that is only a note). */
#define PREFLIGHT_URL_TIMEOUT_S 15L
#define PREFLIGHT_PROBE_MS 5000u

static int is_url(const char *s)
{
	return strstr(s, "://") != NULL;
}

/* A readable regular file, or the reason it is not (owned), NULL when fine. */
static char *file_problem(const char *path)
{
	struct stat st;
	if (stat(path, &st))
		return kvb_xasprintf("'%s' does not exist (%s)", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return kvb_xasprintf("'%s' is not a regular file", path);
	if (access(path, R_OK))
		return kvb_xasprintf("'%s' is not readable (%s)", path, strerror(errno));
	return NULL;
}

/* HEAD (GET for servers that refuse HEAD is not tried: a 405 is reported as is). NULL when reachable, else why. */
static char *url_problem(const char *url)
{
	char ebuf[CURL_ERROR_SIZE] = "";
	char *why = NULL;
	CURL *c;
	CURLcode cc;
	if (!strncmp(url, "file://", 7))
		return file_problem(url + 7);
	if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8))
		return kvb_xasprintf("'%s': only http, https and file URLs are fetched", url);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	c = curl_easy_init();
	if (!c) {
		curl_global_cleanup();
		return kvb_xasprintf("'%s': cannot start libcurl", url);
	}
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(c, CURLOPT_FAILONERROR, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, PREFLIGHT_URL_TIMEOUT_S);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, ebuf);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	cc = curl_easy_perform(c);
	if (cc != CURLE_OK)
		why = kvb_xasprintf("'%s' is not reachable: %s", url, *ebuf ? ebuf : curl_easy_strerror(cc));
	curl_easy_cleanup(c);
	curl_global_cleanup();
	return why;
}

/* The artifact cache already holds a file of this sha256 (a URL need not answer then). */
static int cached(const char *sha)
{
	char *dir = kvb_fetch_cache_dir(), lower[65], hex[65];
	size_t i;
	int64_t bytes;
	int hit;
	for (i = 0; sha[i] && i < 64; i++)
		lower[i] = (char)tolower((unsigned char)sha[i]);
	lower[i] = '\0';
	char *path = kvb_xasprintf("%s/%s", dir, lower);
	hit = !kvb_sha256_file(path, hex, &bytes) && !strcmp(hex, lower);
	free(path);
	free(dir);
	return hit;
}

/* A variant with nothing to boot on a flasher that boots each variant's own kernel (qemu: "has no
 * kernel to boot" at the first flash, after the variants before it ran). A git variant gets its
 * kernel from the build, after the preflight. */
static void check_kernel_given(const struct kvb_variant *v, const struct kvb_platform *p, struct kvb_preflight *pf)
{
	const struct kvb_flasher_ops *f = kvb_flasher_find(p->flash_method);
	int image_ok = (f->caps & KVB_FLASH_WHOLE_BOOT_IMAGE) != 0;
	int needs = (f->caps & KVB_FLASH_NEEDS_KERNEL) && (!f->needs_kernel || f->needs_kernel(p));
	if (!needs || v->kernel || (image_ok && v->boot_image) ||
	    cJSON_GetObjectItemCaseSensitive(v->raw, "git"))
		return;
	kvb_strv_pushf(&pf->problems,
		       "variant '%s' has no kernel, but platform %s boots each variant's own kernel (flash method %s): "
		       "give it `kernel:`%s in the agenda, or -V %s=KERNEL",
		       v->name, p->name, p->flash_method, image_ok ? " (or `boot_image:`)" : "", v->name);
}

/* A variant's kernel or boot image that is not one, or not for the platform's arch (issue 41: `-V
 * patch=/etc/hostname` booted the other variant first, then failed in the board script): why, owned,
 * or NULL; a kernel whose release cannot be read is a note. A flasher that boots the file itself
 * (KVB_FLASH_READS_IMAGE) refuses the run; on the others (a hook, ssh-copy) the same check fails the
 * variant before anything is copied (engine/run_board.c), and here it is a note. */
static char *image_problem(const struct kvb_variant *v, const char *path, int boot_image, const struct kvb_platform *p,
			   struct kvb_preflight *pf)
{
	struct kvb_error err;
	char *note = NULL;
	if (kvb_kimage_check(path, boot_image, p ? p->arch : NULL, &note, &err)) {
		const struct kvb_flasher_ops *f = p ? kvb_flasher_find(p->flash_method) : NULL;
		if (!f || (f->caps & KVB_FLASH_READS_IMAGE))
			return kvb_xstrdup(err.msg);
		kvb_strv_pushf(&pf->notes, "variant '%s' %s: %s: the variant will fail before anything is flashed (flash "
			       "method %s)", v->name, boot_image ? "boot_image" : "kernel", err.msg, p->flash_method);
		return NULL;
	}
	if (note)
		kvb_strv_pushf(&pf->notes, "variant '%s' %s: %s", v->name, boot_image ? "boot_image" : "kernel", note);
	free(note);
	return NULL;
}

static void check_variant(const struct kvb_variant *v, const struct kvb_platform *p, int allow_unverified,
			  int series, struct kvb_preflight *pf)
{
	static const char *const names[KVB_VF_N] = { "kernel", "dtb", "initrd", "boot_image", "modules" };
	const char *src[KVB_VF_N] = { v->kernel, v->dtb, v->initrd, v->boot_image, v->modules };
	if ((v->kernel || v->boot_image) && p && !(kvb_flasher_find(p->flash_method)->caps & KVB_FLASH_INSTALLS_KERNEL))
		kvb_strv_pushf(&pf->problems,
			       "variant '%s' gives a kernel, but platform %s cannot install kernels (flash method %s)",
			       v->name, p->name, p->flash_method);
	if (p && !series)
		check_kernel_given(v, p, pf);
	for (int i = 0; i < KVB_VF_N; i++) {
		const char *sha = i == KVB_VF_KERNEL ? v->sha256 : NULL;
		char *why = NULL;
		if (!src[i])
			continue;
		if (!is_url(src[i])) {
			why = file_problem(src[i]);
			if (!why && sha) {
				struct kvb_fetched f;
				struct kvb_error err;
				if (kvb_fetch(src[i], sha, 0, names[i], &f, &err))
					why = kvb_xstrdup(err.msg + strlen(names[i]) + 2); /* "kernel: " is said below */
				kvb_fetched_release(&f);
			}
			if (!why && (i == KVB_VF_KERNEL || i == KVB_VF_BOOT_IMAGE))
				why = image_problem(v, src[i], i == KVB_VF_BOOT_IMAGE, p, pf);
		} else if (!sha && !allow_unverified) {
			why = kvb_xasprintf("refusing URL '%s' without a sha256 (give sha256, or --allow-unverified)", src[i]);
		} else if (!(sha && cached(sha))) {
			why = url_problem(src[i]);
		}
		if (why)
			kvb_strv_pushf(&pf->problems, "variant '%s' %s: %s", v->name, names[i], why);
		free(why);
	}
}

/* "~/x" -> $HOME/x; relative -> the platform directory (as the ssh backend reads them). Owned. */
static char *platform_path(const struct kvb_platform *p, const char *s)
{
	const char *home = getenv("HOME");
	if (s[0] == '~' && s[1] == '/')
		return kvb_xasprintf("%s%s", home && *home ? home : "", s + 1);
	if (s[0] == '/' || !p->dir)
		return kvb_xstrdup(s);
	return kvb_xasprintf("%s/%s", p->dir, s);
}

size_t kvb_preflight_platform(const struct kvb_platform *p, struct kvb_preflight *pf)
{
	/* connection keys that name a local file the connection cannot work without */
	static const char *const file_keys[] = { "key", "known_hosts" };
	size_t before = pf->problems.n;
	for (size_t i = 0; i < KVB_ARRAY_SIZE(file_keys); i++) {
		const char *s = kvb_get_str(p->conn, file_keys[i], NULL);
		char *path, *why;
		if (!s || !*s)
			continue;
		path = platform_path(p, s);
		why = file_problem(path);
		if (why) {
			char *key = kvb_xasprintf("connection.%s", file_keys[i]);
			int line, col;
			kvb_doc_loc(&p->doc, key, &line, &col);
			kvb_strv_pushf(&pf->problems, "%s:%d:%d: %s: %s", p->doc.file ? p->doc.file : p->file, line, col, key,
				       why);
			free(key);
		}
		free(why);
		free(path);
	}
	return pf->problems.n - before;
}

/* The tools the agenda's workloads need, each once. */
static void needed_tools(const struct kvb_agenda *a, struct kvb_strv *tools, struct kvb_strv *users)
{
	for (size_t s = 0; s < a->nspecs; s++) {
		const struct kvb_workload_ops *w = a->specs[s].ops;
		for (size_t k = 0; w && w->needs && w->needs[k]; k++) {
			size_t i;
			for (i = 0; i < tools->n && strcmp(tools->v[i], w->needs[k]); i++)
				;
			if (i == tools->n) {
				kvb_strv_push(tools, w->needs[k]);
				kvb_strv_push(users, w->name);
			}
		}
	}
}

/*
 * Jobs that run RT tasks (KVB_WORKLOAD_REALTIME) in a cgroup kvbench creates (cgroup_depth >= 1)
 * need an RT budget for it where RT group scheduling is on: with none free under the cpu
 * hierarchy's root (or less than the platform's cgroup.rt_runtime_us), the sweep is refused
 * here, with the budgets, instead of failing every such job with EPERM.
 */
static void probe_rt_budget(const struct kvb_agenda *a, const struct kvb_platform *p, struct kvb_target *t,
			    struct kvb_preflight *pf)
{
	struct kvb_buf who = KVB_BUF_INIT;
	struct kvb_cgroup_hier h;
	struct kvb_rt_budget b;
	struct kvb_error err;
	long long free_us;
	for (size_t s = 0; s < a->nspecs; s++) {
		const struct kvb_spec *sp = &a->specs[s];
		int depth = -1;
		if (!sp->ops || !(sp->ops->caps & KVB_WORKLOAD_REALTIME))
			continue;
		for (size_t v = 0; v < (a->nvariants ? a->nvariants : 1); v++) {
			struct kvb_runtime rt;
			kvb_runtime_copy(&rt, &p->setup);
			kvb_runtime_merge(&rt, &sp->rt);
			if (a->nvariants)
				kvb_runtime_merge(&rt, &a->variants[v].rt);
			depth = rt.cgroup_depth > depth ? rt.cgroup_depth : depth;
			kvb_runtime_release(&rt);
		}
		if (depth >= 1)
			kvb_buf_addf(&who, "%s'%s' (%s, cgroup_depth %d)", who.len ? ", " : "", sp->id, sp->ops->name, depth);
	}
	if (!who.len)
		return;
	if (kvb_cgroup_find(t, &h, &err)) {
		kvb_buf_release(&who);
		return; /* the jobs fail with the reason (no cpu controller) */
	}
	if (!h.v2 && !kvb_cgroup_rt_budget(t, h.mount, NULL, &b, &err) && b.has) {
		free_us = kvb_rt_budget_free_us(&b);
		if (p->cgroup_rt_runtime_us > 0 && p->cgroup_rt_runtime_us > free_us)
			kvb_strv_pushf(&pf->problems,
				       "jobs %s run real-time tasks in cgroups kvbench creates, but the platform's "
				       "cgroup.rt_runtime_us %lld does not fit: %s (%lld us free); the groups could not be "
				       "given it (Documentation/scheduler/sched-rt-group.rst)",
				       who.data, p->cgroup_rt_runtime_us, b.why, free_us);
		else if (free_us <= 0)
			kvb_strv_pushf(&pf->problems,
				       "jobs %s run real-time tasks in cgroups kvbench creates, but this kernel has RT group "
				       "scheduling and no RT budget is left for a new group: %s (%lld us free); a "
				       "SCHED_FIFO/RR task would fail with EPERM in them "
				       "(Documentation/scheduler/sched-rt-group.rst). Free some of that budget, or run them "
				       "at cgroup_depth 0",
				       who.data, b.why, free_us);
	}
	kvb_cgroup_hier_release(&h);
	kvb_buf_release(&who);
}

/* Every `cpus` knob the jobs will run with, each once, with who sets it (platform setup, variant, job). */
static void cpus_knobs(const struct kvb_agenda *a, const struct kvb_platform *p, struct kvb_strv *lists,
		       struct kvb_strv *who)
{
	if (p->setup.cpus) {
		kvb_strv_push(lists, p->setup.cpus);
		kvb_strv_push(who, "platform setup");
	}
	for (size_t v = 0; v < a->nvariants; v++)
		if (a->variants[v].rt.cpus) {
			kvb_strv_push(lists, a->variants[v].rt.cpus);
			kvb_strv_pushf(who, "variant '%s'", a->variants[v].name);
		}
	for (size_t s = 0; s < a->nspecs; s++)
		if (a->specs[s].rt.cpus) {
			kvb_strv_push(lists, a->specs[s].rt.cpus);
			kvb_strv_pushf(who, "job '%s'", a->specs[s].id);
		}
}

static int strv_has(const struct kvb_strv *v, const char *s);

/* 1 when a sysctl or sysfs knob is set anywhere (platform setup, a variant, a job). */
static int knob_files_any(const struct kvb_agenda *a, const struct kvb_platform *p)
{
	int any = p->setup.sysctl || p->setup.sysfs;
	for (size_t v = 0; v < a->nvariants && !any; v++)
		any = a->variants[v].rt.sysctl || a->variants[v].rt.sysfs;
	for (size_t s = 0; s < a->nspecs && !any; s++)
		any = a->specs[s].rt.sysctl || a->specs[s].rt.sysfs;
	return any;
}

/*
 * The instruments the agenda turns on (`instruments:`, WA3's `augmentations:`) that the platform
 * does not declare, probed on the board as `platform check` probes the platform's own: a cpufreq
 * instrument on a board without cpufreq stats would fail every job (instrument-failed).
 */
static void probe_agenda_instruments(const struct kvb_agenda *a, const struct kvb_platform *p, struct kvb_target *t,
				     struct kvb_preflight *pf)
{
	struct kvb_instr_set set;
	struct kvb_strv found = KVB_STRV_INIT;
	struct kvb_error err;
	char *origin;
	if (!a->instruments || kvb_instr_set_build(&set, p, a->instruments, a->instrument_settings, &err))
		return; /* a name that is no instrument: `run` refuses it when it builds the set */
	origin = kvb_xasprintf("%s: instruments (augmentations)", a->file ? a->file : "agenda");
	for (size_t i = 0; i < set.n; i++) {
		struct kvb_instr_probe pr = { .name = set.v[i].name, .conf = set.v[i].conf, .plat = p, .target = t,
					      .problems = &pf->problems, .found = &found, .origin = origin };
		if (set.v[i].owned_conf && set.v[i].ops->probe)
			set.v[i].ops->probe(&pr);
	}
	free(origin);
	kvb_strv_release(&found);
	kvb_instr_set_release(&set);
}

/* A knob file missing on the board: who sets it (platform setup, variants) and the specs that do. */
struct knob_miss {
	char *body;                /* "runtime knob K: PATH does not exist on P, ..." (owned) */
	struct kvb_strv others;    /* "platform setup", "variant 'x'" */
	size_t *specs, nspecs;     /* 0-based spec indices, ascending */
};

/* One file a sysctl or sysfs knob writes: NULL when it is on the board (or cannot be asked), else
 * what is wrong (owned). Every job with the knob would fail. */
static char *probe_knob_file(struct kvb_target *t, const char *knob, const char *path, const struct kvb_platform *p)
{
	const char *argv[] = { "sh", "-c", "test -e \"$1\"", "kvb-check", path, NULL };
	struct kvb_exec_result r;
	struct kvb_error err;
	char *body = NULL;
	kvb_exec_result_init(&r);
	if (!kvb_target_exec(t, argv, 10000, &r, &err) && r.exit_code) {
		/* uclamp's files are there only in a kernel built with it (kernel/sched/core.c, init/Kconfig) */
		const char *why = strstr(path, "/sched_util_clamp_min_rt_default")
					  ? "a kernel without CONFIG_UCLAMP_TASK, or one older than this sysctl (added in 2020, after uclamp)"
				  : strstr(path, "/sched_util_clamp_") ? "a kernel without CONFIG_UCLAMP_TASK (Linux 5.3+)"
				  : strstr(path, "/cpu.uclamp.")      ? "a kernel without CONFIG_UCLAMP_TASK_GROUP, or a "
									"group without the cpu controller"
								      : "a typo in the name, or a kernel without it";
		body = kvb_xasprintf("runtime knob %s: %s does not exist on %s, so every job with it would fail (%s)", knob,
				     path, p->name, why);
	}
	kvb_exec_result_release(&r);
	return body;
}

/* Records that runtime i (0 platform setup, then the variants, then the specs) sets a knob whose file is missing. */
static void knob_missed(struct knob_miss **m, size_t *n, const char *body, const struct kvb_agenda *a, size_t i)
{
	size_t k;
	for (k = 0; k < *n && strcmp((*m)[k].body, body); k++)
		;
	if (k == *n) {
		*m = kvb_xrealloc(*m, (*n + 1) * sizeof(**m));
		(*m)[k] = (struct knob_miss){ .body = kvb_xstrdup(body), .others = KVB_STRV_INIT,
					      .specs = kvb_xcalloc(a->nspecs + 1, sizeof(size_t)) };
		(*n)++;
	}
	if (i == 0)
		kvb_strv_push(&(*m)[k].others, "platform setup");
	else if (i <= a->nvariants)
		kvb_strv_pushf(&(*m)[k].others, "variant '%s'", a->variants[i - 1].name);
	else if (!(*m)[k].nspecs || (*m)[k].specs[(*m)[k].nspecs - 1] != i - 1 - a->nvariants)
		(*m)[k].specs[(*m)[k].nspecs++] = i - 1 - a->nvariants;
}

/*
 * Who sets a missing knob, in one line: "job 'p2'", or "4 jobs (specs 2-5 of 5: 'hb;cgroup_depth=0',
 * 'hb;cgroup_depth=1', 'hb;cgroup_depth=2', 'p2')": counted, the agenda's spec numbers (agenda check's
 * order) as ranges, as diff's footnotes give job ids; past four, the first three names and the last.
 */
static void knob_miss_report(const struct knob_miss *m, const struct kvb_agenda *a, struct kvb_preflight *pf)
{
	struct kvb_buf b = KVB_BUF_INIT;
	for (size_t i = 0; i < m->others.n; i++)
		kvb_buf_addf(&b, "%s%s", i ? ", " : "", m->others.v[i]);
	if (m->nspecs == 1) {
		kvb_buf_addf(&b, "%sjob '%s'", b.len ? ", " : "", a->specs[m->specs[0]].id);
	} else if (m->nspecs > 1) {
		kvb_buf_addf(&b, "%s%zu jobs (specs ", b.len ? ", " : "", m->nspecs);
		for (size_t i = 0; i < m->nspecs;) {
			size_t j = i;
			while (j + 1 < m->nspecs && m->specs[j + 1] == m->specs[j] + 1)
				j++;
			kvb_buf_addf(&b, "%s%zu", i ? "," : "", m->specs[i] + 1);
			if (j > i)
				kvb_buf_addf(&b, "-%zu", m->specs[j] + 1);
			i = j + 1;
		}
		kvb_buf_addf(&b, " of %zu:", a->nspecs);
		for (size_t i = 0; i < m->nspecs; i++) {
			if (m->nspecs > 4 && i == 3) {
				kvb_buf_addf(&b, " ... '%s'", a->specs[m->specs[m->nspecs - 1]].id);
				break;
			}
			kvb_buf_addf(&b, "%s '%s'", i ? "," : "", a->specs[m->specs[i]].id);
		}
		kvb_buf_addf(&b, ")");
	}
	kvb_strv_pushf(&pf->problems, "%s: %s", b.data, m->body);
	kvb_buf_release(&b);
}

/*
 * The sysctl and sysfs knobs' files, on a board whose running kernel is the one measured (a
 * flasher that installs no kernel: `local`, knob variants); a variant's own kernel may have
 * files the running one lacks, so a flashing board is not asked.
 */
static void probe_knob_files(const struct kvb_agenda *a, const struct kvb_platform *p, struct kvb_target *t,
			     struct kvb_preflight *pf)
{
	const struct kvb_flasher_ops *fl = kvb_flasher_find(p->flash_method);
	const char *root = kvb_target_sysfs_root(t);
	struct kvb_strv asked = KVB_STRV_INIT, answers = KVB_STRV_INIT; /* each knob asked once; "": its file is there */
	struct knob_miss *miss = NULL;
	size_t nmiss = 0, nrt = 1 + a->nvariants + a->nspecs;
	if (!fl || (fl->caps & KVB_FLASH_INSTALLS_KERNEL))
		return;
	for (size_t i = 0; i < nrt; i++) {
		const struct kvb_runtime *rt = i == 0 ? &p->setup
					       : i <= a->nvariants ? &a->variants[i - 1].rt : &a->specs[i - 1 - a->nvariants].rt;
		for (int sysfs = 0; sysfs < 2; sysfs++)
			for (const cJSON *kv = sysfs ? (rt->sysfs ? rt->sysfs->child : NULL)
						     : (rt->sysctl ? rt->sysctl->child : NULL);
			     kv; kv = kv->next) {
				char *path, *knob, *body;
				size_t k;
				if (!sysfs && strstr(kv->string, ".."))
					continue;
				path = sysfs ? kvb_xasprintf("%s%s", root, kv->string)
					     : kvb_xasprintf("%s/proc/sys/%s", root, kv->string);
				for (char *c = path + strlen(root) + 10; !sysfs && *c; c++)
					if (*c == '.')
						*c = '/';
				knob = kvb_xasprintf("%s.%s", sysfs ? "sysfs" : "sysctl", kv->string);
				for (k = 0; k < asked.n && strcmp(asked.v[k], knob); k++)
					;
				if (k == asked.n) {
					body = probe_knob_file(t, knob, path, p);
					kvb_strv_push(&asked, knob);
					kvb_strv_push(&answers, body ? body : "");
					free(body);
				}
				if (*answers.v[k])
					knob_missed(&miss, &nmiss, answers.v[k], a, i);
				free(knob);
				free(path);
			}
	}
	for (size_t k = 0; k < nmiss; k++) {
		knob_miss_report(&miss[k], a, pf);
		free(miss[k].body);
		kvb_strv_release(&miss[k].others);
		free(miss[k].specs);
	}
	free(miss);
	kvb_strv_release(&asked);
	kvb_strv_release(&answers);
}

/*
 * On a board that answers now: the tools the workloads need are on its PATH, and every CPU a
 * `cpus` knob names is online there (taskset would otherwise run the job on the others, or
 * every job fails: `cpus: "7"` on a 2-CPU board).
 */
static void probe_board(const struct kvb_agenda *a, const struct kvb_platform *p, struct kvb_preflight *pf)
{
	struct kvb_strv tools = KVB_STRV_INIT, users = KVB_STRV_INIT, lists = KVB_STRV_INIT, who = KVB_STRV_INIT;
	struct kvb_target t;
	struct kvb_error err;
	struct kvb_exec_result r;
	needed_tools(a, &tools, &users);
	cpus_knobs(a, p, &lists, &who);
	if (!tools.n && !lists.n && !a->instruments && !knob_files_any(a, p))
		goto out;
	/* a qemu board exists only once `run` boots a variant: nothing to ask before */
	/* a batch target (LAVA) runs commands only inside its job: nothing to ask before either */
	if (kvb_target_find(p->conn_type)->batch) {
		kvb_strv_pushf(&pf->notes, "tools on the target not checked: %s runs commands only inside its jobs%s", p->name,
			       lists.n ? " (nor the CPUs of cpus knobs)" : "");
		goto out;
	}
	if (kvb_target_find(p->conn_type)->caps & KVB_TARGET_OWNS_BOARD) {
		kvb_strv_pushf(&pf->notes, "tools on the target not checked: the %s board is booted by `kvbench run`%s",
			       p->name, lists.n ? " (nor the CPUs of cpus knobs)" : "");
		goto out;
	}
	memset(&t, 0, sizeof(t));
	if (kvb_target_open(&t, p, &err) || kvb_target_wait_ready(&t, PREFLIGHT_PROBE_MS, &err)) {
		kvb_strv_pushf(&pf->notes, "tools on the target not checked: %s does not answer now (%s)%s", p->name,
			       err.msg, lists.n ? " (nor the CPUs of cpus knobs)" : "");
		kvb_target_close(&t);
		goto out;
	}
	kvb_exec_result_init(&r);
	for (size_t i = 0; i < tools.n; i++) {
		const char *argv[] = { "sh", "-c", "command -v \"$1\"", "kvb-check", tools.v[i], NULL };
		if (kvb_target_exec(&t, argv, 10000, &r, &err))
			kvb_strv_pushf(&pf->notes, "tool '%s' not checked on %s: %s", tools.v[i], p->name, err.msg);
		else if (r.exit_code)
			kvb_strv_pushf(&pf->problems, "workload %s needs '%s', which is not on the PATH of %s", users.v[i],
				       tools.v[i], p->name);
	}
	for (size_t i = 0; i < lists.n; i++) {
		size_t k;
		for (k = 0; k < i && strcmp(lists.v[k], lists.v[i]); k++)
			;
		if (k < i)
			continue; /* one message per list */
		if (kvb_affinity_check_online(&t, lists.v[i], &err))
			kvb_strv_pushf(&pf->problems, "%s: runtime knob %s, so kvbench fails every job that asks for it", who.v[i],
				       err.msg);
	}
	probe_rt_budget(a, p, &t, pf);
	probe_agenda_instruments(a, p, &t, pf);
	probe_knob_files(a, p, &t, pf);
	kvb_exec_result_release(&r);
	kvb_target_close(&t);
out:
	kvb_strv_release(&tools);
	kvb_strv_release(&users);
	kvb_strv_release(&lists);
	kvb_strv_release(&who);
}

/* WA3's spelling of a cpufreq knob key (config/wa3_keys.c reads it back). */
static const char *wa3_suffix(const char *sub)
{
	static const char *const m[][2] = { { "governor", "governor" },
					    { "frequency", "frequency" },
					    { "min_freq", "min_frequency" },
					    { "max_freq", "max_frequency" } };
	for (size_t i = 0; i < KVB_ARRAY_SIZE(m); i++)
		if (!strcmp(sub, m[i][0]))
			return m[i][1];
	return sub;
}

static int strv_has(const struct kvb_strv *v, const char *s)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->v[i], s))
			return 1;
	return 0;
}

/* One job's (or variant's) knobs: clusters the platform declares, no WA3 parameter kvbench cannot apply. */
static void check_runtime(const struct kvb_runtime *rt, const char *who, const struct kvb_platform *p,
			  struct kvb_strv *seen, struct kvb_preflight *pf)
{
	for (const cJSON *c = rt->cpufreq ? rt->cpufreq->child : NULL; c; c = c->next) {
		struct kvb_buf keys = KVB_BUF_INIT;
		char *known, *body;
		size_t *idx = kvb_xcalloc(p->nclusters + 1, sizeof(*idx)), n = kvb_clusters_match(p->clusters, p->nclusters, c->string, idx);
		free(idx);
		if (n)
			continue;
		for (const cJSON *e = c->child; e; e = e->next)
			kvb_buf_addf(&keys, "%s'%s_%s'", keys.len ? ", " : "", c->string, wa3_suffix(e->string));
		known = kvb_clusters_known(p->clusters, p->nclusters);
		body = kvb_xasprintf("runtime knob cpufreq.%s (WA3 %s): '%s' names no cluster (name or core type) in "
				     "topology.clusters of platform '%s' (%s)",
				     c->string, keys.len ? keys.data : "key", c->string, p->name, known);
		if (!strv_has(seen, body)) {
			kvb_strv_push(seen, body);
			kvb_strv_pushf(&pf->problems, "%s: %s", who, body);
		}
		free(body);
		free(known);
		kvb_buf_release(&keys);
	}
	for (const cJSON *u = rt->unapplied ? rt->unapplied->child : NULL; u; u = u->next) {
		char *body = kvb_xasprintf("WA3 runtime parameter '%s' cannot be applied: %s", u->string,
					   kvb_runtime_unapplied_reason(u->string));
		if (!strv_has(seen, body)) {
			kvb_strv_push(seen, body);
			kvb_strv_pushf(&pf->problems, "%s: %s", who, body);
		}
		free(body);
	}
}

static void check_knobs(const struct kvb_agenda *a, const struct kvb_platform *p, struct kvb_preflight *pf)
{
	struct kvb_strv seen = KVB_STRV_INIT;
	check_runtime(&p->setup, "platform setup", p, &seen, pf);
	for (size_t v = 0; v < a->nvariants; v++) {
		char *who = kvb_xasprintf("variant '%s'", a->variants[v].name);
		check_runtime(&a->variants[v].rt, who, p, &seen, pf);
		free(who);
	}
	for (size_t s = 0; s < a->nspecs; s++) {
		char *who = kvb_xasprintf("job '%s'", a->specs[s].id);
		check_runtime(&a->specs[s].rt, who, p, &seen, pf);
		free(who);
	}
	kvb_strv_release(&seen);
}

size_t kvb_preflight_run(const struct kvb_agenda *a, const struct kvb_platform *p, int allow_unverified,
			 int probe_target, int series, struct kvb_preflight *pf)
{
	for (size_t v = 0; v < a->nvariants; v++)
		check_variant(&a->variants[v], p, allow_unverified, series, pf);
	if (p) {
		check_knobs(a, p, pf);
		kvb_preflight_platform(p, pf);
		if (probe_target)
			probe_board(a, p, pf);
	}
	return pf->problems.n;
}

size_t kvb_preflight_variant_files(const struct kvb_agenda *a, struct kvb_preflight *pf)
{
	static const char *const names[KVB_VF_N] = { "kernel", "dtb", "initrd", "boot_image", "modules" };
	size_t before = pf->problems.n;
	for (size_t k = 0; k < a->nvariants; k++) {
		const struct kvb_variant *v = &a->variants[k];
		const char *src[KVB_VF_N] = { v->kernel, v->dtb, v->initrd, v->boot_image, v->modules };
		for (int i = 0; i < KVB_VF_N; i++) {
			char *why;
			if (!src[i] || is_url(src[i]))
				continue;
			why = file_problem(src[i]);
			if (!why && (i == KVB_VF_KERNEL || i == KVB_VF_BOOT_IMAGE))
				why = image_problem(v, src[i], i == KVB_VF_BOOT_IMAGE, NULL, pf);
			if (why && (i == KVB_VF_KERNEL || i == KVB_VF_BOOT_IMAGE)) {
				char *more = kvb_xasprintf("%s (a flash hook may take other files: `agenda check -p PLATFORM` "
							   "checks it for the platform's flasher)", why);
				free(why);
				why = more;
			}
			if (why)
				kvb_strv_pushf(&pf->problems, "variant '%s' %s: %s", v->name, names[i], why);
			free(why);
		}
	}
	return pf->problems.n - before;
}

int kvb_preflight_report(const struct kvb_preflight *pf, FILE *f)
{
	for (size_t i = 0; i < pf->notes.n; i++)
		fprintf(f, "kvbench: preflight: %s\n", pf->notes.v[i]);
	for (size_t i = 0; i < pf->problems.n; i++)
		fprintf(f, "kvbench: preflight: %s\n", pf->problems.v[i]);
	if (pf->problems.n)
		fprintf(f, "kvbench: preflight: %zu problem%s\n", pf->problems.n, pf->problems.n == 1 ? "" : "s");
	return pf->problems.n ? KVB_EINPUT : KVB_OK;
}

void kvb_preflight_release(struct kvb_preflight *pf)
{
	kvb_strv_release(&pf->problems);
	kvb_strv_release(&pf->notes);
}
