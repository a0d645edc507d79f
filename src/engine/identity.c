/* Implements the post-boot identity check (release, version, cmdline). */
#include "engine/identity.h"
#include "core/escape.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

/* Runs argv and keeps its stdout, trailing newlines and spaces trimmed. *ran: the exit status when it ran. */
static int read_cmd(struct kvb_target *t, const char *const *argv, char **out, int *ran, struct kvb_error *err)
{
	struct kvb_exec_result r;
	int rc;
	kvb_exec_result_init(&r);
	rc = kvb_target_run_ok(t, argv, 30000, &r, err);
	if (ran)
		*ran = rc == KVB_OK || r.exit_code > 0 ? r.exit_code : -1;
	if (!rc) {
		while (r.out.len && (r.out.data[r.out.len - 1] == '\n' || r.out.data[r.out.len - 1] == ' '))
			r.out.data[--r.out.len] = '\0';
		*out = kvb_buf_detach(&r.out);
	}
	kvb_exec_result_release(&r);
	return rc;
}

/*
 * The board's /proc file proc under the platform's sysfs_root, trimmed, into *out: 1 when the
 * root is set and holds it (a simulated board's tree), else 0 and nothing read: the running
 * kernel answers (a fake tree that lays out only /sys keeps the board's own identity).
 */
static int read_rooted(struct kvb_target *t, const char *proc, char **out)
{
	const char *root = kvb_target_sysfs_root(t);
	char *full, *text = NULL;
	const char *test[] = { "test", "-r", NULL, NULL };
	struct kvb_exec_result r;
	struct kvb_error ignore;
	int have;
	if (!*root)
		return 0;
	full = kvb_xasprintf("%s%s", root, proc);
	test[2] = full;
	kvb_exec_result_init(&r);
	have = !kvb_target_exec(t, test, 30000, &r, &ignore) && r.exit_code == 0 &&
	       !kvb_target_read(t, full, &text, &ignore);
	kvb_exec_result_release(&r);
	free(full);
	if (!have) {
		free(text);
		return 0;
	}
	*out = text;
	return 1;
}

/*
 * `uname FLAG`, or, on a board without uname (exit 127: Android 4.4 and 5.x toolbox has none,
 * devlib PR #23), the /proc/sys/kernel file the kernel fills from the same utsname; that file
 * first when the platform's sysfs_root holds it.
 */
static int read_uname(struct kvb_target *t, const char *flag, const char *proc, char **out, struct kvb_error *err)
{
	const char *uname[] = { "uname", flag, NULL }, *cat[] = { "cat", proc, NULL };
	int ran = -1, rc;
	if (read_rooted(t, proc, out))
		return KVB_OK;
	rc = read_cmd(t, uname, out, &ran, err);
	if (rc && ran == 127)
		rc = read_cmd(t, cat, out, NULL, err);
	return rc;
}

/*
 * "flashed X but running Y" with both strings escaped (core/escape.h): a stray "\r" from
 * a pty or a trailing control byte would otherwise print two strings that look the same.
 */
static int mismatch(const char *fmt, const char *expected, const char *running, struct kvb_error *err)
{
	char *e = kvb_escaped(expected), *r = running ? kvb_escaped(running) : kvb_xstrdup("(unknown)");
	int rc = kvb_error_set(err, KVB_ETARGET, fmt, e, r);
	free(e);
	free(r);
	return rc;
}

int kvb_identity_compare(const struct kvb_identity *id, const char *exp_release, const char *exp_version,
			 const char *cmdline, struct kvb_error *err)
{
	if (exp_release && (!id->release || strcmp(exp_release, id->release)))
		return mismatch("flashed %s but running %s", exp_release, id->release, err);
	if (exp_version && (!id->version || strcmp(exp_version, id->version)))
		return mismatch("flashed '%s' but running '%s'", exp_version, id->version, err);
	if (cmdline && *cmdline) {
		char *copy = kvb_xstrdup(cmdline), *save = NULL;
		int rc = KVB_OK;
		for (char *w = strtok_r(copy, " \t", &save); w && !rc; w = strtok_r(NULL, " \t", &save)) {
			/* whole-word match in /proc/cmdline */
			const char *p = id->cmdline ? id->cmdline : "";
			size_t n = strlen(w);
			int found = 0;
			while ((p = strstr(p, w))) {
				int start_ok = p == id->cmdline || p[-1] == ' ';
				int end_ok = p[n] == '\0' || p[n] == ' ' || p[n] == '\n';
				if (start_ok && end_ok) {
					found = 1;
					break;
				}
				p += n;
			}
			if (!found)
				rc = mismatch("cmdline option '%s' missing from the running kernel's /proc/cmdline: %s", w,
					      id->cmdline ? id->cmdline : "", err);
		}
		free(copy);
		return rc;
	}
	return KVB_OK;
}

int kvb_identity_check(struct kvb_target *t, const struct kvb_variant *v, struct kvb_identity *id,
		       struct kvb_error *err)
{
	static const char *const cmd[] = { "cat", "/proc/cmdline", NULL };
	int rc;
	memset(id, 0, sizeof(*id));
	if ((rc = read_uname(t, "-r", "/proc/sys/kernel/osrelease", &id->release, err)) ||
	    (rc = read_uname(t, "-v", "/proc/sys/kernel/version", &id->version, err)) ||
	    (!read_rooted(t, "/proc/cmdline", &id->cmdline) && (rc = read_cmd(t, cmd, &id->cmdline, NULL, err))))
		return kvb_error_prefix(err, "reading the running kernel's identity");
	return kvb_identity_compare(id, v->expected_release, v->expected_version, v->cmdline, err);
}

void kvb_identity_release(struct kvb_identity *id)
{
	free(id->release);
	free(id->version);
	free(id->cmdline);
	memset(id, 0, sizeof(*id));
}
