/*
 * Implements the `command` flasher: a platform's own hook script installs the
 * variant (and usually reboots the board), then kvbench waits for the target.
 *
 * The hook is flash.command, a path relative to the platform directory (or
 * absolute), run locally from that directory with no arguments and with the
 * variant in environment variables, each set only when the variant has it:
 *   KVB_KERNEL KVB_DTB KVB_INITRD KVB_BOOT_IMAGE KVB_MODULES  local files
 *   KVB_CMDLINE       the variant's kernel command line
 *   KVB_VARIANT       the variant's name
 *   KVB_ROUND         the boot number of this variant (1, 2, ...)
 *   KVB_PLATFORM_DIR  the platform directory
 *   KVB_ARTIFACT_DIR  a directory for the hook's own files (kept with the run)
 * Variables of those names inherited from kvbench's environment are removed,
 * so an unset one always means "the variant has none". Values travel as
 * environment entries, never through a shell string.
 *
 * The hook has the platform's boot timeout; a non-zero exit fails the
 * variant and the message quotes the end of the hook's stderr. Its stdout
 * and stderr are kept in ARTIFACT_DIR/flash-hook.log. With flash.reboot:
 * true kvbench reboots the target after the hook (for hooks that only
 * install); otherwise the hook reboots or power-cycles the board itself and
 * should return once the old boot stopped answering.
 */
#include "flash/flash.h"
#include "config/keys.h"
#include "core/log.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HOOK_ERR_TAIL 600 /* bytes of the hook's stderr quoted in the failure message */

static void save_log(const char *path, const struct kvb_exec_result *r)
{
	FILE *f = kvb_fopen_nofollow(path);
	if (!f)
		return;
	fputs("--- stdout\n", f);
	if (r->out.len)
		fwrite(r->out.data, 1, r->out.len, f);
	fputs("\n--- stderr\n", f);
	if (r->err.len)
		fwrite(r->err.data, 1, r->err.len, f);
	fclose(f);
}

static int command_flash(struct kvb_flash_ctx *ctx, struct kvb_error *err)
{
	static const char *const vars[KVB_VF_N] = { "KVB_KERNEL", "KVB_DTB", "KVB_INITRD", "KVB_BOOT_IMAGE",
						    "KVB_MODULES" };
	const struct kvb_variant *v = ctx->variant;
	const struct kvb_platform *p = ctx->plat;
	const char *rel = kvb_get_str(p->flash, "command", NULL);
	struct kvb_strv env = KVB_STRV_INIT;
	struct kvb_exec_result r;
	char *hook, *log, how[128];
	int rc;

	if (!rel)
		return kvb_error_set(err, KVB_EINPUT, "%s: flash method command needs flash.command", p->file);
	hook = rel[0] == '/' ? kvb_xstrdup(rel) : kvb_xasprintf("%s/%s", p->dir, rel);
	if (access(hook, X_OK)) {
		rc = kvb_error_set(err, KVB_EINPUT, "%s: flash hook '%s' is not an executable file", p->file, hook);
		free(hook);
		return rc;
	}
	for (int f = 0; f < KVB_VF_N; f++) {
		if (v->local[f])
			kvb_strv_pushf(&env, "%s=%s", vars[f], v->local[f]);
		else
			kvb_strv_push(&env, vars[f]); /* a bare name removes an inherited value */
	}
	if (v->cmdline)
		kvb_strv_pushf(&env, "KVB_CMDLINE=%s", v->cmdline);
	else
		kvb_strv_push(&env, "KVB_CMDLINE");
	kvb_strv_pushf(&env, "KVB_VARIANT=%s", v->name);
	kvb_strv_pushf(&env, "KVB_ROUND=%d", ctx->round);
	kvb_strv_pushf(&env, "KVB_PLATFORM_DIR=%s", p->dir);
	if (ctx->artifact_dir)
		kvb_strv_pushf(&env, "KVB_ARTIFACT_DIR=%s", ctx->artifact_dir);
	else
		kvb_strv_push(&env, "KVB_ARTIFACT_DIR");
	{
		const char *argv[] = { hook, NULL };
		struct kvb_spawn_opts so = {
			.argv = argv, .env = kvb_strv_argv(&env), .cwd = p->dir, .timeout_ms = ctx->timeout_ms,
			.cancel = ctx->target->cancel,
		};
		kvb_exec_result_init(&r);
		kvb_info("flash hook: %s (variant %s, round %d)", hook, v->name, ctx->round);
		rc = kvb_spawn_run(&so, &r, err);
	}
	if (ctx->artifact_dir) {
		log = kvb_xasprintf("%s/flash-hook.log", ctx->artifact_dir);
		save_log(log, &r);
		free(log);
	}
	if (rc) {
		kvb_error_prefix(err, "flash hook '%s'", hook);
	} else if (r.exit_code != 0) {
		size_t n = r.err.len, off;
		while (n && (r.err.data[n - 1] == '\n' || r.err.data[n - 1] == ' '))
			n--;
		off = n > HOOK_ERR_TAIL ? n - HOOK_ERR_TAIL : 0;
		rc = kvb_error_set(err, KVB_ETARGET, "flash hook '%s' failed (%s)%s%s%.*s", hook,
				   kvb_exec_describe(&r, how, sizeof(how)), n ? ": " : "", off ? "..." : "", (int)(n - off),
				   r.err.data + off);
	}
	kvb_exec_result_release(&r);
	kvb_strv_release(&env);
	free(hook);
	if (rc)
		return rc;
	if (kvb_get_bool(p->flash, "reboot", 0) && (rc = kvb_target_reboot(ctx->target, NULL, err)))
		return rc;
	rc = kvb_target_wait_ready(ctx->target, ctx->timeout_ms, err);
	if (rc)
		kvb_error_prefix(err, "after the flash hook of variant '%s'", v->name);
	return rc;
}

static const struct kvb_keydef command_keys[] = {
	{ "command", KVB_T_STR, NULL, NULL, 0, "hook script (relative to the platform directory; required)" },
	{ "reboot", KVB_T_BOOL, "false", NULL, 0, "reboot the target after the hook (when the hook only installs)" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

static void command_check(const struct kvb_platform *p, struct kvb_diag *d)
{
	const char *hook = kvb_get_str(p->flash, "command", NULL);
	char *path;
	if (!hook) {
		kvb_diag_at(d, "flash", "method command needs command (the hook script)");
		return;
	}
	path = hook[0] == '/' ? kvb_xstrdup(hook) : kvb_xasprintf("%s/%s", p->dir, hook);
	if (access(path, X_OK))
		kvb_diag_at(d, "flash.command", "hook '%s' is not an executable file", path);
	free(path);
}

const struct kvb_flasher_ops kvb_flasher_command = {
	.name = "command",
	.summary = "run the platform's flash hook (flash.command) with the variant in KVB_* variables, then wait",
	.keys = command_keys,
	.caps = KVB_FLASH_INSTALLS_KERNEL,
	.check = command_check,
	.flash = command_flash,
};
