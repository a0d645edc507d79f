/* Implements building one kernel revision: the source checkout, make (or a vendor command), the image cache. */
#include "kbuild/kbuild.h"
#include "kbuild/git.h"
#include "kbuild/variant.h"
#include "core/buf.h"
#include "core/log.h"
#include "core/sha256.h"
#include "core/spawn.h"
#include "flash/kimage.h"

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

const struct kvb_keydef kvb_build_keys[] = {
	{ "repo", KVB_T_STR, NULL, NULL, 0, "git repository of variants that name no repo (and of --series, bisect)" },
	{ "config", KVB_T_STRLIST, NULL, NULL, 0,
	  "make config targets (defconfig, tinyconfig) and/or fragment files (*.config), applied in order" },
	{ "make_args", KVB_T_STRLIST, NULL, NULL, 0, "arguments of every make call: ARCH=, CROSS_COMPILE=, LLVM=1" },
	{ "outputs", KVB_T_MAP, NULL, NULL, 0,
	  "{kernel, dtb, initrd, modules}: files the build produces, relative to the object directory" },
	{ "command", KVB_T_STR, NULL, NULL, 0,
	  "vendor build script run instead of make; gets KVB_SRC and KVB_OUT, writes the outputs under KVB_OUT" },
	{ "jobs", KVB_T_INT, "nproc", NULL, KVB_KEY_POSITIVE, "make -j" },
	{ "timeout_s", KVB_T_INT, "10800", NULL, KVB_KEY_POSITIVE, "limit of one build, s" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

static const struct kvb_keydef output_keys[] = {
	{ "kernel", KVB_T_STR, NULL, NULL, KVB_KEY_REQUIRED, "kernel image (arch/x86/boot/bzImage, arch/arm64/boot/Image.gz)" },
	{ "dtb", KVB_T_STR, NULL, NULL, 0, "device tree blob" },
	{ "initrd", KVB_T_STR, NULL, NULL, 0, "initial ramdisk" },
	{ "modules", KVB_T_STR, NULL, NULL, 0, "modules tarball" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

char *kvb_build_resolve(const char *base_dir, const char *p)
{
	char *abs, *joined;
	if (p[0] == '~' && p[1] == '/' && getenv("HOME"))
		joined = kvb_xasprintf("%s/%s", getenv("HOME"), p + 2);
	else if (p[0] == '/' || !base_dir)
		joined = kvb_xstrdup(p);
	else
		joined = kvb_xasprintf("%s/%s", base_dir, p);
	if (joined[0] == '/' || !(abs = realpath(joined, NULL)))
		return joined;
	free(joined);
	return abs;
}

int kvb_build_is_fragment(const char *item)
{
	size_t n = strlen(item);
	return strchr(item, '/') || (n > 7 && !strcmp(item + n - 7, ".config"));
}

static void push_strlist(struct kvb_strv *out, const cJSON *v)
{
	if (cJSON_IsString(v)) {
		kvb_strv_push(out, v->valuestring);
		return;
	}
	for (const cJSON *c = v ? v->child : NULL; c; c = c->next) {
		char *s = kvb_node_str(c);
		if (s)
			kvb_strv_push(out, s);
		free(s);
	}
}

int kvb_build_spec_load(struct kvb_build_spec *s, const cJSON *obj, const char *path, const char *base_dir,
			struct kvb_diag *d)
{
	size_t before = d->msgs.n;
	struct kvb_strv cfg = KVB_STRV_INIT;
	memset(s, 0, sizeof(*s));
	s->timeout_s = 10800;
	if (!obj)
		return KVB_OK;
	if (kvb_keys_check(obj, path, kvb_build_keys, d))
		return KVB_EINPUT;
	if (kvb_get_str(obj, "repo", NULL))
		s->repo = kvb_build_resolve(base_dir, kvb_get_str(obj, "repo", NULL));
	push_strlist(&cfg, cJSON_GetObjectItemCaseSensitive(obj, "config"));
	for (size_t i = 0; i < cfg.n; i++) {
		if (!kvb_build_is_fragment(cfg.v[i])) {
			kvb_strv_push(&s->config, cfg.v[i]);
			continue;
		}
		char *f = kvb_build_resolve(base_dir, cfg.v[i]);
		if (!kvb_is_file(f)) {
			char *p = kvb_xasprintf("%s.config[%zu]", path, i);
			kvb_diag_at(d, p, "no config fragment file '%s'", f);
			free(p);
		}
		kvb_strv_push(&s->config, f);
		free(f);
	}
	kvb_strv_release(&cfg);
	push_strlist(&s->make_args, cJSON_GetObjectItemCaseSensitive(obj, "make_args"));
	for (size_t i = 0; i < s->make_args.n; i++)
		if (!strchr(s->make_args.v[i], '=') || s->make_args.v[i][0] == '-') {
			char *p = kvb_xasprintf("%s.make_args[%zu]", path, i);
			kvb_diag_at(d, p, "'%s' is not a VAR=value make argument", s->make_args.v[i]);
			free(p);
		}
	if (kvb_get_str(obj, "command", NULL)) {
		s->command = kvb_build_resolve(base_dir, kvb_get_str(obj, "command", NULL));
		if (access(s->command, X_OK)) {
			char *p = kvb_xasprintf("%s.command", path);
			kvb_diag_at(d, p, "'%s' is not an executable file", s->command);
			free(p);
		}
		if (s->config.n) {
			char *p = kvb_xasprintf("%s.config", path);
			kvb_diag_at(d, p, "config and command exclude each other (a vendor command configures itself)");
			free(p);
		}
	}
	{
		const cJSON *outs = cJSON_GetObjectItemCaseSensitive(obj, "outputs");
		char *p = kvb_xasprintf("%s.outputs", path);
		if (!outs)
			kvb_diag_at(d, path, "missing outputs: {kernel: PATH} (e.g. arch/x86/boot/bzImage)");
		else if (!kvb_keys_check(outs, p, output_keys, d))
			for (int i = 0; i < KVB_BOUT_N; i++) {
				const char *o = kvb_get_str(outs, kvb_bout_names[i], NULL);
				if (o && (o[0] == '/' || strstr(o, ".."))) {
					char *q = kvb_path_key(p, kvb_bout_names[i]);
					kvb_diag_at(d, q, "'%s' must be relative to the object directory, without '..'", o);
					free(q);
				} else if (o) {
					s->outputs[i] = kvb_xstrdup(o);
				}
			}
		free(p);
	}
	s->jobs = (int)kvb_get_int(obj, "jobs", 0);
	s->timeout_s = (unsigned)kvb_get_int(obj, "timeout_s", 10800);
	return d->msgs.n > before ? KVB_EINPUT : KVB_OK;
}

void kvb_build_spec_release(struct kvb_build_spec *s)
{
	free(s->repo);
	kvb_strv_release(&s->config);
	kvb_strv_release(&s->make_args);
	free(s->command);
	for (int i = 0; i < KVB_BOUT_N; i++)
		free(s->outputs[i]);
	memset(s, 0, sizeof(*s));
}

void kvb_build_result_release(struct kvb_build_result *r)
{
	free(r->describe);
	free(r->subject);
	free(r->toolchain);
	free(r->dir);
	for (int i = 0; i < KVB_BOUT_N; i++)
		free(r->files[i]);
	free(r->log);
	free(r->error);
	free(r->config);
	kvb_strv_release(&r->patches);
	memset(r, 0, sizeof(*r));
}

char *kvb_build_cache_root(const char *override)
{
	const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
	if (override)
		return kvb_xstrdup(override);
	if (x && *x)
		return kvb_xasprintf("%s/kvbench", x);
	return kvb_xasprintf("%s/.cache/kvbench", h && *h ? h : "/tmp");
}

static int have_program(const char *name)
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

struct step {
	const char *title;          /* progress line prefix: "build 1a2b3c4d5e6f" */
	const char *log, *errlog;   /* stdout and stderr files (appended to) */
	uint64_t t0_ns, deadline_ns;
	const struct kvb_build_opts *o;
};

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
	int rc, status = 0, tty = isatty(2) && !st->o->quiet;
	uint64_t last_print = 0;
	so.argv = argv;
	so.env = env;
	so.cwd = cwd;
	so.stdout_path = tmp_out;
	so.stderr_path = tmp_err;
	if ((rc = kvb_spawn_bg(&so, &p, err)))
		goto out;
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
			if (tty)
				fputs("\r\033[K", stderr);
			rc = cancelled ? kvb_error_set(err, KVB_EINTR, "%s: interrupted", st->title) /* as a run */
				       : kvb_error_set(err, KVB_ETARGET, "%s: timed out after %llu s", st->title,
						       (unsigned long long)((now - st->t0_ns) / 1000000000ull));
			goto out;
		}
		if (!tty && !st->o->quiet && now - last_print > 60000000000ull && now - st->t0_ns > 30000000000ull) {
			/* not on a terminal (a log, CI): a line a minute says which build and how long so far */
			char *l = last_line(tmp_out);
			kvb_info("%s: %llu s  %s", st->title, (unsigned long long)((now - st->t0_ns) / 1000000000ull),
				 l ? l : argv[0]);
			free(l);
			last_print = now;
		}
		if (tty && now - last_print > 1000000000ull) {
			char *l = last_line(tmp_out);
			fprintf(stderr, "\r\033[K%s: %llu s  %s", st->title, (unsigned long long)((now - st->t0_ns) / 1000000000ull),
				l ? l : argv[0]);
			free(l);
			last_print = now;
		}
		kvb_sleep_ms(200);
	}
	if (tty)
		fputs("\r\033[K", stderr);
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

/* The symbol a fragment line sets ("CONFIG_X=..." or "# CONFIG_X is not set") into sym; 0 when none. */
static int fragment_symbol(const char *l, char sym[256])
{
	int off = 0;
	if (!strncmp(l, "CONFIG_", 7)) {
		size_t n = strcspn(l + 7, "=");
		if (!l[7 + n] || n >= 256)
			return 0;
		memcpy(sym, l + 7, n);
		sym[n] = '\0';
		return 1;
	}
	return sscanf(l, "# CONFIG_%255s is not set%n", sym, &off) == 1 && off;
}

/*
 * Every CONFIG_ line of the fragments must hold in the final .config (Kconfig drops what it
 * cannot set). A symbol a later fragment sets again is checked at its last value only: a
 * variant's fragment (`build: {config}` of a variant) overrides the agenda's, as
 * merge_config.sh merges it.
 */
static char *config_mismatches(const struct kvb_build_spec *s, const char *dotconfig)
{
	struct kvb_buf final = KVB_BUF_INIT, bad = KVB_BUF_INIT;
	struct kvb_strv later = KVB_STRV_INIT;  /* symbols the fragments after this one set */
	int nbad = 0;
	kvb_buf_read_file(&final, dotconfig);
	for (size_t i = s->config.n; i-- > 0;) {
		struct kvb_buf f = KVB_BUF_INIT;
		size_t nlater = later.n;
		if (!kvb_build_is_fragment(s->config.v[i]))
			continue;
		kvb_buf_read_file(&f, s->config.v[i]);
		for (char *save = NULL, *l = strtok_r(f.data, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			char want[512], sym[256];
			int off = 0, overridden = 0;
			if (fragment_symbol(l, sym)) {
				for (size_t j = 0; j < nlater && !overridden; j++)
					overridden = !strcmp(later.v[j], sym);
				if (overridden)
					continue;
				kvb_strv_push(&later, sym);
			}
			if (!strncmp(l, "CONFIG_", 7)) {
				snprintf(want, sizeof(want), "\n%s\n", l);
			} else if (sscanf(l, "# CONFIG_%255s is not set%n", sym, &off) == 1 && off) {
				/* "not set" holds when the symbol is absent or says so */
				char *has = kvb_xasprintf("\nCONFIG_%s=", sym);
				int set = final.data && strstr(final.data, has);
				free(has);
				if (set && nbad++ < 8)
					kvb_buf_addf(&bad, "%s%s", bad.len ? ", " : "", l);
				continue;
			} else {
				continue;
			}
			/* the first line of .config is a comment, so every entry is preceded by '\n' */
			if ((!final.data || !strstr(final.data, want)) && nbad++ < 8)
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

static void rm_rf(const char *dir)
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
static int checkout(const char *repo, const char *src, const char *sha, struct kvb_error *err)
{
	struct kvb_exec_result r;
	int rc;
	if (!kvb_is_dir(src)) {
		char *tmp = kvb_xasprintf("%s.tmp", src);
		const char *argv2[] = { "clone", "--quiet", "--shared", "--no-checkout", repo, tmp, NULL };
		rm_rf(tmp);
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

/* One build of a pair: its paths (owned), the steps' environment and make command line, its step runner. */
struct build {
	const struct kvb_build_spec *s;
	struct step st;
	char *src, *out, *stamp, *dotconfig;  /* PAIR/src, PAIR/out, out's config key and .config */
	struct kvb_strv env;                  /* KBUILD_BUILD_VERSION, ccache's, KVB_SRC, KVB_OUT */
	struct kvb_strv base;                 /* make -C SRC O=OUT -jN MAKE_ARGS [CC=ccache CC] */
};

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
	if ((bad = config_mismatches(s, b->dotconfig))) {
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

static int do_build(const struct kvb_build_spec *s, const char *repo, const char *cc, const char *pair,
		    const char *tmpdir, const struct kvb_build_opts *o, struct kvb_build_result *r, char **fail,
		    struct kvb_error *err)
{
	char *log = kvb_xasprintf("%s/build.log", tmpdir), *errlog = kvb_xasprintf("%s/build.stderr", tmpdir);
	char title[64];
	struct build b = { .s = s, .st = { .title = title, .log = log, .errlog = errlog, .o = o } };
	int rc, code = 0, ccache = have_program("ccache");
	char *root = kvb_build_cache_root(o->cache_root);

	b.src = kvb_xasprintf("%s/src", pair);
	b.out = kvb_xasprintf("%s/out", pair);
	b.stamp = kvb_xasprintf("%s/.kvb-config-key", b.out);
	b.dotconfig = kvb_xasprintf("%s/.config", b.out);
	snprintf(title, sizeof(title), "build %.12s (%.40s)", r->sha, r->describe ? r->describe : "");
	b.st.t0_ns = kvb_mono_ns();
	b.st.deadline_ns = b.st.t0_ns + (uint64_t)s->timeout_s * 1000000000ull;
	*fail = NULL;
	if ((rc = checkout(repo, b.src, r->sha, err)))
		goto out;
	if (kvb_mkdir_p(b.out, 0755)) {
		rc = kvb_error_set(err, KVB_EINPUT, "cannot create %s: %s", b.out, strerror(errno));
		goto out;
	}
	kvb_strv_pushf(&b.env, "KBUILD_BUILD_VERSION=%.12s", r->sha);
	if (ccache) {
		kvb_strv_pushf(&b.env, "CCACHE_DIR=%s/ccache", root);
		kvb_strv_pushf(&b.env, "CCACHE_BASEDIR=%s", b.src);
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
	if ((rc = lock_take(lockp, lockfd, err)) || (rc = checkout(repo, src, sha, err)))
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
	rm_rf(tmpdir);
	if (kvb_mkdir_p(tmpdir, 0755)) {
		rc = kvb_error_set(err, KVB_EINPUT, "cannot create %s: %s", tmpdir, strerror(errno));
		goto out;
	}
	kvb_info("build %.12s (%s) %s: building in %s", sha, r->describe, r->subject, pair);
	rc = do_build(spec, repo, cc, pair, tmpdir, o, r, &fail, err);
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
	kvb_info("build %.12s: done in %.0f s", sha, r->build_s);
out:
	if (tmpdir) {
		/* a log of a build that could not finish is still worth keeping */
		if (r->log && !strncmp(r->log, tmpdir, strlen(tmpdir)) && keep_failed_log(r, imgs)) {
			free(r->log);
			r->log = NULL;
		}
		rm_rf(tmpdir);
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
