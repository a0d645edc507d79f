/*
 * Implements the qemu target's instruction counter (target.h: KVB_TARGET_WANT_INSN_COUNTER,
 * ops->insn_counter; docs/profile.md#counting-every-instruction): when the run asks for it and the
 * board's clock counts instructions (one TCG thread: the plugin's inline counts are not atomic),
 * QEMU loads kvbench's TCG plugin (qemu-plugin/kvb_tbcount.c) with a unix socket in the target's
 * private directory, and a request is one line on that socket (core/tbcount.h).
 */
#include "target/qemu_internal.h"
#include "core/tbcount.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PLUGIN_FILE "kvb-tbcount.so"

/* Beside the kvbench binary (a build tree), else <bin>/KVB_REL_PLUGINDIR (installed). Owned, or NULL. */
static char *find_plugin(void)
{
	char exe[PATH_MAX], *c;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0 || !KVB_TBCOUNT_BUILT)
		return NULL;
	exe[n] = '\0';
	if ((c = strrchr(exe, '/')))
		*c = '\0';
	c = kvb_xasprintf("%s/%s", exe, PLUGIN_FILE);
	if (kvb_is_file(c))
		return c;
	free(c);
	c = kvb_xasprintf("%s/%s/%s", exe, KVB_REL_PLUGINDIR, PLUGIN_FILE);
	if (kvb_is_file(c))
		return c;
	free(c);
	return NULL;
}

void kvb_qemu_counter_open(struct kvb_target *t, struct qemu_priv *p)
{
	if (!(t->wants & KVB_TARGET_WANT_INSN_COUNTER))
		p->counter_why = kvb_xstrdup("no instrument of the run asked the board to count instructions");
	else if (!p->icount)
		p->counter_why = kvb_xstrdup("the board's clock is not instructions (connection.clock: instructions "
					     "runs one TCG thread, which the plugin's counts need)");
	else if (!KVB_TBCOUNT_BUILT)
		p->counter_why = kvb_xstrdup("kvbench was built without its QEMU plugin (no qemu-plugin.h at build time: "
					     "scripts/get-qemu-plugin-header, then cmake again)");
	else if (!(p->counter_so = find_plugin()))
		p->counter_why = kvb_xasprintf("the plugin " PLUGIN_FILE " is neither beside kvbench nor in %s",
					       KVB_REL_PLUGINDIR);
	else
		p->counter_sock = kvb_xasprintf("%s/tbcount.sock", p->run_dir);
}

void kvb_qemu_counter_args(struct qemu_priv *p, struct kvb_strv *a)
{
	char *so, *sock;
	if (!p->counter_sock)
		return;
	so = kvb_qemu_escape(p->counter_so);
	sock = kvb_qemu_escape(p->counter_sock);
	kvb_strv_push(a, "-plugin");
	kvb_strv_pushf(a, "file=%s,sock=%s", so, sock);
	free(so);
	free(sock);
}

void kvb_qemu_counter_free(struct qemu_priv *p)
{
	if (p->counter_sock)
		unlink(p->counter_sock);
	free(p->counter_so);
	free(p->counter_sock);
	free(p->counter_why);
}

int kvb_qemu_insn_counter(struct kvb_target *t, const char *dump_path, struct kvb_insn_count *c, struct kvb_error *err)
{
	struct qemu_priv *p = kvb_qemu_priv_of(t);
	memset(c, 0, sizeof(*c));
	if (!p)
		return kvb_error_set(err, KVB_ETARGET, "qemu target is not open");
	if (!p->counter_sock)
		return kvb_error_set(err, KVB_ETARGET, "the board counts no instructions: %s", p->counter_why);
	if (!p->proc.pid)
		return kvb_error_set(err, KVB_ETARGET, "the board counts no instructions: no QEMU runs");
	return kvb_tbcount_request(p->counter_sock, dump_path, c, err);
}
