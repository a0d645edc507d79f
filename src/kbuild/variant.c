/* Implements a variant's own build settings and patches (git am in kvbench's checkout), and .config differences. */
#include "kbuild/variant.h"
#include "kbuild/git.h"
#include "core/buf.h"
#include "core/log.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct kvb_keydef kvb_variant_build_keys[] = {
	{ "config", KVB_T_STRLIST, NULL, NULL, 0,
	  "config targets and fragment files applied after the agenda's build.config (a fragment overrides its symbols)" },
	{ "make_args", KVB_T_STRLIST, NULL, NULL, 0, "make arguments after the agenda's build.make_args" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

static void copy_strv(struct kvb_strv *dst, const struct kvb_strv *src)
{
	for (size_t i = 0; i < src->n; i++)
		kvb_strv_push(dst, src->v[i]);
}

int kvb_build_spec_extend(struct kvb_build_spec *dst, const struct kvb_build_spec *base, const cJSON *obj,
			  const char *path, const char *base_dir, struct kvb_diag *d)
{
	size_t before = d->msgs.n;
	struct kvb_strv cfg = KVB_STRV_INIT, args = KVB_STRV_INIT;
	memset(dst, 0, sizeof(*dst));
	dst->repo = base->repo ? kvb_xstrdup(base->repo) : NULL;
	copy_strv(&dst->config, &base->config);
	copy_strv(&dst->make_args, &base->make_args);
	dst->command = base->command ? kvb_xstrdup(base->command) : NULL;
	for (int i = 0; i < KVB_BOUT_N; i++)
		dst->outputs[i] = base->outputs[i] ? kvb_xstrdup(base->outputs[i]) : NULL;
	dst->jobs = base->jobs;
	dst->timeout_s = base->timeout_s;
	if (!obj)
		return KVB_OK;
	if (kvb_keys_check(obj, path, kvb_variant_build_keys, d))
		return KVB_EINPUT;
	kvb_build_push_strlist(&cfg, cJSON_GetObjectItemCaseSensitive(obj, "config"));
	if (cfg.n && base->command) {
		char *p = kvb_xasprintf("%s.config", path);
		kvb_diag_at(d, p, "the agenda's build: runs a vendor command, which configures itself: no config here");
		free(p);
	}
	for (size_t i = 0; i < cfg.n; i++) {
		char *f;
		if (!kvb_build_is_fragment(cfg.v[i])) {
			kvb_strv_push(&dst->config, cfg.v[i]);
			continue;
		}
		f = kvb_build_resolve(base_dir, cfg.v[i]);
		if (!kvb_is_file(f)) {
			char *p = kvb_xasprintf("%s.config[%zu]", path, i);
			kvb_diag_at(d, p, "no config fragment file '%s'", f);
			free(p);
		}
		kvb_strv_push(&dst->config, f);
		free(f);
	}
	kvb_build_push_strlist(&args, cJSON_GetObjectItemCaseSensitive(obj, "make_args"));
	for (size_t i = 0; i < args.n; i++) {
		if (!strchr(args.v[i], '=') || args.v[i][0] == '-') {
			char *p = kvb_xasprintf("%s.make_args[%zu]", path, i);
			kvb_diag_at(d, p, "'%s' is not a VAR=value make argument", args.v[i]);
			free(p);
		}
		kvb_strv_push(&dst->make_args, args.v[i]);
	}
	kvb_strv_release(&cfg);
	kvb_strv_release(&args);
	return d->msgs.n > before ? KVB_EINPUT : KVB_OK;
}

int kvb_patches_load(const cJSON *list, const char *path, const char *base_dir, struct kvb_strv *out,
		     struct kvb_diag *d)
{
	size_t before = d->msgs.n, i = 0;
	if (list && !cJSON_IsString(list) && !cJSON_IsArray(list)) {
		kvb_diag_at(d, path, "a list of patch files (git format-patch output or mboxes) expected");
		return KVB_EINPUT;
	}
	if (cJSON_IsString(list)) {
		char *f = kvb_build_resolve(base_dir, list->valuestring);
		if (!kvb_is_file(f))
			kvb_diag_at(d, path, "no patch file '%s'", f);
		kvb_strv_push(out, f);
		free(f);
		return d->msgs.n > before ? KVB_EINPUT : KVB_OK;
	}
	for (const cJSON *c = list ? list->child : NULL; c; c = c->next, i++) {
		char *p = kvb_xasprintf("%s[%zu]", path, i), *f;
		if (!cJSON_IsString(c) || !*c->valuestring) {
			kvb_diag_at(d, p, "a patch file name expected");
			free(p);
			continue;
		}
		f = kvb_build_resolve(base_dir, c->valuestring);
		if (!kvb_is_file(f))
			kvb_diag_at(d, p, "no patch file '%s'", f);
		kvb_strv_push(out, f);
		free(f);
		free(p);
	}
	return d->msgs.n > before ? KVB_EINPUT : KVB_OK;
}

/* git's words for a failed am: its stderr, else stdout, without the advice lines. Owned. */
static char *am_words(const struct kvb_exec_result *r)
{
	struct kvb_buf b = KVB_BUF_INIT, all = KVB_BUF_INIT;
	if (r->out.len)
		kvb_buf_add(&all, r->out.data, r->out.len);
	if (r->err.len)
		kvb_buf_add(&all, r->err.data, r->err.len);
	for (char *save = NULL, *l = strtok_r(all.data ? all.data : (char *)"", "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(l, "hint:", 5) || strstr(l, "git am --") || strstr(l, "\"git am"))
			continue;
		kvb_buf_addf(&b, "%s%s", b.len ? "; " : "", l);
	}
	kvb_buf_release(&all);
	return b.data ? kvb_buf_detach(&b) : kvb_xstrdup("git am failed");
}

/* git am with a fixed committer and no hooks or signing: the same base and patches give the same commit id. */
static void am_prefix(struct kvb_strv *a)
{
	kvb_strv_push(a, "-c");
	kvb_strv_push(a, "user.name=kvbench");
	kvb_strv_push(a, "-c");
	kvb_strv_push(a, "user.email=kvbench@localhost");
	kvb_strv_push(a, "-c");
	kvb_strv_push(a, "commit.gpgsign=false");
	kvb_strv_push(a, "-c");
	kvb_strv_push(a, "core.hooksPath=/dev/null");
	kvb_strv_push(a, "am");
	kvb_strv_push(a, "--quiet");
}

/* 1 when git am stopped at a mail with no diff in it (git 2.39: "Patch is empty."). */
static int am_stopped_empty(const struct kvb_exec_result *r)
{
	return (r->out.data && strstr(r->out.data, "Patch is empty.")) ||
	       (r->err.data && strstr(r->err.data, "Patch is empty."));
}

/* The Subject line of the mail git am stopped at in src (its raw mail), or "(no subject)". Owned. */
static char *current_subject(const char *src)
{
	const char *argv[] = { "am", "--show-current-patch=raw", NULL };
	struct kvb_exec_result r;
	struct kvb_error e;
	char *out = NULL;
	kvb_exec_result_init(&r);
	if (!kvb_git(src, argv, &r, NULL, &e) && r.out.data) {
		for (const char *p = r.out.data; *p && !out;) {
			size_t n = strcspn(p, "\n");
			if (n == 0)
				break; /* the end of the headers */
			if (n > 9 && !strncmp(p, "Subject: ", 9))
				out = kvb_xstrndup(p + 9, n - 9);
			p += n + (p[n] ? 1 : 0);
		}
	}
	kvb_exec_result_release(&r);
	return out ? out : kvb_xstrdup("(no subject)");
}

int kvb_patches_apply(const char *src, const char *sha, const struct kvb_strv *patches, char out_sha[41],
		      struct kvb_strv *applied, char **fail, struct kvb_error *err)
{
	struct kvb_exec_result r;
	struct kvb_strv a = KVB_STRV_INIT;
	char *head = NULL, *log = NULL, *range;
	int rc;
	*fail = NULL;
	{
		/* a state left by an interrupted am would refuse the next one */
		const char *ab[] = { "am", "--abort", NULL };
		struct kvb_error e2;
		kvb_exec_result_init(&r);
		kvb_git(src, ab, &r, NULL, &e2);
		kvb_exec_result_release(&r);
	}
	{
		const char *co[] = { "-c", "advice.detachedHead=false", "checkout", "--quiet", "--force", "--detach", sha, NULL };
		kvb_exec_result_init(&r);
		rc = kvb_git(src, co, &r, NULL, err);
		kvb_exec_result_release(&r);
		if (rc)
			return rc;
	}
	am_prefix(&a);
	kvb_strv_push(&a, "--committer-date-is-author-date");
	kvb_strv_push(&a, "--");
	for (size_t i = 0; i < patches->n; i++)
		kvb_strv_push(&a, patches->v[i]);
	kvb_exec_result_init(&r);
	{
		struct kvb_error e2;
		rc = kvb_git(src, kvb_strv_argv(&a), &r, NULL, &e2);
		/* a mail without a diff (a series' cover letter "[PATCH 0/N]", a reply in a thread's
		 * mbox) stops git am with "Patch is empty."; it changes no code: skipped, said */
		for (size_t guard = 0; rc && r.exit_code != 0 && guard < 10000 && am_stopped_empty(&r); guard++) {
			char *subj = current_subject(src);
			struct kvb_strv sk = KVB_STRV_INIT;
			kvb_info("git am: skipped a mail without a diff (a cover letter or a reply): %s", subj);
			free(subj);
			am_prefix(&sk);
			kvb_strv_push(&sk, "--committer-date-is-author-date");
			kvb_strv_push(&sk, "--skip");
			kvb_exec_result_release(&r);
			kvb_exec_result_init(&r);
			rc = kvb_git(src, kvb_strv_argv(&sk), &r, NULL, &e2);
			kvb_strv_release(&sk);
		}
		if (rc && r.exit_code == 0) {
			/* git could not be run at all */
			*err = e2;
			kvb_exec_result_release(&r);
			kvb_strv_release(&a);
			return rc;
		}
	}
	kvb_strv_release(&a);
	if (rc) {
		/* which patch: git am says "Patch failed at 0002 SUBJECT"; the words say why */
		char *words = am_words(&r);
		const char *ab[] = { "am", "--abort", NULL };
		struct kvb_error e2;
		*fail = kvb_xasprintf("the patches do not apply onto %.12s (git am): %s", sha, words);
		free(words);
		kvb_exec_result_release(&r);
		kvb_exec_result_init(&r);
		kvb_git(src, ab, &r, NULL, &e2);
		kvb_exec_result_release(&r);
		return KVB_OK;
	}
	kvb_exec_result_release(&r);
	{
		const char *hp[] = { "rev-parse", "HEAD", NULL };
		if ((rc = kvb_git_line(src, hp, &head, NULL, err)))
			return rc;
	}
	if (strlen(head) != 40) {
		rc = kvb_error_set(err, KVB_EINPUT, "git -C %s rev-parse HEAD: '%s' is not a commit id", src, head);
		free(head);
		return rc;
	}
	memcpy(out_sha, head, 41);
	free(head);
	range = kvb_xasprintf("%s..%s", sha, out_sha);
	{
		const char *lg[] = { "log", "--reverse", "--format=%H%x09%s", range, NULL };
		rc = kvb_git_line(src, lg, &log, NULL, err);
	}
	free(range);
	if (rc)
		return rc;
	for (char *save = NULL, *l = strtok_r(log, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		kvb_strv_push(applied, l);
	free(log);
	if (!applied->n) {
		/* git am with nothing to apply (an mbox without a patch) exits 0 and changes nothing */
		*fail = kvb_xasprintf("the patch files gave no commit onto %.12s (no patch in %s?)", sha,
				      patches->n ? patches->v[0] : "the list");
	}
	return KVB_OK;
}

/* The value a .config gives sym ("y", "m", "\"str\"", ...; "n" when absent or "is not set"). */
static const char *config_value(const char *conf, const char *sym, char *buf, size_t n)
{
	char *key = kvb_xasprintf("\nCONFIG_%s=", sym);
	const char *p = strstr(conf, key);
	size_t klen = strlen(key);
	free(key);
	if (!p)
		return "n";
	p += klen;
	snprintf(buf, n, "%.*s", (int)strcspn(p, "\n"), p);
	return buf;
}

/* Adds the symbols of conf that other sets differently to out (as "CONFIG_X: a -> b"), counting them. */
static void diff_one_way(const char *conf, const char *other, int this_is_new, struct kvb_buf *out, int *count,
			 int max, struct kvb_strv *seen)
{
	struct kvb_buf copy = KVB_BUF_INIT;
	kvb_buf_add(&copy, conf, strlen(conf));
	for (char *save = NULL, *l = strtok_r(copy.data, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char sym[256], a[256], b[256];
		const char *va, *vb;
		int dup = 0, off = 0;
		if (!strncmp(l, "CONFIG_", 7)) {
			size_t k = strcspn(l + 7, "=");
			if (k >= sizeof(sym))
				continue;
			memcpy(sym, l + 7, k);
			sym[k] = '\0';
		} else if (!(sscanf(l, "# CONFIG_%255s is not set%n", sym, &off) == 1 && off)) {
			continue;
		}
		for (size_t j = 0; j < seen->n && !dup; j++)
			dup = !strcmp(seen->v[j], sym);
		if (dup)
			continue;
		va = config_value(other, sym, a, sizeof(a));
		vb = config_value(conf, sym, b, sizeof(b));
		if (!strcmp(va, vb))
			continue;
		kvb_strv_push(seen, sym);
		if ((*count)++ < max) {
			if (this_is_new)
				kvb_buf_addf(out, "%sCONFIG_%s: %s -> %s", out->len ? "; " : "", sym, va, vb);
			else
				kvb_buf_addf(out, "%sCONFIG_%s: %s -> %s", out->len ? "; " : "", sym, vb, va);
		}
	}
	kvb_buf_release(&copy);
}

char *kvb_config_diff(const char *base_config, const char *config, int max)
{
	struct kvb_buf a = KVB_BUF_INIT, b = KVB_BUF_INIT, out = KVB_BUF_INIT;
	struct kvb_strv seen = KVB_STRV_INIT;
	int count = 0;
	if (kvb_buf_read_file(&a, base_config) || kvb_buf_read_file(&b, config)) {
		kvb_buf_release(&a);
		kvb_buf_release(&b);
		return NULL;
	}
	/* every entry is preceded by '\n': the first line of a .config is a comment, and we prepend one */
	{
		struct kvb_buf na = KVB_BUF_INIT, nb = KVB_BUF_INIT;
		kvb_buf_addf(&na, "\n%s", a.data ? a.data : "");
		kvb_buf_addf(&nb, "\n%s", b.data ? b.data : "");
		diff_one_way(nb.data, na.data, 1, &out, &count, max, &seen);
		diff_one_way(na.data, nb.data, 0, &out, &count, max, &seen);
		kvb_buf_release(&na);
		kvb_buf_release(&nb);
	}
	if (count > max)
		kvb_buf_addf(&out, " and %d more", count - max);
	kvb_strv_release(&seen);
	kvb_buf_release(&a);
	kvb_buf_release(&b);
	return out.data ? kvb_buf_detach(&out) : kvb_xstrdup("");
}
