/*
 * Implements the adb target: Debian's `adb` client run with argv arrays, the
 * remote command string built by kvb_shell_join(), and an end marker that
 * tells a finished command from a dropped connection.
 *
 * Why the marker: `adb shell` joins its arguments with spaces and hands the
 * string to the device shell unchanged (one pre-quoted argument therefore
 * arrives byte for byte), and with shell protocol v2 it exits with the remote
 * status. But when the connection drops mid-command, adb 29 (Debian 1:29.0.6)
 * exits 0 with whatever output had arrived, and adb's own failures ("error:
 * device offline", "error: closed") exit 1 or 255, codes a command may also
 * return. So the command runs as
 *     (ARGV); kvb_rc=$?; echo >&2; echo MARK$kvb_rc >&2
 * and the marker line proves the command ended and carries its exit status
 * (also on devices without shell v2, where adb reports no status at all). It
 * is removed from the output, so stderr comes back byte-exact. The subshell
 * keeps special built-ins (exit, exec) from skipping the marker.
 */
#include "target/adb_internal.h"

#include <errno.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ADB_MARK "kvb-adb-exit:"
#define ADB_COPY_MS 1800000ull     /* push/pull: 30 min covers GB images over USB 2 */
#define ADB_CMD_MAX 131072u        /* Linux MAX_ARG_STRLEN: the longest single argv string adb can get */

static const struct kvb_keydef adb_conn_keys[] = {
	{ "serial", KVB_T_STR, NULL, NULL, KVB_KEY_REQUIRED, "USB serial or host:port of the device" },
	{ "adb", KVB_T_STR, "adb", NULL, 0, "adb client binary" },
	{ "adb_server_port", KVB_T_INT, NULL, NULL, KVB_KEY_POSITIVE, "port of the adb server to use (adb -P)" },
	{ "connect", KVB_T_BOOL, NULL, NULL, 0, "run `adb connect SERIAL` first (default: true when serial has ':')" },
	{ "root", KVB_T_SCALAR, "none", "adb|su|none|true|false", 0,
	  "adb: `adb root` when opening (also: true); su: every command through the device's su (rooted production "
	  "builds; the working form is found at connect); none (also: false)" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

/* Runs `adb [-P PORT] [-s SERIAL] ARGS...`; r is reset first. Returns kvb_spawn_run's code. */
int kvb_adb_run(struct kvb_target *t, int with_serial, const char *const *args, uint64_t timeout_ms,
	    struct kvb_exec_result *r, struct kvb_error *err)
{
	struct adb_priv *p = t->priv;
	struct kvb_strv v = KVB_STRV_INIT;
	struct kvb_spawn_opts so = { .timeout_ms = timeout_ms, .cancel = t->cancel };
	int rc;

	kvb_strv_push(&v, p->adb);
	if (p->server_port) {
		kvb_strv_push(&v, "-P");
		kvb_strv_push(&v, p->server_port);
	}
	if (with_serial) {
		kvb_strv_push(&v, "-s");
		kvb_strv_push(&v, p->serial);
	}
	for (size_t i = 0; args[i]; i++)
		kvb_strv_push(&v, args[i]);
	so.argv = kvb_strv_argv(&v);
	kvb_buf_reset(&r->out);
	kvb_buf_reset(&r->err);
	r->exit_code = r->term_signal = r->timed_out = 0;
	rc = kvb_spawn_run(&so, r, err);
	kvb_strv_release(&v);
	/* An adb that had to start the server says so on stderr first; that is not the command's. */
	while (!strncmp(r->err.data, "* daemon ", 9)) {
		char *nl = memchr(r->err.data, '\n', r->err.len);
		size_t cut = nl ? (size_t)(nl - r->err.data) + 1 : r->err.len;
		memmove(r->err.data, r->err.data + cut, r->err.len - cut + 1);
		r->err.len -= cut;
	}
	return rc;
}

/* First non-empty line of stderr, else of stdout, else how adb ended; into buf. */
const char *kvb_adb_why(const struct kvb_exec_result *r, char *buf, size_t n)
{
	const struct kvb_buf *bs[2] = { &r->err, &r->out };
	for (int i = 0; i < 2; i++) {
		const char *s = bs[i]->data;
		while (*s == '\n' || *s == '\r' || *s == ' ')
			s++;
		if (*s) {
			size_t len = strcspn(s, "\r\n");
			snprintf(buf, n, "%.*s", (int)(len > 300 ? 300 : len), s);
			return buf;
		}
	}
	char how[64];
	snprintf(buf, n, "adb ended with %s and no output", kvb_exec_describe(r, how, sizeof(how)));
	return buf;
}

/* Last non-empty line of b into buf (adb prints its own errors last); 0 when b is blank. */
static int last_line(const struct kvb_buf *b, char *buf, size_t n)
{
	size_t end = b->len, start;
	while (end && strchr(" \t\r\n", b->data[end - 1]))
		end--;
	if (!end)
		return 0;
	start = end;
	while (start && b->data[start - 1] != '\n')
		start--;
	snprintf(buf, n, "%.*s", (int)(end - start > 300 ? 300 : end - start), b->data + start);
	return 1;
}

void kvb_adb_trim(struct kvb_buf *b)
{
	size_t start = 0;
	while (b->len && strchr(" \t\r\n", b->data[b->len - 1]))
		b->data[--b->len] = '\0';
	while (start < b->len && strchr(" \t\r\n", b->data[start]))
		start++;
	memmove(b->data, b->data + start, b->len - start + 1);
	b->len -= start;
}

/*
 * Finds the end marker "\nMARK<digits>\n" at the very end of b, removes it and
 * returns 1 with the status in *code; 0 when absent. A pty-translated "\r\n"
 * (legacy shell on old devices) is accepted and removed too.
 */
static int take_marker(struct kvb_buf *b, int *code)
{
	const char *pat = "\n" ADB_MARK;
	size_t plen = strlen(pat), at = (size_t)-1;
	const char *p = b->data, *end = b->data + b->len, *q;
	int v = 0, digits = 0, crlf = 0;

	while ((q = memmem(p, (size_t)(end - p), pat, plen))) {
		at = (size_t)(q - b->data);
		p = q + 1;
	}
	if (at == (size_t)-1)
		return 0;
	for (q = b->data + at + plen; q < end && *q >= '0' && *q <= '9' && digits < 4; q++, digits++)
		v = v * 10 + (*q - '0');
	if (!digits)
		return 0;
	if (q < end && *q == '\r') {
		q++;
		crlf = 1;
	}
	if (q + 1 != end || *q != '\n')
		return 0;
	if (crlf && at && b->data[at - 1] == '\r')
		at--;
	b->len = at;
	b->data[at] = '\0';
	*code = v;
	return 1;
}

/* `adb connect SERIAL`; adb 29 exits 0 even when it failed, so the answer text decides. */
int kvb_adb_connect_once(struct kvb_target *t, struct kvb_error *err)
{
	struct adb_priv *p = t->priv;
	const char *args[] = { "connect", p->serial, NULL };
	struct kvb_exec_result r;
	char why[400];
	int rc;
	kvb_exec_result_init(&r);
	rc = kvb_adb_run(t, 0, args, ADB_SHORT_MS, &r, err);
	if (!rc && (r.exit_code != 0 || !strstr(r.out.data, "connected to")))
		rc = kvb_error_set(err, KVB_ETARGET, "%s", kvb_adb_why(&r, why, sizeof(why)));
	if (rc)
		kvb_error_prefix(err, "cannot connect to '%s'", p->serial);
	kvb_exec_result_release(&r);
	return rc;
}

/* `adb -s SERIAL get-state` into state ("device", "offline", ... or adb's error line). */
void kvb_adb_state(struct kvb_target *t, char *state, size_t n)
{
	const char *args[] = { "get-state", NULL };
	struct kvb_exec_result r;
	struct kvb_error e;
	kvb_exec_result_init(&r);
	if (kvb_adb_run(t, 1, args, ADB_SHORT_MS, &r, &e)) {
		snprintf(state, n, "%.*s", (int)(n > 0 ? n - 1 : 0), e.msg);
	} else if (r.exit_code == 0) {
		kvb_adb_trim(&r.out);
		snprintf(state, n, "%s", r.out.data);
	} else {
		kvb_adb_why(&r, state, n);
	}
	kvb_exec_result_release(&r);
}

void kvb_adb_disconnect(struct kvb_target *t)
{
	struct adb_priv *p = t->priv;
	const char *args[] = { "disconnect", p->serial, NULL };
	struct kvb_exec_result r;
	struct kvb_error e;
	kvb_exec_result_init(&r);
	kvb_adb_run(t, 0, args, ADB_SHORT_MS, &r, &e);
	kvb_exec_result_release(&r);
}

static void adb_close(struct kvb_target *t)
{
	struct adb_priv *p = t->priv;
	if (!p)
		return;
	free(p->serial);
	free(p->adb);
	free(p->server_port);
	free(p);
	t->priv = NULL;
}

static int adb_find_su(struct kvb_target *t, struct kvb_error *err);
static void adb_probe_shell(struct kvb_target *t);

static int adb_open(struct kvb_target *t, struct kvb_error *err)
{
	const cJSON *c = t->plat ? t->plat->conn : NULL;
	const char *serial = kvb_get_str(c, "serial", NULL);
	struct adb_priv *p;
	const char *start[] = { "start-server", NULL };
	struct kvb_exec_result r;
	char why[400];
	int rc;

	if (!serial || !*serial)
		return kvb_error_set(err, KVB_EINPUT, "adb target: connection.serial is required");
	p = kvb_xcalloc(1, sizeof(*p));
	t->priv = p;
	p->serial = kvb_xstrdup(serial);
	p->adb = kvb_xstrdup(kvb_get_str(c, "adb", "adb"));
	if (kvb_get_int(c, "adb_server_port", 0) > 0)
		p->server_port = kvb_xasprintf("%lld", kvb_get_int(c, "adb_server_port", 0));
	p->connect = kvb_get_bool(c, "connect", strchr(serial, ':') != NULL);
	p->shell_v2 = -1;

	/* Start the server now so its "* daemon started" lines never mix with a command's stderr. */
	kvb_exec_result_init(&r);
	rc = kvb_adb_run(t, 0, start, ADB_SHORT_MS, &r, err);
	if (!rc && r.exit_code != 0)
		rc = kvb_error_set(err, KVB_ETARGET, "%s", kvb_adb_why(&r, why, sizeof(why)));
	kvb_exec_result_release(&r);
	if (rc) {
		kvb_error_prefix(err, "cannot start the adb server%s%s", p->server_port ? " on port " : "",
				 p->server_port ? p->server_port : "");
		goto out;
	}
	if (p->connect && (rc = kvb_adb_connect_once(t, err)))
		goto out;
	/* the shell protocol now, while nothing waits on a deadline (asked again at the first exec if unanswered) */
	adb_probe_shell(t);
	{
		const cJSON *rn = cJSON_GetObjectItemCaseSensitive(c, "root");
		char *root = rn ? kvb_node_str(rn) : kvb_xstrdup("none");
		if (!strcmp(root, "adb") || !strcmp(root, "true"))
			rc = kvb_adb_root(t, 60000, err);
		else if (!strcmp(root, "su"))
			rc = adb_find_su(t, err);
		else if (strcmp(root, "none") && strcmp(root, "false"))
			rc = kvb_error_set(err, KVB_EINPUT, "%s: connection.root '%s': expected adb, su or none",
					   t->plat && t->plat->file ? t->plat->file : "platform", root);
		free(root);
	}
out:
	if (rc)
		adb_close(t);
	return rc;
}

/*
 * Asks the device's features once (`adb features`); an unanswered question (adb
 * failed: no device, offline) is asked again next time. An answer with no
 * feature at all is an answer: adb prints the features host and device share,
 * one a line, and nothing for an adbd from before Android N, whose banner has
 * no features (AOSP adb client/commandline.cpp "features"; adbd_sim
 * --no-shell-v2 plays one). Such a device has no shell v2.
 */
static void adb_probe_shell(struct kvb_target *t)
{
	struct adb_priv *p = t->priv;
	const char *args[] = { "features", NULL };
	struct kvb_exec_result r;
	struct kvb_error ignore;
	kvb_exec_result_init(&r);
	if (!kvb_adb_run(t, 1, args, ADB_SHORT_MS, &r, &ignore) && r.exit_code == 0 && !r.term_signal && !r.timed_out) {
		p->shell_v2 = kvb_adb_features_have_shell_v2(r.out.data);
		if (!p->shell_v2)
			kvb_debug("adb: '%s' has no shell_v2: legacy shell (CRLF, merged stderr, no exit status)", p->serial);
	}
	kvb_exec_result_release(&r);
}

static int adb_exec_as(struct kvb_target *t, const char *const *argv, uint64_t timeout_ms, struct kvb_exec_result *r,
		       struct kvb_error *err);

static int adb_exec(struct kvb_target *t, const char *const *argv, uint64_t timeout_ms, struct kvb_exec_result *r,
		    struct kvb_error *err)
{
	struct adb_priv *p = t->priv;
	struct kvb_buf joined = KVB_BUF_INIT;
	int rc;
	if (!p->su_form || !argv || !argv[0])
		return adb_exec_as(t, argv, timeout_ms, r, err);
	/* connection.root su: the whole command line is one argument of su (one more level of quoting) */
	kvb_shell_join(&joined, argv);
	{
		const char *aosp[] = { "su", "0", "sh", "-c", joined.data, NULL };
		const char *dash_c[] = { "su", "-c", joined.data, NULL };
		rc = adb_exec_as(t, p->su_form == 1 ? aosp : dash_c, timeout_ms, r, err);
	}
	kvb_buf_release(&joined);
	return rc;
}

/*
 * connection.root su: finds the su form that gives uid 0. AOSP's su (userdebug
 * builds, system/extras/su) takes `su UID COMMAND...` and has no -c; SuperSU and
 * Magisk take `su -c 'COMMAND'`.
 */
static int adb_find_su(struct kvb_target *t, struct kvb_error *err)
{
	struct adb_priv *p = t->priv;
	static const char *const aosp[] = { "su", "0", "id", "-u", NULL };
	static const char *const dash_c[] = { "su", "-c", "id -u", NULL };
	const char *const *forms[] = { aosp, dash_c };
	struct kvb_buf seen = KVB_BUF_INIT;
	struct kvb_exec_result r;
	int rc = KVB_OK;
	kvb_exec_result_init(&r);
	for (int i = 0; i < 2 && !p->su_form; i++) {
		struct kvb_error e;
		if ((rc = adb_exec_as(t, forms[i], 30000, &r, &e))) {
			*err = e;
			break;
		}
		while (r.out.len && strchr(" \r\n", r.out.data[r.out.len - 1]))
			r.out.data[--r.out.len] = '\0';
		if (r.exit_code == 0 && !strcmp(r.out.data, "0"))
			p->su_form = i + 1;
		else
			kvb_buf_addf(&seen, "%s`%s` exit %d: %.120s%.120s", seen.len ? "; " : "",
				     i ? "su -c 'id -u'" : "su 0 id -u", r.exit_code, r.out.data, r.err.data);
	}
	if (!rc && !p->su_form)
		rc = kvb_error_set(err, KVB_ETARGET,
				   "connection.root su: no su form gives uid 0 on '%s' (tried `su 0 id -u` as AOSP su, "
				   "`su -c 'id -u'` as SuperSU/Magisk): %s",
				   p->serial, seen.data);
	else if (!rc)
		kvb_debug("adb: '%s': root through `%s`", p->serial, p->su_form == 1 ? "su 0 sh -c" : "su -c");
	kvb_exec_result_release(&r);
	kvb_buf_release(&seen);
	return rc;
}

static int adb_exec_as(struct kvb_target *t, const char *const *argv, uint64_t timeout_ms, struct kvb_exec_result *r,
		       struct kvb_error *err)
{
	struct adb_priv *p = t->priv;
	struct kvb_buf cmd = KVB_BUF_INIT;
	char why[400];
	int rc, code, legacy;

	if (!argv || !argv[0])
		return kvb_error_set(err, KVB_ETARGET, "empty command for '%s'", p->serial);
	if (p->shell_v2 < 0)
		adb_probe_shell(t);
	legacy = p->shell_v2 == 0;
	if (legacy) {
		struct kvb_buf joined = KVB_BUF_INIT;
		kvb_shell_join(&joined, argv);
		kvb_adb_legacy_wrap(&cmd, joined.data, t->plat && t->plat->workdir ? t->plat->workdir : "/data/local/tmp",
				    ADB_MARK);
		kvb_buf_release(&joined);
	} else {
		kvb_buf_addc(&cmd, '(');
		kvb_shell_join(&cmd, argv);
		/* echo, not printf: every Android shell has it built in (printf came with toybox in 6.0). */
		kvb_buf_adds(&cmd, "); kvb_rc=$?; echo >&2; echo " ADB_MARK "$kvb_rc >&2");
	}
	if (cmd.len >= ADB_CMD_MAX) {
		rc = kvb_error_set(err, KVB_ETARGET,
				   "'%s' on '%s': command too long for adb shell (%zu bytes quoted, limit %u): push a script",
				   argv[0], p->serial, cmd.len, ADB_CMD_MAX);
		goto out;
	}
	{
		const char *args[] = { "shell", "--", cmd.data, NULL };
		rc = kvb_adb_run(t, 1, args, timeout_ms, r, err);
	}
	if (rc) {
		kvb_error_prefix(err, "'%s' on '%s'", argv[0], p->serial);
		goto out;
	}
	if (legacy) {
		/* one pty stream: undo its CRLF, then the marker and the stderr section are in stdout */
		kvb_adb_crlf_to_lf(&r->out);
		kvb_adb_crlf_to_lf(&r->err);
		if (take_marker(&r->out, &code)) {
			kvb_adb_legacy_split(r);
			r->exit_code = code;
			r->term_signal = 0;
			goto out;
		}
	} else if (take_marker(&r->err, &code) || take_marker(&r->out, &code)) {
		r->exit_code = code;
		r->term_signal = 0;
		goto out;
	}
	if (last_line(&r->err, why, sizeof(why)) && !strncmp(why, "error: ", 7))
		rc = kvb_error_set(err, KVB_ETARGET, "'%s' on '%s': adb shell failed: %s", argv[0], p->serial, why + 7);
	else
		rc = kvb_error_set(err, KVB_ETARGET,
				   "'%s' on '%s' did not finish: connection lost (adb ended with %s before the command did)",
				   argv[0], p->serial, kvb_exec_describe(r, why, sizeof(why)));
out:
	kvb_buf_release(&cmd);
	return rc;
}

/* push or pull with adb's own argument order. */
static int adb_copy(struct kvb_target *t, const char *verb, const char *from, const char *to, struct kvb_error *err)
{
	struct adb_priv *p = t->priv;
	const char *args[] = { verb, from, to, NULL };
	struct kvb_exec_result r;
	char why[400];
	int rc;
	kvb_exec_result_init(&r);
	rc = kvb_adb_run(t, 1, args, ADB_COPY_MS, &r, err);
	if (!rc && r.exit_code != 0)
		rc = kvb_error_set(err, KVB_ETARGET, "%s", kvb_adb_why(&r, why, sizeof(why)));
	if (rc)
		kvb_error_prefix(err, "cannot %s '%s' to '%s' on '%s'", verb, from, to, p->serial);
	kvb_exec_result_release(&r);
	return rc;
}

/*
 * adb copies a directory *into* an existing destination directory
 * (dst/NAME); "SRC/." copies its contents instead (adb 29), which gives the
 * target contract's "dst becomes a copy of src" whether dst exists or not.
 */
static int adb_push(struct kvb_target *t, const char *local, const char *remote, struct kvb_error *err)
{
	const char *mkdir_argv[] = { "mkdir", "-p", remote, NULL };
	struct kvb_exec_result r;
	char *dot;
	int rc;
	if (!kvb_is_dir(local))
		return adb_copy(t, "push", local, remote, err);
	kvb_exec_result_init(&r);
	rc = kvb_target_run_ok(t, mkdir_argv, ADB_SHORT_MS, &r, err);
	kvb_exec_result_release(&r);
	if (rc)
		return kvb_error_prefix(err, "cannot push '%s' to '%s'", local, remote);
	dot = kvb_xasprintf("%s/.", local);
	rc = adb_copy(t, "push", dot, remote, err);
	free(dot);
	return rc;
}

static int adb_pull(struct kvb_target *t, const char *remote, const char *local, struct kvb_error *err)
{
	const char *test_argv[] = { "test", "-d", remote, NULL };
	struct kvb_exec_result r;
	char *dot;
	int rc, remote_dir;
	if (!kvb_is_dir(local))
		return adb_copy(t, "pull", remote, local, err);
	kvb_exec_result_init(&r);
	rc = kvb_target_exec(t, test_argv, ADB_SHORT_MS, &r, err);
	remote_dir = !rc && r.exit_code == 0;
	kvb_exec_result_release(&r);
	if (rc)
		return kvb_error_prefix(err, "cannot pull '%s' to '%s'", remote, local);
	if (!remote_dir)
		return adb_copy(t, "pull", remote, local, err);
	dot = kvb_xasprintf("%s/.", remote);
	rc = adb_copy(t, "pull", dot, local, err);
	free(dot);
	return rc;
}

/* Checks each complete line in *line against re; keeps a trailing partial line. */
static int match_lines(struct kvb_buf *line, const regex_t *re, int final)
{
	char *start = line->data, *nl;
	int hit = 0;
	while (!hit && (nl = memchr(start, '\n', line->len - (size_t)(start - line->data)))) {
		*nl = '\0';
		if (nl > start && nl[-1] == '\r')
			nl[-1] = '\0';
		hit = !regexec(re, start, 0, NULL, 0);
		start = nl + 1;
	}
	if (!hit && final && start < line->data + line->len)
		hit = !regexec(re, start, 0, NULL, 0);
	memmove(line->data, start, line->len - (size_t)(start - line->data) + 1);
	line->len -= (size_t)(start - line->data);
	return hit;
}

int kvb_adb_logcat_until(struct kvb_target *t, const char *out_path, const char *pattern, uint64_t timeout_ms,
			 int *matched, struct kvb_error *err)
{
	struct adb_priv *p = t->priv;
	struct kvb_strv v = KVB_STRV_INIT;
	struct kvb_spawn_opts so = { 0 };
	struct kvb_bgproc bg = { .pid = 0, .out_fd = -1 };
	struct kvb_buf line = KVB_BUF_INIT;
	regex_t re;
	FILE *f = NULL;
	uint64_t deadline = kvb_mono_ns() + timeout_ms * 1000000ull;
	int rc = KVB_OK;

	*matched = 0;
	if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB))
		return kvb_error_set(err, KVB_EINPUT, "bad logcat pattern '%s' (a POSIX extended regex)", pattern);
	f = fopen(out_path, "w");
	if (!f) {
		rc = kvb_error_set(err, KVB_ETARGET, "cannot write '%s': %s", out_path, strerror(errno));
		goto out;
	}
	kvb_strv_push(&v, p->adb);
	if (p->server_port) {
		kvb_strv_push(&v, "-P");
		kvb_strv_push(&v, p->server_port);
	}
	kvb_strv_push(&v, "-s");
	kvb_strv_push(&v, p->serial);
	kvb_strv_push(&v, "logcat");
	so.argv = kvb_strv_argv(&v);
	if ((rc = kvb_spawn_bg(&so, &bg, err)))
		goto out;
	while (!*matched) {
		uint64_t now = kvb_mono_ns();
		struct pollfd pfd = { .fd = bg.out_fd, .events = POLLIN };
		char buf[65536];
		ssize_t n;
		if (now >= deadline)
			break;
		if (t->cancel && *t->cancel) {
			rc = kvb_error_set(err, KVB_ETARGET, "logcat on '%s' cancelled", p->serial);
			break;
		}
		n = (deadline - now) / 1000000ull;
		if (poll(&pfd, 1, n > 200 ? 200 : (int)n + 1) <= 0)
			continue;
		n = read(bg.out_fd, buf, sizeof(buf));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n > 0) {
			fwrite(buf, 1, (size_t)n, f);
			kvb_buf_add(&line, buf, (size_t)n);
			*matched = match_lines(&line, &re, 0);
			continue;
		}
		*matched = match_lines(&line, &re, 1);
		if (!*matched)
			rc = kvb_error_set(err, KVB_ETARGET, "adb logcat on '%s' ended before a line matched '%s'",
					   p->serial, pattern);
		break;
	}
out:
	if (bg.pid > 0)
		kvb_spawn_stop(&bg, SIGTERM, 2000);
	if (f && fclose(f) && !rc)
		rc = kvb_error_set(err, KVB_ETARGET, "cannot write '%s': %s", out_path, strerror(errno));
	regfree(&re);
	kvb_buf_release(&line);
	kvb_strv_release(&v);
	return rc;
}

const struct kvb_target_ops kvb_target_adb = {
	.name = "adb",
	.summary = "Android device through Debian's adb client (USB serial or host:port)",
	.caps = KVB_TARGET_ANDROID,
	.conn_keys = adb_conn_keys,
	.open = adb_open,
	.exec = adb_exec,
	.push = adb_push,
	.pull = adb_pull,
	.reboot = kvb_adb_reboot,
	.wait_ready = kvb_adb_wait_ready,
	.close = adb_close,
};
