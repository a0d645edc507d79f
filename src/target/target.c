/* Implements the target registry and the helpers every backend shares. */
#include "target/target.h"
#include "config/platform.h"
#include "core/tail.h"

#include <stdlib.h>
#include <string.h>

extern const struct kvb_target_ops kvb_target_local;
extern const struct kvb_target_ops kvb_target_ssh;
extern const struct kvb_target_ops kvb_target_adb;
extern const struct kvb_target_ops kvb_target_qemu;
extern const struct kvb_target_ops kvb_target_lava;

const struct kvb_target_ops *const kvb_targets[] = {
	&kvb_target_local,
	&kvb_target_ssh,
	&kvb_target_adb,
	&kvb_target_qemu,
	&kvb_target_lava,
	NULL,
};

const char *kvb_target_caps_describe(unsigned caps)
{
	if (caps == (KVB_TARGET_OWNS_BOARD | KVB_TARGET_ANDROID))
		return "owns the board and is Android";
	if (caps == KVB_TARGET_OWNS_BOARD)
		return "owns the board (kvbench starts it)";
	if (caps == KVB_TARGET_ANDROID)
		return "is Android";
	return caps ? "has other capabilities" : "is any";
}

const struct kvb_target_ops *kvb_target_find(const char *name)
{
	for (size_t i = 0; kvb_targets[i]; i++)
		if (!strcmp(kvb_targets[i]->name, name))
			return kvb_targets[i];
	return NULL;
}

int kvb_target_open(struct kvb_target *t, const struct kvb_platform *plat, struct kvb_error *err)
{
	const struct kvb_target_ops *ops = kvb_target_find(plat->conn_type);
	int offline = t->offline; /* the settings a caller makes before open */
	unsigned wants = t->wants;
	memset(t, 0, sizeof(*t));
	t->offline = offline;
	t->wants = wants;
	if (!ops)
		return kvb_error_set(err, KVB_EINPUT, "%s: unknown connection type '%s'", plat->file, plat->conn_type);
	t->ops = ops;
	t->plat = plat;
	return ops->open(t, err);
}

int kvb_target_exec(struct kvb_target *t, const char *const *argv, uint64_t timeout_ms, struct kvb_exec_result *r,
		    struct kvb_error *err)
{
	kvb_buf_reset(&r->out);
	kvb_buf_reset(&r->err);
	r->exit_code = 0;
	r->term_signal = 0;
	r->timed_out = 0;
	return t->ops->exec(t, argv, timeout_ms, r, err);
}

int kvb_target_insn_counter(struct kvb_target *t, const char *dump_path, struct kvb_insn_count *c,
			    struct kvb_error *err)
{
	memset(c, 0, sizeof(*c));
	if (!t->ops || !t->ops->insn_counter)
		return kvb_error_set(err, KVB_ETARGET, "the board counts no instructions (a %s target has no counter)",
				     t->ops ? t->ops->name : "closed");
	return t->ops->insn_counter(t, dump_path, c, err);
}

int kvb_target_run_ok(struct kvb_target *t, const char *const *argv, uint64_t timeout_ms, struct kvb_exec_result *r,
		      struct kvb_error *err)
{
	int rc = kvb_target_exec(t, argv, timeout_ms, r, err);
	char how[64];
	if (rc)
		return rc;
	if (r->exit_code != 0) {
		char *e = kvb_text_tail(r->err.len ? r->err.data : r->out.data, 3, 400); /* the reason comes last */
		rc = kvb_error_set(err, KVB_ETARGET, "'%s' failed (%s): %s", argv[0], kvb_exec_describe(r, how, sizeof(how)), e);
		free(e);
		return rc;
	}
	return KVB_OK;
}

int kvb_target_push(struct kvb_target *t, const char *local, const char *remote, struct kvb_error *err)
{
	return t->ops->push(t, local, remote, err);
}

int kvb_target_pull(struct kvb_target *t, const char *remote, const char *local, struct kvb_error *err)
{
	return t->ops->pull(t, remote, local, err);
}

int kvb_target_reboot(struct kvb_target *t, const char *mode, struct kvb_error *err)
{
	if (!t->ops->reboot)
		return kvb_error_set(err, KVB_ETARGET, "target '%s' cannot reboot", t->ops->name);
	return t->ops->reboot(t, mode, err);
}

int kvb_target_wait_ready(struct kvb_target *t, uint64_t timeout_ms, struct kvb_error *err)
{
	if (!t->ops->wait_ready)
		return KVB_OK;
	return t->ops->wait_ready(t, timeout_ms, err);
}

void kvb_target_close(struct kvb_target *t)
{
	if (t && t->ops && t->ops->close)
		t->ops->close(t);
	if (t)
		t->priv = NULL;
}

int kvb_target_read_rooted(struct kvb_target *t, const char *root, const char *path, char **out,
			   struct kvb_error *err)
{
	char *full = kvb_xasprintf("%s%s", root ? root : "", path);
	const char *argv[] = { "cat", full, NULL };
	struct kvb_exec_result r;
	int rc;
	kvb_exec_result_init(&r);
	rc = kvb_target_run_ok(t, argv, 30000, &r, err);
	*out = rc ? NULL : kvb_buf_detach(&r.out);
	kvb_exec_result_release(&r);
	free(full);
	return rc;
}

const char *kvb_target_sysfs_root(const struct kvb_target *t)
{
	return t->plat && t->plat->sysfs_root ? t->plat->sysfs_root : "";
}

int kvb_target_read(struct kvb_target *t, const char *path, char **out, struct kvb_error *err)
{
	const char *argv[] = { "cat", path, NULL };
	struct kvb_exec_result r;
	int rc;
	kvb_exec_result_init(&r);
	rc = kvb_target_run_ok(t, argv, 30000, &r, err);
	if (!rc) {
		while (r.out.len && (r.out.data[r.out.len - 1] == '\n' || r.out.data[r.out.len - 1] == '\r'))
			r.out.data[--r.out.len] = '\0';
		*out = kvb_buf_detach(&r.out);
	}
	kvb_exec_result_release(&r);
	return rc;
}

int kvb_target_write(struct kvb_target *t, const char *path, const char *value, struct kvb_error *err)
{
	/*
	 * Through tee where the board has it and printf: tee says what the kernel said when it refuses
	 * the value ("tee: PATH: Invalid argument", "... Device or resource busy"), where dash's printf
	 * builtin says "I/O error" whatever the errno. Else printf where the shell has it; Android
	 * 4.4/5.x mksh has no printf builtin and its toolbox no printf program, but mksh's own
	 * `print -r` writes the value as it is (echo would interpret its backslashes); echo on a
	 * shell with neither. One write(2) either way (a value is short: tee reads the pipe at once).
	 */
	const char *argv[] = { "sh", "-c",
			       "if command -v tee >/dev/null 2>&1 && command -v printf >/dev/null 2>&1; then "
			       "printf '%s' \"$1\" | tee \"$2\" >/dev/null; exit; fi; "
			       "if command -v printf >/dev/null 2>&1; then printf '%s' \"$1\"; "
			       "elif command -v print >/dev/null 2>&1; then print -rn -- \"$1\"; "
			       "else echo \"$1\"; fi > \"$2\"",
			       "kvb-write", value, path, NULL };
	struct kvb_exec_result r;
	int rc;
	kvb_exec_result_init(&r);
	rc = kvb_target_run_ok(t, argv, 30000, &r, err);
	kvb_exec_result_release(&r);
	if (rc)
		kvb_error_prefix(err, "cannot write '%s' to %s", value, path);
	return rc;
}
