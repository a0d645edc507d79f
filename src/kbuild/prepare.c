/* Implements git variants of a run: series expansion, building, and recording what each variant was built from. */
#include "kbuild/prepare.h"
#include "kbuild/git.h"
#include "kbuild/variant.h"
#include "core/buf.h"
#include "core/log.h"
#include "store/build.h"

#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile int *g_flag;
static struct sigaction g_old_int, g_old_term;
static int g_caught;

static void on_signal(int sig)
{
	(void)sig;
	if (g_flag)
		*g_flag = 1;
}

void kvb_build_signals_catch(volatile int *flag)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	g_flag = flag;
	sigaction(SIGINT, &sa, &g_old_int);
	sigaction(SIGTERM, &sa, &g_old_term);
	g_caught = 1;
}

void kvb_build_signals_restore(void)
{
	if (!g_caught)
		return;
	sigaction(SIGINT, &g_old_int, NULL);
	sigaction(SIGTERM, &g_old_term, NULL);
	g_caught = 0;
	g_flag = NULL;
}

static char *dir_of(const char *file)
{
	char *c = kvb_xstrdup(file ? file : "."), *d = kvb_xstrdup(dirname(c));
	free(c);
	return d;
}

int kvb_build_spec_from_agenda(const struct kvb_agenda *a, const cJSON *platform_build, const char *platform_file,
			       struct kvb_build_spec *spec, struct kvb_error *err)
{
	const cJSON *b = a->raw ? cJSON_GetObjectItemCaseSensitive(a->raw, "build") : NULL;
	const char *file = b || !platform_build ? a->file : platform_file;
	char *base = dir_of(file), *path = kvb_xasprintf("%s: build", file ? file : "agenda");
	struct kvb_diag d;
	int rc;
	kvb_diag_init(&d, NULL);
	rc = kvb_build_spec_load(spec, b ? b : platform_build, path, base, &d);
	if (rc) {
		struct kvb_buf m = KVB_BUF_INIT;
		for (size_t i = 0; i < d.msgs.n; i++)
			kvb_buf_addf(&m, "%s%s", i ? "; " : "", d.msgs.v[i]);
		kvb_error_set(err, KVB_EINPUT, "%s", m.data ? m.data : "bad build block");
		kvb_buf_release(&m);
	}
	kvb_diag_release(&d);
	free(base);
	free(path);
	return rc;
}

int kvb_build_check_repo(const char *dir, int allow_dirty, char **top, struct kvb_error *err)
{
	char *what = NULL;
	int dirty, rc;
	if ((rc = kvb_git_toplevel(dir, top, err)))
		return rc;
	dirty = kvb_git_dirty(*top, &what, err);
	if (dirty < 0)
		rc = KVB_EINPUT;
	else if (dirty && !allow_dirty)
		rc = kvb_error_set(err, KVB_EINPUT,
				   "%s has uncommitted changes, which a build of a commit would not contain (%s): commit "
				   "or stash them, or pass --allow-dirty",
				   *top, what);
	else if (dirty)
		kvb_warn("%s has uncommitted changes; they are not part of what gets built", *top);
	free(what);
	if (rc) {
		free(*top);
		*top = NULL;
	}
	return rc;
}

static void add_series_variant(struct kvb_agenda *a, const char *repo, const char *sha)
{
	struct kvb_variant *v;
	cJSON *git = cJSON_CreateObject();
	a->variants = kvb_xrealloc(a->variants, (a->nvariants + 1) * sizeof(*a->variants));
	v = &a->variants[a->nvariants++];
	memset(v, 0, sizeof(*v));
	v->name = kvb_xstrndup(sha, 10);
	kvb_runtime_init(&v->rt);
	v->raw = cJSON_CreateObject();
	cJSON_AddStringToObject(v->raw, "name", v->name);
	cJSON_AddStringToObject(git, "repo", repo);
	cJSON_AddStringToObject(git, "rev", sha);
	cJSON_AddItemToObject(v->raw, "git", git);
}

void kvb_build_set_variants(struct kvb_agenda *a, const char *repo, const char *const *shas, size_t n)
{
	/* the old variants go through the agenda's own release, via a scratch agenda */
	struct kvb_agenda old;
	memset(&old, 0, sizeof(old));
	old.variants = a->variants;
	old.nvariants = a->nvariants;
	a->variants = NULL;
	a->nvariants = 0;
	kvb_agenda_release(&old);
	for (size_t i = 0; i < n; i++)
		add_series_variant(a, repo, shas[i]);
}

/* Reads a --series-file: one revision a line; '#' starts a comment. */
static int read_series_file(const char *file, const char *repo, struct kvb_strv *shas, struct kvb_error *err)
{
	struct kvb_buf b = KVB_BUF_INIT;
	int line = 0, rc = KVB_OK;
	if (kvb_buf_read_file(&b, file))
		return kvb_error_set(err, KVB_EINPUT, "%s: cannot read: %s", file, strerror(errno));
	for (char *save = NULL, *l = strtok_r(b.data ? b.data : (char *)"", "\n", &save); l && !rc;
	     l = strtok_r(NULL, "\n", &save)) {
		char sha[41], *e;
		line++;
		*(l + strcspn(l, "#")) = '\0';
		while (*l == ' ' || *l == '\t')
			l++;
		for (e = l + strlen(l); e > l && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'); e--)
			e[-1] = '\0';
		if (!*l)
			continue;
		if (strchr(l, ' ') || strchr(l, '\t'))
			rc = kvb_error_set(err, KVB_EINPUT, "%s:%d: '%s': one revision a line", file, line, l);
		else if ((rc = kvb_git_commit(repo, l, sha, err)))
			kvb_error_prefix(err, "%s:%d", file, line);
		else
			kvb_strv_push(shas, sha);
	}
	kvb_buf_release(&b);
	if (!rc && shas->n < 2)
		rc = kvb_error_set(err, KVB_EINPUT, "%s: a series needs at least two revisions", file);
	return rc;
}

static int expand_series(struct kvb_agenda *a, const struct kvb_prepare_opts *o, const char *repo_arg,
			 struct kvb_error *err)
{
	struct kvb_strv shas = KVB_STRV_INIT;
	char *repo = NULL;
	int rc;
	if (!repo_arg)
		return kvb_error_set(err, KVB_EUSAGE, "--series needs the repository: --repo DIR or build: {repo: DIR}");
	if ((rc = kvb_build_check_repo(repo_arg, o->allow_dirty, &repo, err)))
		return rc;
	for (size_t i = 0; i < a->nvariants; i++)
		if (a->variants[i].kernel || a->variants[i].boot_image ||
		    cJSON_GetObjectItemCaseSensitive(a->variants[i].raw, "git")) {
			rc = kvb_error_set(err, KVB_EUSAGE,
					   "%s: variant '%s' names a kernel, but --series makes one variant per commit: "
					   "remove the agenda's kernel variants",
					   a->file, a->variants[i].name);
			goto out;
		}
	if (o->series)
		rc = kvb_git_series(repo, o->series, &shas, err);
	else
		rc = read_series_file(o->series_file, repo, &shas, err);
	if (rc)
		goto out;
	if (a->nvariants)
		kvb_warn("--series: the agenda's %zu variant(s) are replaced by the %zu commits", a->nvariants, shas.n);
	for (size_t i = 0; i < shas.n; i++)
		for (size_t j = 0; j < i; j++)
			if (!strcmp(shas.v[i], shas.v[j])) {
				rc = kvb_error_set(err, KVB_EINPUT, "the series lists commit %.12s twice", shas.v[i]);
				goto out;
			}
	kvb_build_set_variants(a, repo, (const char *const *)shas.v, shas.n);
out:
	kvb_strv_release(&shas);
	free(repo);
	return rc;
}

/* The top level of VREPO into *TOP (caller frees): a repository already in CHECKED is
 * not checked again (a series names one repository for every variant); a new one must
 * be clean unless ALLOW_DIRTY, and joins CHECKED. Errors: kvb_build_check_repo's. */
static int checked_toplevel(const char *vrepo, int allow_dirty, struct kvb_strv *checked, char **top,
			    struct kvb_error *err)
{
	int seen = 0, rc;
	char *tl = NULL;
	struct kvb_error e2;
	if (!kvb_git_toplevel(vrepo, &tl, &e2)) {
		for (size_t j = 0; j < checked->n; j++)
			seen |= !strcmp(checked->v[j], tl);
	}
	free(tl);
	if (seen)
		return kvb_git_toplevel(vrepo, top, err);
	if (!(rc = kvb_build_check_repo(vrepo, allow_dirty, top, err)))
		kvb_strv_push(checked, *top);
	return rc;
}

/* SHA's first parent into PARENT (41 bytes, NUL-terminated); left as it was for a root
 * commit or when git cannot say. */
static void parent_sha(const char *top, const char *sha, char parent[41])
{
	char *spec = kvb_xasprintf("%s^", sha), *line = NULL;
	const char *argv[] = { "rev-parse", "--verify", "--quiet", spec, NULL };
	struct kvb_error e2;
	if (!kvb_git_line(top, argv, &line, NULL, &e2) && strlen(line) == 40)
		memcpy(parent, line, 41);
	free(line);
	free(spec);
}

/* A built variant boots what its build made: the kernel, and the device tree, initrd and
 * modules the build made unless the variant names its own. */
static void adopt_outputs(struct kvb_variant *v, const struct kvb_build_result *res)
{
	v->kernel = kvb_xstrdup(res->files[KVB_BOUT_KERNEL]);
	if (res->files[KVB_BOUT_DTB] && !v->dtb)
		v->dtb = kvb_xstrdup(res->files[KVB_BOUT_DTB]);
	if (res->files[KVB_BOUT_INITRD] && !v->initrd)
		v->initrd = kvb_xstrdup(res->files[KVB_BOUT_INITRD]);
	if (res->files[KVB_BOUT_MODULES] && !v->modules)
		v->modules = kvb_xstrdup(res->files[KVB_BOUT_MODULES]);
}

/*
 * A variant's own build settings (`build:` of the variant, over the agenda's spec) into *spec,
 * and its `git.patches` into *patches. KVB_EINPUT naming the agenda and the variant's key.
 */
static int variant_settings(const struct kvb_agenda *a, const struct kvb_variant *v,
			    const struct kvb_build_spec *base, struct kvb_build_spec *spec, struct kvb_strv *patches,
			    struct kvb_error *err)
{
	const cJSON *vb = cJSON_GetObjectItemCaseSensitive(v->raw, "build");
	const cJSON *git = cJSON_GetObjectItemCaseSensitive(v->raw, "git");
	const cJSON *pl = git ? cJSON_GetObjectItemCaseSensitive(git, "patches") : NULL;
	char *dir = dir_of(a->file), *path = kvb_xasprintf("%s: variant '%s': build", a->file ? a->file : "agenda", v->name);
	char *ppath = kvb_xasprintf("%s: variant '%s': git.patches", a->file ? a->file : "agenda", v->name);
	struct kvb_diag d;
	int rc;
	kvb_diag_init(&d, NULL);
	rc = kvb_build_spec_extend(spec, base, vb, path, dir, &d);
	if (pl && kvb_patches_load(pl, ppath, dir, patches, &d))
		rc = KVB_EINPUT;
	if (rc) {
		struct kvb_buf m = KVB_BUF_INIT;
		for (size_t i = 0; i < d.msgs.n; i++)
			kvb_buf_addf(&m, "%s%s", i ? "; " : "", d.msgs.v[i]);
		kvb_error_set(err, KVB_EINPUT, "%s", m.data ? m.data : "bad variant build settings");
		kvb_buf_release(&m);
	}
	kvb_diag_release(&d);
	free(dir);
	free(path);
	free(ppath);
	return rc;
}

/*
 * Each built variant's options against the first built variant's, from the final .config
 * files (what Kconfig made of the fragments, not the fragments): said, and kept in
 * it->config_diff for variant_build.config_diff.
 */
static void config_differences(struct kvb_build_set *set)
{
	const struct kvb_build_item *first = NULL;
	for (size_t i = 0; i < set->n; i++) {
		struct kvb_build_item *it = &set->items[i];
		if (!it->res.config || it->res.error)
			continue;
		if (!first) {
			first = it;
			continue;
		}
		free(it->config_diff);
		it->config_diff = kvb_config_diff(first->res.config, it->res.config, 12);
		if (it->config_diff)
			kvb_info("variant %s: .config against %s's: %s", it->variant, first->variant,
				 *it->config_diff ? it->config_diff : "the same options");
	}
}

int kvb_build_prepare(struct kvb_agenda *a, const struct kvb_prepare_opts *o, struct kvb_build_set *set,
		      struct kvb_error *err)
{
	struct kvb_build_opts bo = { .cache_root = o->cache_root, .cancel = o->cancel ? o->cancel : &set->cancel };
	struct kvb_strv checked = KVB_STRV_INIT;
	const char *repo_arg;
	int rc = KVB_OK, series = o->series || o->series_file;
	size_t ngit = 0;

	for (size_t i = 0; i < a->nvariants; i++) {
		int has_git = cJSON_GetObjectItemCaseSensitive(a->variants[i].raw, "git") != NULL;
		ngit += has_git;
		if (!has_git && cJSON_GetObjectItemCaseSensitive(a->variants[i].raw, "build"))
			return kvb_error_set(err, KVB_EINPUT,
					     "%s: variant '%s': build: settings need a kernel built from git (git: {rev: ...})",
					     a->file ? a->file : "agenda", a->variants[i].name);
	}
	if (!series && !ngit)
		return KVB_OK;
	if ((rc = kvb_build_spec_from_agenda(a, o->platform_build, o->platform_file, &set->spec, err)))
		return rc;
	if (!set->spec.outputs[KVB_BOUT_KERNEL])
		return kvb_error_set(err, KVB_EINPUT, "%s: git variants need a build: block with outputs: {kernel: PATH}",
				     a->file ? a->file : "agenda");
	repo_arg = o->repo ? o->repo : set->spec.repo;
	if (series && (rc = expand_series(a, o, repo_arg, err)))
		return rc;
	set->items = kvb_xcalloc(a->nvariants + 1, sizeof(*set->items));
	if (!o->cancel)
		kvb_build_signals_catch(&set->cancel);
	for (size_t i = 0; i < a->nvariants && !rc; i++) {
		struct kvb_variant *v = &a->variants[i];
		const cJSON *git = cJSON_GetObjectItemCaseSensitive(v->raw, "git");
		const char *vrepo, *rev;
		struct kvb_build_item *it;
		char sha[41], *top = NULL;
		if (!git)
			continue;
		if (v->kernel || v->boot_image) {
			rc = kvb_error_set(err, KVB_EINPUT, "%s: variant '%s' gives both git: and a kernel", a->file, v->name);
			break;
		}
		vrepo = kvb_get_str(git, "repo", repo_arg);
		rev = kvb_get_str(git, "rev", NULL);
		if (!vrepo || !rev) {
			rc = kvb_error_set(err, KVB_EINPUT, "%s: variant '%s': git needs {repo: DIR, rev: REVISION}%s",
					   a->file, v->name, vrepo ? "" : " (or build.repo / --repo)");
			break;
		}
		rc = checked_toplevel(vrepo, o->allow_dirty || series, &checked, &top, err);
		if (rc || (rc = kvb_git_commit(top, rev, sha, err))) {
			if (rc)
				kvb_error_prefix(err, "variant '%s'", v->name);
			free(top);
			break;
		}
		it = &set->items[set->n++];
		it->variant = kvb_xstrdup(v->name);
		it->repo = top;
		it->rev = kvb_xstrdup(rev);
		it->series_pos = series ? (int)i : -1;
		parent_sha(top, sha, it->parent);
		if ((rc = variant_settings(a, v, &set->spec, &it->spec, &it->patches, err)))
			break;
		kvb_info("variant %s: %s at %.12s%s (%zu/%zu)", v->name, top, sha, it->patches.n ? " with patches" : "",
			 set->n, a->nvariants);
		{
			char label[160];
			snprintf(label, sizeof(label), "%.120s %zu/%zu", v->name, set->n, a->nvariants);
			bo.label = label;
			rc = kvb_build_rev_patched(&it->spec, top, sha, &it->patches, &bo, &it->res, err);
			bo.label = NULL;
		}
		if (rc) {
			kvb_error_prefix(err, "variant '%s'", v->name);
			break;
		}
		if (it->res.base_sha[0])
			memcpy(it->parent, it->res.base_sha, 41);
		if (it->res.error) {
			v->unusable = kvb_xstrdup(it->res.error);
			continue;
		}
		adopt_outputs(v, &it->res);
	}
	if (!rc)
		config_differences(set);
	if (!o->cancel)
		kvb_build_signals_restore();
	kvb_strv_release(&checked);
	return rc;
}

int kvb_build_record(void *arg, struct kvb_store *st, int64_t run_id, struct kvb_error *err)
{
	struct kvb_build_set *set = arg;
	char *artdir = kvb_store_artifact_dir(st, run_id);
	int rc = KVB_OK;
	for (size_t i = 0; i < set->n && !rc; i++) {
		struct kvb_build_item *it = &set->items[i];
		int64_t vid = 0;
		if ((rc = kvb_store_variant_find(st, run_id, it->variant, &vid, err)) || !vid)
			break;
		{
			const struct kvb_variant_build vb = {
				.repo = it->repo, .rev = it->rev, .sha = it->res.sha, .describe = it->res.describe,
				.subject = it->res.subject, .parent_sha = it->parent[0] ? it->parent : NULL,
				.series_pos = it->series_pos >= 0 ? it->series_pos : -1, .config_hash = it->res.key,
				.toolchain = it->res.toolchain, .build_s = it->res.build_s, .cached = it->res.cached,
				.build_log = it->res.log, .error = it->res.error, .config_diff = it->config_diff,
				.patched_onto = it->res.base_sha[0] ? it->res.base_sha : NULL,
				.patches = (const char *const *)it->res.patches.v, .npatches = it->res.patches.n,
			};
			rc = kvb_store_variant_build(st, vid, &vb, err);
		}
		/* the build log is an artifact of the run: a copy, so a cache purge does not lose it */
		if (!rc && artdir && it->res.log && kvb_is_file(it->res.log)) {
			char *comp = kvb_path_component(it->variant);
			char *dst = kvb_xasprintf("%s/build-%s.log", artdir, comp);
			if (!kvb_copy_file(it->res.log, dst))
				rc = kvb_store_run_artifact(st, run_id, "build-log", dst, err);
			free(dst);
			free(comp);
		}
	}
	free(artdir);
	return rc;
}

void kvb_build_set_release(struct kvb_build_set *set)
{
	for (size_t i = 0; i < set->n; i++) {
		free(set->items[i].variant);
		free(set->items[i].repo);
		free(set->items[i].rev);
		free(set->items[i].config_diff);
		kvb_build_spec_release(&set->items[i].spec);
		kvb_strv_release(&set->items[i].patches);
		kvb_build_result_release(&set->items[i].res);
	}
	free(set->items);
	kvb_build_spec_release(&set->spec);
	memset((void *)set, 0, sizeof(*set));
}
