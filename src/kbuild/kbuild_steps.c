/* Implements the steps of one kernel build: checkout, configure (a base config and fragments, checked for options the kernel dropped), make, each a logged command. */
#include "kbuild/kbuild_internal.h"
#include "core/progress.h"

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

/* The last non-empty line of a file (at most 120 bytes), for the progress line. Owned or NULL. */
static char *last_line(const char *path)
{
	char buf[512];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	off_t end;
	ssize_t n;
	if (fd < 0)
		return NULL;
	end = lseek(fd, 0, SEEK_END);
	n = pread(fd, buf, sizeof(buf) - 1, end > (off_t)sizeof(buf) - 1 ? end - (off_t)sizeof(buf) + 1 : 0);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	char *s = strrchr(buf, '\n');
	s = s ? s + 1 : buf;
	while (*s == ' ')
		s++;
	return kvb_xstrndup(s, strlen(s) > 120 ? 120 : strlen(s));
}

/* The last `lines` lines of a file. Owned ("" when unreadable). */
static char *tail_lines(const char *path, int lines)
{
	struct kvb_buf b = KVB_BUF_INIT;
	const char *p;
	kvb_buf_read_file(&b, path);
	if (!b.data)
		return kvb_xstrdup("");
	while (b.len && b.data[b.len - 1] == '\n')
		b.data[--b.len] = '\0';
	p = b.data + b.len;
	while (p > b.data && lines > 0) {
		p--;
		if (*p == '\n')
			lines--;
	}
	if (*p == '\n')
		p++;
	char *out = kvb_xstrdup(p);
	kvb_buf_release(&b);
	return out;
}

/*
 * Runs one build step; stdout and stderr are appended to the step's logs.
 * Returns KVB_OK with *exit_code set, or an error (cannot start, timeout,
 * interrupted) with the process group killed.
 */
static int run_step(struct step *st, const char *const *argv, const char *const *env, const char *cwd, int *exit_code,
		    struct kvb_error *err)
{
	struct kvb_spawn_opts so = { 0 };
	struct kvb_bgproc p;
	char *tmp_out = kvb_xasprintf("%s.step", st->log), *tmp_err = kvb_xasprintf("%s.step", st->errlog);
	int rc, status = 0;
	struct kvb_progress pr;
	so.argv = argv;
	so.env = env;
	so.cwd = cwd;
	so.stdout_path = tmp_out;
	so.stderr_path = tmp_err;
	if ((rc = kvb_spawn_bg(&so, &p, err)))
		goto out;
	/* on a terminal a line rewritten every second; in a log (CI) a line a minute: which build, how long */
	kvb_progress_start(&pr, st->title, 60, st->o->quiet);
	pr.t0_ns = st->t0_ns;
	for (;;) {
		pid_t w = waitpid(p.pid, &status, WNOHANG);
		uint64_t now = kvb_mono_ns();
		if (w == p.pid)
			break;
		if (w < 0 && errno != EINTR) {
			rc = kvb_error_set(err, KVB_ETARGET, "waiting for %s: %s", argv[0], strerror(errno));
			goto out;
		}
		if ((st->o->cancel && *st->o->cancel) || now > st->deadline_ns) {
			int cancelled = st->o->cancel && *st->o->cancel;
			kvb_spawn_stop(&p, SIGTERM, 5000);
			kvb_progress_end(&pr);
			rc = cancelled ? kvb_error_set(err, KVB_EINTR, "%s: interrupted", st->title) /* as a run */
				       : kvb_error_set(err, KVB_ETARGET, "%s: timed out after %llu s", st->title,
						       (unsigned long long)((now - st->t0_ns) / 1000000000ull));
			goto out;
		}
		if (kvb_progress_due(&pr)) {
			char *l = last_line(tmp_out);
			kvb_progress_tick(&pr, l ? l : argv[0]);
			free(l);
		}
		kvb_sleep_ms(200);
	}
	kvb_progress_end(&pr);
	*exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
out:
	/* append this step's output to the build's logs */
	{
		struct kvb_buf b = KVB_BUF_INIT;
		FILE *f;
		if (!kvb_buf_read_file(&b, tmp_out) && b.len && (f = fopen(st->log, "a"))) {
			fwrite(b.data, 1, b.len, f);
			fclose(f);
		}
		kvb_buf_reset(&b);
		if (!kvb_buf_read_file(&b, tmp_err) && b.len && (f = fopen(st->errlog, "a"))) {
			fwrite(b.data, 1, b.len, f);
			fclose(f);
		}
		kvb_buf_release(&b);
	}
	unlink(tmp_out);
	unlink(tmp_err);
	free(tmp_out);
	free(tmp_err);
	return rc;
}

/* Appends a line to the log saying what runs next (the log reads like a shell transcript). */
static void log_cmd(const char *log, const char *const *argv)
{
	FILE *f = fopen(log, "a");
	if (!f)
		return;
	fputs("$", f);
	for (size_t i = 0; argv[i]; i++)
		fprintf(f, " %s", argv[i]);
	fputc('\n', f);
	fclose(f);
}

/*
 * One fragment line as Kconfig reads it (scripts/kconfig/confdata.c conf_read_simple, Linux 6.1):
 * a trailing '\r' is dropped (a fragment saved with CRLF line ends works), and a bool or tristate
 * "CONFIG_X=n" means what "# CONFIG_X is not set" means (the final .config then says the latter).
 * The symbol goes to sym; *val gets the value asked ("y", "m", "\"str\"", ...), or NULL for
 * "not set" and "=n". Returns 0 for a line that sets nothing (a comment, "CONFIG_X=" with no value).
 */
static int fragment_line(char *l, char sym[256], const char **val)
{
	size_t n = strlen(l);
	int off = 0;
	while (n && (l[n - 1] == '\r' || l[n - 1] == ' ' || l[n - 1] == '\t'))
		l[--n] = '\0';
	*val = NULL;
	if (!strncmp(l, "CONFIG_", 7)) {
		size_t k = strcspn(l + 7, "=");
		if (!l[7 + k] || k >= 256 || !l[7 + k + 1])
			return 0;
		memcpy(sym, l + 7, k);
		sym[k] = '\0';
		if (strcmp(l + 7 + k + 1, "n"))
			*val = l + 7 + k + 1;
		return 1;
	}
	return sscanf(l, "# CONFIG_%255s is not set%n", sym, &off) == 1 && off;
}

char *kvb_kbuild_config_unmet(const struct kvb_strv *config, const char *dotconfig)
{
	struct kvb_buf final = KVB_BUF_INIT, bad = KVB_BUF_INIT;
	struct kvb_strv later = KVB_STRV_INIT;  /* symbols the fragments after this one set */
	int nbad = 0;
	kvb_buf_read_file(&final, dotconfig);
	for (size_t i = config->n; i-- > 0;) {
		struct kvb_buf f = KVB_BUF_INIT;
		size_t nlater = later.n;
		if (!kvb_build_is_fragment(config->v[i]))
			continue;
		kvb_buf_read_file(&f, config->v[i]);
		for (char *save = NULL, *l = strtok_r(f.data, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			char sym[256], *want;
			const char *val;
			int overridden = 0, held;
			if (!fragment_line(l, sym, &val))
				continue;
			for (size_t j = 0; j < nlater && !overridden; j++)
				overridden = !strcmp(later.v[j], sym);
			if (overridden)
				continue;
			kvb_strv_push(&later, sym);
			/* the first line of .config is a comment, so every entry is preceded by '\n' */
			if (val) {
				want = kvb_xasprintf("\nCONFIG_%s=%s\n", sym, val);
				held = final.data && strstr(final.data, want);
			} else {
				/* "not set" holds when the symbol is absent or says so */
				want = kvb_xasprintf("\nCONFIG_%s=", sym);
				held = !(final.data && strstr(final.data, want));
			}
			free(want);
			if (!held && nbad++ < 8)
				kvb_buf_addf(&bad, "%s%s", bad.len ? ", " : "", l);
		}
		kvb_buf_release(&f);
	}
	kvb_strv_release(&later);
	kvb_buf_release(&final);
	if (!nbad) {
		kvb_buf_release(&bad);
		return NULL;
	}
	if (nbad > 8)
		kvb_buf_addf(&bad, " and %d more", nbad - 8);
	return kvb_buf_detach(&bad);
}

void kvb_kbuild_rm_rf(const char *dir)
{
	const char *argv[] = { "rm", "-rf", "--", dir, NULL };
	struct kvb_spawn_opts o = { .argv = argv, .timeout_ms = 600000 };
	struct kvb_exec_result r;
	struct kvb_error e;
	kvb_exec_result_init(&r);
	kvb_spawn_run(&o, &r, &e);
	kvb_exec_result_release(&r);
}

/* The source checkout of the pair at sha: cloned once (--shared: objects stay in repo), then checkout. */
int kvb_kbuild_checkout(const char *repo, const char *src, const char *sha, struct kvb_error *err)
{
	struct kvb_exec_result r;
	int rc;
	if (!kvb_is_dir(src)) {
		char *tmp = kvb_xasprintf("%s.tmp", src);
		const char *argv2[] = { "clone", "--quiet", "--shared", "--no-checkout", repo, tmp, NULL };
		kvb_kbuild_rm_rf(tmp);
		kvb_exec_result_init(&r);
		rc = kvb_git(repo, argv2, &r, NULL, err);
		kvb_exec_result_release(&r);
		if (!rc && rename(tmp, src))
			rc = kvb_error_set(err, KVB_EINPUT, "cannot rename %s: %s", tmp, strerror(errno));
		free(tmp);
		if (rc)
			return rc;
	}
	{
		const char *argv[] = { "-c", "advice.detachedHead=false", "checkout", "--quiet", "--force", "--detach", sha,
				       NULL };
		kvb_exec_result_init(&r);
		rc = kvb_git(src, argv, &r, NULL, err);
		kvb_exec_result_release(&r);
	}
	if (rc) {
		/* a commit made after the clone: the objects are shared, but fetch the ref to be sure */
		const char *fa[] = { "fetch", "--quiet", "--no-tags", repo, sha, NULL };
		const char *ca[] = { "checkout", "--quiet", "--force", "--detach", sha, NULL };
		kvb_exec_result_init(&r);
		rc = kvb_git(src, fa, &r, NULL, err);
		kvb_exec_result_release(&r);
		kvb_exec_result_init(&r);
		if (!rc)
			rc = kvb_git(src, ca, &r, NULL, err);
		kvb_exec_result_release(&r);
	}
	return rc;
}

/* The make command line every make step starts with (b->base); ccache wraps cc unless make_args set CC. */
static void make_base(struct build *b, const char *cc, int ccache)
{
	const struct kvb_build_spec *s = b->s;
	long jobs = s->jobs > 0 ? s->jobs : sysconf(_SC_NPROCESSORS_ONLN);
	kvb_strv_push(&b->base, "make");
	kvb_strv_push(&b->base, "-C");
	kvb_strv_push(&b->base, b->src);
	kvb_strv_pushf(&b->base, "O=%s", b->out);
	kvb_strv_pushf(&b->base, "-j%ld", jobs > 0 ? jobs : 1);
	for (size_t i = 0; i < s->make_args.n; i++)
		kvb_strv_push(&b->base, s->make_args.v[i]);
	if (ccache) {
		int has_cc = 0;
		for (size_t i = 0; i < s->make_args.n; i++)
			has_cc |= !strncmp(s->make_args.v[i], "CC=", 3);
		if (!has_cc)
			kvb_strv_pushf(&b->base, "CC=ccache %s", cc);
	}
}

/*
 * One config item: a fragment merged into .config (merge_config.sh) then make olddefconfig,
 * or a make target (defconfig). A step that exits non-zero sets *code and *fail.
 */
static int config_step(struct build *b, const char *item, int *code, char **fail, struct kvb_error *err)
{
	struct kvb_strv a = KVB_STRV_INIT;
	int rc;
	if (kvb_build_is_fragment(item)) {
		char *merge = kvb_xasprintf("%s/scripts/kconfig/merge_config.sh", b->src);
		kvb_strv_push(&a, merge);
		kvb_strv_push(&a, "-m");
		kvb_strv_push(&a, "-O");
		kvb_strv_push(&a, b->out);
		kvb_strv_push(&a, b->dotconfig);
		kvb_strv_push(&a, item);
		free(merge);
		log_cmd(b->st.log, kvb_strv_argv(&a));
		rc = run_step(&b->st, kvb_strv_argv(&a), kvb_strv_argv(&b->env), b->src, code, err);
		kvb_strv_release(&a);
		if (rc)
			return rc;
		if (*code) {
			*fail = kvb_xasprintf("merging %s failed (exit status %d)", item, *code);
			return KVB_OK;
		}
		for (size_t j = 0; j < b->base.n; j++)
			kvb_strv_push(&a, b->base.v[j]);
		kvb_strv_push(&a, "olddefconfig");
	} else {
		for (size_t j = 0; j < b->base.n; j++)
			kvb_strv_push(&a, b->base.v[j]);
		kvb_strv_push(&a, item);
	}
	log_cmd(b->st.log, kvb_strv_argv(&a));
	rc = run_step(&b->st, kvb_strv_argv(&a), kvb_strv_argv(&b->env), b->src, code, err);
	if (!rc && *code)
		*fail = kvb_xasprintf("make %s failed (exit status %d)", a.v[a.n - 1], *code);
	kvb_strv_release(&a);
	return rc;
}

/*
 * The .config, made once per pair (the key covers every input of the configuration): every
 * config item, then the check that it holds the fragments' options; stamped with r->key.
 */
static int configure(struct build *b, const struct kvb_build_result *r, int *code, char **fail, struct kvb_error *err)
{
	const struct kvb_build_spec *s = b->s;
	struct kvb_buf sb = KVB_BUF_INIT;
	char *bad;
	FILE *f;
	int rc, done;
	kvb_buf_read_file(&sb, b->stamp);
	done = kvb_is_file(b->dotconfig) && sb.data && !strncmp(sb.data, r->key, 16);
	kvb_buf_release(&sb);
	if (done)
		return KVB_OK;
	for (size_t i = 0; i < s->config.n && !*code; i++)
		if ((rc = config_step(b, s->config.v[i], code, fail, err)) || *code)
			return rc;
	if (!kvb_is_file(b->dotconfig))
		return kvb_error_set(err, KVB_EINPUT, "build: no .config after the config steps (config: give a "
						      "make target such as defconfig or tinyconfig first)");
	if ((bad = kvb_kbuild_config_unmet(&s->config, b->dotconfig))) {
		rc = kvb_error_set(err, KVB_EINPUT,
				   "build: the kernel's Kconfig did not take these fragment options (unmet "
				   "dependencies?): %s (see %s)",
				   bad, b->dotconfig);
		free(bad);
		return rc;
	}
	if ((f = fopen(b->stamp, "w"))) {
		fprintf(f, "%s\n", r->key);
		fclose(f);
	}
	return KVB_OK;
}

/* One log: stdout, then stderr (where the compiler's errors are); *fail, if set, gains the time and the log's end. */
static void join_logs(const char *log, const char *errlog, const struct kvb_build_result *r, char **fail)
{
	struct kvb_buf b = KVB_BUF_INIT;
	FILE *f;
	if (!kvb_buf_read_file(&b, errlog) && b.len && (f = fopen(log, "a"))) {
		fputs("---- stderr ----\n", f);
		fwrite(b.data, 1, b.len, f);
		fclose(f);
	}
	kvb_buf_release(&b);
	if (*fail) {
		char *t = tail_lines(kvb_is_file(errlog) ? errlog : log, 12);
		char *m = kvb_xasprintf("build of %.12s (%s) failed after %.0f s: %s; end of the log:\n%s", r->sha,
					r->subject, r->build_s, *fail, t);
		free(*fail);
		*fail = m;
		free(t);
	}
	unlink(errlog);
}

/* 1 when name is an executable: a path, or found in $PATH. */
static int kvb_kbuild_have_program(const char *name)
{
	const char *path = getenv("PATH");
	char *copy, *save = NULL;
	int found = 0;
	if (strchr(name, '/'))
		return access(name, X_OK) == 0;
	copy = kvb_xstrdup(path ? path : "/usr/bin:/bin");
	for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char *f = kvb_xasprintf("%s/%s", d, name);
		found = access(f, X_OK) == 0;
		free(f);
	}
	free(copy);
	return found;
}


int kvb_kbuild_do_build(const struct kvb_build_spec *s, const char *repo, const char *cc, const char *pair,
	     const char *tmpdir, const struct kvb_build_opts *o, struct kvb_build_result *r, char **fail,
	     struct kvb_error *err)
{
	char *log = kvb_xasprintf("%s/build.log", tmpdir), *errlog = kvb_xasprintf("%s/build.stderr", tmpdir);
	char title[160];
	struct build b = { .s = s, .st = { .title = title, .log = log, .errlog = errlog, .o = o } };
	int rc, code = 0, ccache = kvb_kbuild_have_program("ccache");
	char *root = kvb_build_cache_root(o->cache_root);

	b.src = kvb_xasprintf("%s/src", pair);
	b.out = kvb_xasprintf("%s/out", pair);
	b.stamp = kvb_xasprintf("%s/.kvb-config-key", b.out);
	b.dotconfig = kvb_xasprintf("%s/.config", b.out);
	/* several variants may build one commit (the thread's kernels differ in config only): say which */
	if (o->label)
		snprintf(title, sizeof(title), "build %.60s (%.12s %.40s)", o->label, r->sha, r->describe ? r->describe : "");
	else
		snprintf(title, sizeof(title), "build %.12s (%.40s)", r->sha, r->describe ? r->describe : "");
	b.st.t0_ns = kvb_mono_ns();
	b.st.deadline_ns = b.st.t0_ns + (uint64_t)s->timeout_s * 1000000000ull;
	*fail = NULL;
	if ((rc = kvb_kbuild_checkout(repo, b.src, r->sha, err)))
		goto out;
	if (kvb_mkdir_p(b.out, 0755)) {
		rc = kvb_error_set(err, KVB_EINPUT, "cannot create %s: %s", b.out, strerror(errno));
		goto out;
	}
	kvb_strv_pushf(&b.env, "KBUILD_BUILD_VERSION=%.12s", r->sha);
	if (ccache) {
		kvb_strv_pushf(&b.env, "CCACHE_DIR=%s/ccache", root);
		kvb_strv_pushf(&b.env, "CCACHE_BASEDIR=%s", b.src);
		/* depend mode: a miss costs no preprocessor run. Measured on kernel/time of the thread's
		 * tinyconfig kernel, cold cache (docs/thread.md#cold-time): compiles took 15.9 CPU-s
		 * without ccache, 17.1 in depend mode, 23.0 as ccache runs by default (it preprocesses
		 * every file to hash it, then compiles it); a rebuild still hits (direct mode) */
		kvb_strv_push(&b.env, "CCACHE_DEPEND=1");
	}
	kvb_strv_pushf(&b.env, "KVB_SRC=%s", b.src);
	kvb_strv_pushf(&b.env, "KVB_OUT=%s", b.out);
	if (s->command) {
		const char *argv[] = { s->command, NULL };
		log_cmd(log, argv);
		if ((rc = run_step(&b.st, argv, kvb_strv_argv(&b.env), b.src, &code, err)))
			goto out;
		if (code)
			*fail = kvb_xasprintf("%s failed (exit status %d)", s->command, code);
		goto out;
	}
	make_base(&b, cc, ccache);
	if ((rc = configure(&b, r, &code, fail, err)) || code)
		goto out;
	log_cmd(log, kvb_strv_argv(&b.base));
	if ((rc = run_step(&b.st, kvb_strv_argv(&b.base), kvb_strv_argv(&b.env), b.src, &code, err)))
		goto out;
	if (code)
		*fail = kvb_xasprintf("make failed (exit status %d)", code);
out:
	r->build_s = (double)(kvb_mono_ns() - b.st.t0_ns) / 1e9;
	join_logs(log, errlog, r, fail);
	r->log = kvb_xstrdup(log);
	kvb_strv_release(&b.env);
	kvb_strv_release(&b.base);
	free(b.src);
	free(b.out);
	free(log);
	free(errlog);
	free(b.stamp);
	free(b.dotconfig);
	free(root);
	return rc;
}
