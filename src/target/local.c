/* Implements the local target: this host, commands via posix_spawn, files via copy. */
#include "target/target.h"
#include "core/util.h"

#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>

static int local_open(struct kvb_target *t, struct kvb_error *err)
{
	(void)t;
	(void)err;
	return KVB_OK;
}

static int local_exec(struct kvb_target *t, const char *const *argv, uint64_t timeout_ms, struct kvb_exec_result *r,
		      struct kvb_error *err)
{
	struct kvb_spawn_opts o = { .argv = argv, .timeout_ms = timeout_ms, .cancel = t->cancel };
	return kvb_spawn_run(&o, r, err);
}

/* Copies a file or a directory tree. */
static int copy_tree(const char *src, const char *dst, struct kvb_error *err)
{
	struct stat st;
	if (stat(src, &st))
		return kvb_error_set(err, KVB_ETARGET, "cannot copy '%s': %s", src, strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		DIR *d;
		struct dirent *e;
		int rc = KVB_OK;
		if (kvb_mkdir_p(dst, 0755))
			return kvb_error_set(err, KVB_ETARGET, "cannot create '%s': %s", dst, strerror(errno));
		d = opendir(src);
		if (!d)
			return kvb_error_set(err, KVB_ETARGET, "cannot read '%s': %s", src, strerror(errno));
		while (!rc && (e = readdir(d))) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			char *s = kvb_xasprintf("%s/%s", src, e->d_name), *t = kvb_xasprintf("%s/%s", dst, e->d_name);
			rc = copy_tree(s, t, err);
			free(s);
			free(t);
		}
		closedir(d);
		return rc;
	}
	if (kvb_copy_file(src, dst))
		return kvb_error_set(err, KVB_ETARGET, "cannot copy '%s' to '%s': %s", src, dst, strerror(errno));
	return KVB_OK;
}

static int local_push(struct kvb_target *t, const char *local, const char *remote, struct kvb_error *err)
{
	(void)t;
	return copy_tree(local, remote, err);
}

static int local_pull(struct kvb_target *t, const char *remote, const char *local, struct kvb_error *err)
{
	(void)t;
	return copy_tree(remote, local, err);
}

static void local_close(struct kvb_target *t)
{
	(void)t;
}

/* The board is the host: its CPUs are the ones other work competes for. */
static int local_host(struct kvb_target *t, struct kvb_target_host *h)
{
	(void)t;
	memset(h, 0, sizeof(*h));
	h->workload_on_host = 1;
	return 1;
}

const struct kvb_target_ops kvb_target_local = {
	.name = "local",
	.summary = "this host: commands via posix_spawn, files by copy",
	.conn_keys = NULL,
	.open = local_open,
	.exec = local_exec,
	.push = local_push,
	.pull = local_pull,
	.reboot = NULL,
	.wait_ready = NULL,
	.close = local_close,
	.host = local_host,
};
