/* Implements building one kernel revision: the source checkout, make (or a vendor command), the image cache. */
#include "kbuild/kbuild_internal.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

const char *const kvb_bout_names[KVB_BOUT_N] = { "kernel", "dtb", "initrd", "modules" };

char *kvb_build_cache_root(const char *override)
{
	const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
	if (override)
		return kvb_xstrdup(override);
	if (x && *x)
		return kvb_xasprintf("%s/kvbench", x);
	return kvb_xasprintf("%s/.cache/kvbench", h && *h ? h : "/tmp");
}

/* The C compiler the make args select (CC=, LLVM=1, CROSS_COMPILE=), as kbuild picks it. Owned. */
static char *compiler_of(const struct kvb_build_spec *s)
{
	const char *cross = "", *cc = NULL;
	int llvm = 0;
	for (size_t i = 0; i < s->make_args.n; i++) {
		const char *a = s->make_args.v[i];
		if (!strncmp(a, "CC=", 3))
			cc = a + 3;
		else if (!strncmp(a, "CROSS_COMPILE=", 14))
			cross = a + 14;
		else if (!strncmp(a, "LLVM=", 5) && strcmp(a + 5, "0") && a[5])
			llvm = 1;
	}
	if (cc)
		return kvb_xstrdup(cc);
	return llvm ? kvb_xstrdup("clang") : kvb_xasprintf("%sgcc", cross);
}

/* First line of `CC --version`: the toolchain part of the cache key. */
static int toolchain_version(const char *cc, char **out, struct kvb_error *err)
{
	const char *argv[] = { cc, "--version", NULL };
	struct kvb_spawn_opts o = { .argv = argv, .timeout_ms = 60000 };
	struct kvb_exec_result r;
	int rc;
	kvb_exec_result_init(&r);
	rc = kvb_spawn_run(&o, &r, err);
	if (!rc && r.exit_code != 0)
		rc = kvb_error_set(err, KVB_EINPUT, "compiler '%s' does not run (%s --version failed)", cc, cc);
	if (!rc)
		*out = kvb_xstrndup(r.out.data ? r.out.data : "", strcspn(r.out.data ? r.out.data : "", "\n"));
	else
		kvb_error_prefix(err, "build toolchain");
	kvb_exec_result_release(&r);
	return rc;
}

static void key_of(const struct kvb_build_spec *s, const char *toolchain, char key[17])
{
	struct kvb_buf b = KVB_BUF_INIT;
	char hex[65];
	kvb_buf_addf(&b, "toolchain\n%s\n", toolchain);
	for (size_t i = 0; i < s->config.n; i++) {
		if (kvb_build_is_fragment(s->config.v[i])) {
			struct kvb_buf f = KVB_BUF_INIT;
			kvb_buf_read_file(&f, s->config.v[i]);
			kvb_buf_addf(&b, "fragment %zu\n", f.len);
			kvb_buf_add(&b, f.data ? f.data : "", f.len);
			kvb_buf_release(&f);
		} else {
			kvb_buf_addf(&b, "target %s\n", s->config.v[i]);
		}
	}
	for (size_t i = 0; i < s->make_args.n; i++)
		kvb_buf_addf(&b, "arg %s\n", s->make_args.v[i]);
	if (s->command) {
		struct kvb_buf f = KVB_BUF_INIT;
		kvb_buf_read_file(&f, s->command);
		kvb_buf_addf(&b, "command %s %zu\n", s->command, f.len);
		kvb_buf_add(&b, f.data ? f.data : "", f.len);
		kvb_buf_release(&f);
	}
	for (int i = 0; i < KVB_BOUT_N; i++)
		kvb_buf_addf(&b, "out %s\n", s->outputs[i] ? s->outputs[i] : "-");
	kvb_sha256_mem(b.data, b.len, hex);
	memcpy(key, hex, 16);
	key[16] = '\0';
	kvb_buf_release(&b);
}

/*
 * flock on a lock file that is removed after use: after taking the lock the
 * file must still be the one at path (another holder may have unlinked it
 * between our open and our flock), else try again.
 */
static int lock_take(const char *path, int *fd_out, struct kvb_error *err)
{
	for (int tries = 0; tries < 1000; tries++) {
		struct stat a, b;
		int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
		if (fd < 0)
			return kvb_error_set(err, KVB_EINPUT, "cannot open lock %s: %s", path, strerror(errno));
		if (flock(fd, LOCK_EX | LOCK_NB)) {
			if (errno != EWOULDBLOCK) {
				close(fd);
				return kvb_error_set(err, KVB_EINPUT, "cannot lock %s: %s", path, strerror(errno));
			}
			if (!tries)
				kvb_info("waiting for another build using the same object directory (%s)", path);
			if (flock(fd, LOCK_EX)) {
				close(fd);
				return kvb_error_set(err, KVB_EINPUT, "cannot lock %s: %s", path, strerror(errno));
			}
		}
		if (!fstat(fd, &a) && !stat(path, &b) && a.st_ino == b.st_ino && a.st_dev == b.st_dev) {
			*fd_out = fd;
			return KVB_OK;
		}
		close(fd);
	}
	return kvb_error_set(err, KVB_EINPUT, "cannot lock %s: it keeps changing", path);
}

static void lock_drop(const char *path, int fd)
{
	if (fd < 0)
		return;
	unlink(path);
	close(fd);
}

static int write_info(const char *path, const struct kvb_build_result *r, const char *repo)
{
	cJSON *o = cJSON_CreateObject();
	char *s;
	FILE *f;
	int rc = -1;
	cJSON_AddStringToObject(o, "repo", repo);
	cJSON_AddStringToObject(o, "commit", r->sha);
	cJSON_AddStringToObject(o, "describe", r->describe);
	cJSON_AddStringToObject(o, "subject", r->subject);
	cJSON_AddStringToObject(o, "config_hash", r->key);
	cJSON_AddStringToObject(o, "toolchain", r->toolchain);
	cJSON_AddNumberToObject(o, "build_s", r->build_s);
	s = cJSON_Print(o);
	if ((f = fopen(path, "w"))) {
		rc = fputs(s, f) < 0;
		rc |= fclose(f) != 0;
	}
	free(s);
	cJSON_Delete(o);
	return rc;
}

/* Fills r from a finished cache directory; 0 when it is complete. */
static int read_cached(const struct kvb_build_spec *s, struct kvb_build_result *r)
{
	struct kvb_buf b = KVB_BUF_INIT;
	char *info = kvb_xasprintf("%s/info.json", r->dir);
	cJSON *o;
	int rc = -1;
	if (!kvb_buf_read_file(&b, info) && (o = cJSON_Parse(b.data))) {
		r->build_s = kvb_get_num(o, "build_s", 0);
		rc = 0;
		for (int i = 0; i < KVB_BOUT_N; i++)
			if (s->outputs[i]) {
				r->files[i] = kvb_xasprintf("%s/%s", r->dir, kvb_bout_names[i]);
				if (!kvb_is_file(r->files[i]))
					rc = -1;
			}
		cJSON_Delete(o);
	}
	if (!rc) {
		char *conf = kvb_xasprintf("%s/config", r->dir);
		r->log = kvb_xasprintf("%s/build.log", r->dir);
		r->cached = 1;
		if (kvb_is_file(conf))
			r->config = conf;
		else
			free(conf);
	}
	kvb_buf_release(&b);
	free(info);
	return rc;
}

/* Copies the declared outputs into the image directory and checks the kernel carries the commit. */
static int collect(const struct kvb_build_spec *s, const char *pair, const char *tmpdir, struct kvb_build_result *r,
		   struct kvb_error *err)
{
	const char *base = "out";
	for (int i = 0; i < KVB_BOUT_N; i++) {
		char *from, *to;
		if (!s->outputs[i])
			continue;
		from = kvb_xasprintf("%s/%s/%s", pair, base, s->outputs[i]);
		to = kvb_xasprintf("%s/%s", tmpdir, kvb_bout_names[i]);
		if (!kvb_is_file(from)) {
			int rc = kvb_error_set(err, KVB_EINPUT,
					       "build of %.12s did not produce its declared output %s '%s' (looked for %s)",
					       r->sha, kvb_bout_names[i], s->outputs[i], from);
			free(from);
			free(to);
			return rc;
		}
		if (kvb_copy_file(from, to)) {
			int rc = kvb_error_set(err, KVB_EINPUT, "cannot copy %s to %s: %s", from, to, strerror(errno));
			free(from);
			free(to);
			return rc;
		}
		free(from);
		free(to);
	}
	if (!s->command) {
		/* the final .config: what the variant's settings made (shown as differences between variants) */
		char *from = kvb_xasprintf("%s/out/.config", pair), *to = kvb_xasprintf("%s/config", tmpdir);
		kvb_copy_file(from, to);
		free(from);
		free(to);
	}
	{
		struct kvb_kimage_id id;
		char *k = kvb_xasprintf("%s/kernel", tmpdir), want[16];
		int rc = KVB_OK;
		memset(&id, 0, sizeof(id));
		snprintf(want, sizeof(want), "#%.12s ", r->sha);
		if (kvb_kimage_identify(k, &id, err))
			rc = kvb_error_prefix(err, "built kernel of %.12s", r->sha);
		else if (!id.version || strncmp(id.version, want, strlen(want)))
			rc = kvb_error_set(err, KVB_EINPUT,
					   "built kernel of %.12s says `uname -v` = '%s', not '%s...': the build did not "
					   "honour KBUILD_BUILD_VERSION, so the board could not prove it runs this commit",
					   r->sha, id.version ? id.version : "(none)", want);
		kvb_kimage_id_release(&id);
		free(k);
		return rc;
	}
}

/* 1 when r->dir holds this build already (said, r filled from it); else 0 with r's files forgotten. */
static int cached(const struct kvb_build_spec *spec, struct kvb_build_result *r)
{
	if (kvb_is_dir(r->dir) && !read_cached(spec, r)) {
		kvb_info("build %.12s (%s): cached in %s", r->sha, r->describe, r->dir);
		return 1;
	}
	for (int i = 0; i < KVB_BOUT_N; i++) {
		free(r->files[i]);
		r->files[i] = NULL;
	}
	return 0;
}

/* Moves the log of a build that failed beside the cache (imgs/failed-SHA-KEY.log); -1, r->log kept, when it cannot. */
static int keep_failed_log(struct kvb_build_result *r, const char *imgs)
{
	char *keep = kvb_xasprintf("%s/failed-%.12s-%s.log", imgs, r->sha, r->key);
	if (rename(r->log, keep)) {
		free(keep);
		return -1;
	}
	free(r->log);
	r->log = keep;
	return 0;
}

/* The finished build in tmpdir becomes the cache entry r->dir (with info.json); r->log and r->files then name it. */
static int store_build(const struct kvb_build_spec *spec, const char *repo, const char *tmpdir,
		       struct kvb_build_result *r, struct kvb_error *err)
{
	char *info = kvb_xasprintf("%s/info.json", tmpdir);
	int rc = KVB_OK;
	if (write_info(info, r, repo) || rename(tmpdir, r->dir))
		rc = kvb_error_set(err, KVB_EINPUT, "cannot store the build in %s: %s", r->dir, strerror(errno));
	free(info);
	if (rc)
		return rc;
	free(r->log);
	r->log = kvb_xasprintf("%s/build.log", r->dir);
	{
		char *conf = kvb_xasprintf("%s/config", r->dir);
		if (kvb_is_file(conf))
			r->config = conf;
		else
			free(conf);
	}
	for (int i = 0; i < KVB_BOUT_N; i++)
		if (spec->outputs[i])
			r->files[i] = kvb_xasprintf("%s/%s", r->dir, kvb_bout_names[i]);
	return KVB_OK;
}

int kvb_build_rev(const struct kvb_build_spec *spec, const char *repo, const char *sha,
		  const struct kvb_build_opts *o, struct kvb_build_result *r, struct kvb_error *err)
{
	return kvb_build_rev_patched(spec, repo, sha, NULL, o, r, err);
}

/*
 * The patched commit of a patched build: under the pair's lock (taken here into *lockfd),
 * the patches go onto sha in PAIR/src; r->sha becomes the result, r->describe and r->subject
 * its own (the user's repository does not hold it). *fail: the patches did not apply.
 */
static int patch_first(const char *repo, const char *sha, const struct kvb_strv *patches, const char *pair,
		       const char *lockp, int *lockfd, struct kvb_build_result *r, char **fail, struct kvb_error *err)
{
	char *src = kvb_xasprintf("%s/src", pair), newsha[41];
	int rc;
	if ((rc = lock_take(lockp, lockfd, err)) || (rc = kvb_kbuild_checkout(repo, src, sha, err)))
		goto out;
	memcpy(r->base_sha, sha, 40);
	r->base_sha[40] = '\0';
	if ((rc = kvb_patches_apply(src, sha, patches, newsha, &r->patches, fail, err)) || *fail)
		goto out;
	memcpy(r->sha, newsha, 41);
	free(r->describe);
	free(r->subject);
	r->describe = kvb_git_describe(src, newsha);
	r->subject = kvb_git_subject(src, newsha);
	kvb_info("build %.12s: %zu patch commit(s) onto %.12s, now %.12s (%s)", sha, r->patches.n, sha, newsha,
		 r->subject);
out:
	free(src);
	return rc;
}

int kvb_build_rev_patched(const struct kvb_build_spec *spec, const char *repo, const char *sha,
			  const struct kvb_strv *patches, const struct kvb_build_opts *o, struct kvb_build_result *r,
			  struct kvb_error *err)
{
	char *root = kvb_build_cache_root(o->cache_root), *cc = compiler_of(spec);
	char *pair = NULL, *lockp = NULL, *tmpdir = NULL, *imgs = NULL, *fail = NULL;
	char rhex[65];
	int rc, lockfd = -1;

	memset(r, 0, sizeof(*r));
	memcpy(r->sha, sha, 40);
	r->sha[40] = '\0';
	if (!spec->outputs[KVB_BOUT_KERNEL]) {
		rc = kvb_error_set(err, KVB_EINPUT, "build: outputs.kernel is required");
		goto out;
	}
	if ((rc = toolchain_version(cc, &r->toolchain, err)))
		goto out;
	r->describe = kvb_git_describe(repo, sha);
	r->subject = kvb_git_subject(repo, sha);
	key_of(spec, r->toolchain, r->key);
	imgs = kvb_xasprintf("%s/images", root);
	kvb_sha256_mem(repo, strlen(repo), rhex);
	pair = kvb_xasprintf("%s/obj/%.16s-%s", root, rhex, r->key);
	lockp = kvb_xasprintf("%s.lock", pair);
	if (patches && patches->n) {
		if (kvb_mkdir_p(pair, 0755)) {
			rc = kvb_error_set(err, KVB_EINPUT, "cannot create %s: %s", pair, strerror(errno));
			goto out;
		}
		if ((rc = patch_first(repo, sha, patches, pair, lockp, &lockfd, r, &fail, err)))
			goto out;
		if (fail) {
			r->error = fail;
			fail = NULL;
			goto out;
		}
		sha = r->sha;
	}
	r->dir = kvb_xasprintf("%s/%.12s-%s", imgs, sha, r->key);
	if (cached(spec, r))
		goto out;
	if (kvb_mkdir_p(pair, 0755) || kvb_mkdir_p(imgs, 0755)) {
		rc = kvb_error_set(err, KVB_EINPUT, "cannot create %s: %s", pair, strerror(errno));
		goto out;
	}
	if (lockfd < 0 && (rc = lock_take(lockp, &lockfd, err)))
		goto out;
	/* another kvbench may have built it while we waited for the lock */
	if (cached(spec, r))
		goto out;
	tmpdir = kvb_xasprintf("%s/.tmp-%.12s-%s-%d", imgs, sha, r->key, (int)getpid());
	kvb_kbuild_rm_rf(tmpdir);
	if (kvb_mkdir_p(tmpdir, 0755)) {
		rc = kvb_error_set(err, KVB_EINPUT, "cannot create %s: %s", tmpdir, strerror(errno));
		goto out;
	}
	kvb_info("build %.12s (%s) %s: building in %s", sha, r->describe, r->subject, pair);
	rc = kvb_kbuild_do_build(spec, repo, cc, pair, tmpdir, o, r, &fail, err);
	if (rc)
		goto out;
	if (fail) {
		/* keep the log of the failed build beside the cache (the caller stores it as an artifact) */
		keep_failed_log(r, imgs);
		r->error = fail;
		fail = NULL;
		goto out;
	}
	if ((rc = collect(spec, pair, tmpdir, r, err)) || (rc = store_build(spec, repo, tmpdir, r, err)))
		goto out;
	free(tmpdir);
	tmpdir = NULL;
	kvb_info("build %.12s%s%s: done in %.0f s", sha, o->label ? " for " : "", o->label ? o->label : "", r->build_s);
out:
	if (tmpdir) {
		/* a log of a build that could not finish is still worth keeping */
		if (r->log && !strncmp(r->log, tmpdir, strlen(tmpdir)) && keep_failed_log(r, imgs)) {
			free(r->log);
			r->log = NULL;
		}
		kvb_kbuild_rm_rf(tmpdir);
	}
	lock_drop(lockp, lockfd);
	free(root);
	free(cc);
	free(pair);
	free(lockp);
	free(tmpdir);
	free(imgs);
	free(fail);
	return rc;
}
