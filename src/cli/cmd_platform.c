/* Implements `kvbench platform list|show|check|new`. */
#include "cli/cli.h"
#include "engine/catalog.h"
#include "cli/platform_new.h"
#include "config/platform.h"
#include "config/platform_check.h"
#include "core/util.h"
#include "engine/identity.h"
#include "engine/preflight.h"
#include "flash/flash.h"
#include "instrument/instrument.h"
#include "instrument/probe.h"
#include "target/target.h"
#include "workload/workload.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void list_one(const char *name, const char *dir, void *arg)
{
	struct kvb_platform p;
	struct kvb_diag d;
	(void)arg;
	kvb_diag_init(&d, NULL);
	if (kvb_platform_load(&p, dir, &kvb_catalog, &d))
		printf("%-18s (invalid: %s)\n", name, d.msgs.n ? d.msgs.v[0] : "?");
	else
		printf("%-18s %-6s %-9s %s\n", name, p.conn_type, p.flash_method,
		       kvb_get_str(p.doc.root, "description", ""));
	kvb_platform_release(&p);
	kvb_diag_release(&d);
}

/* A key of a backend's table that is a time (…_s, …_ms, …_min). */
static int is_timeout_key(const char *k)
{
	size_t n = strlen(k);
	return (n > 2 && !strcmp(k + n - 2, "_s")) || (n > 3 && !strcmp(k + n - 3, "_ms")) ||
	       (n > 4 && !strcmp(k + n - 4, "_min"));
}

static void show_timeout_keys(const cJSON *map, const char *section, const struct kvb_keydef *keys)
{
	for (const struct kvb_keydef *d = keys; d && d->key; d++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(map, d->key);
		char *s, name[96];
		if (!is_timeout_key(d->key))
			continue;
		s = v ? kvb_node_str(v) : NULL;
		snprintf(name, sizeof(name), "%s.%s", section, d->key);
		printf("#   %-34s %s%s\n", name, s ? s : d->def ? d->def : "unset", s ? "" : " (default)");
		free(s);
	}
}

/*
 * The timeouts a run of this platform works with, given or default (issue 28 item 5:
 * they decide how long a pool waits for a board that stopped answering).
 */
static void show_timeouts(const struct kvb_platform *p)
{
	const struct kvb_target_ops *t = kvb_target_find(p->conn_type);
	const struct kvb_flasher_ops *f = kvb_flasher_find(p->flash_method);
	const cJSON *boot = cJSON_GetObjectItemCaseSensitive(p->doc.root, "boot");
	printf("# timeouts (given, or the default):\n");
	printf("#   %-34s %d%s\n", "boot.timeout_s", p->boot_timeout_s,
	       cJSON_GetObjectItemCaseSensitive(boot, "timeout_s") ? "" : " (default)");
	if (t)
		show_timeout_keys(p->conn, "connection", t->conn_keys);
	if (f)
		show_timeout_keys(p->flash, "flash", f->keys);
	if (t && t->block && t->block_keys)
		show_timeout_keys(cJSON_GetObjectItemCaseSensitive(p->doc.root, t->block), t->block, t->block_keys);
	if (p->nboards > 1 || kvb_get_int(p->conn, "parallel", 1) > 1)
		printf("# pool: a board that stops answering during a unit is waited for up to boot.timeout_s (%d s),\n"
		       "# then leaves the pool and the rest of its unit goes to another board; meanwhile no unit waits\n"
		       "# for it. A board that fails units of two variants in a row leaves the pool at once.\n",
		       p->boot_timeout_s);
}

/* What workloads need of the target beyond tools: a kind of target, root. */
static void check_workload_caps(struct kvb_target *t)
{
	static const char *const uid[] = { "id", "-u", NULL };
	struct kvb_exec_result r;
	struct kvb_error err;
	int root;
	kvb_exec_result_init(&r);
	root = !kvb_target_run_ok(t, uid, 10000, &r, &err) && !strcmp(r.out.data, "0\n");
	for (size_t i = 0; kvb_workloads[i]; i++) {
		const struct kvb_workload_ops *w = kvb_workloads[i];
		if ((t->ops->caps & w->target_caps) != w->target_caps)
			printf("  %-16s not runnable here: needs %s target\n", w->name,
			       (w->target_caps & KVB_TARGET_ANDROID) ? "an Android (adb)" : "another kind of");
		if (w->caps & KVB_WORKLOAD_NEEDS_ROOT)
			printf("  %-16s root: %s\n", w->name, root ? "yes" : "no (real-time priority and mlockall will fail)");
	}
	kvb_exec_result_release(&r);
}

/*
 * The topology against the CPUs the board has: its /sys/devices/system/cpu/present (under
 * sysfs_root: a simulated board's tree), else online. A cluster CPU it lacks is a problem
 * at that cluster's cpus (file:line:col); a board that does not say is a note in found.
 */
static void check_board_cpus(const struct kvb_platform *p, struct kvb_target *t, struct kvb_strv *problems,
			     struct kvb_strv *found)
{
	static const char *const files[] = { "/sys/devices/system/cpu/present", "/sys/devices/system/cpu/online" };
	const char *root = kvb_instr_sysfs_root(p);
	unsigned char have[KVB_CPULIST_MAX], topo[KVB_CPULIST_MAX];
	if (!kvb_platform_topology_cpus(p, topo))
		return;
	for (size_t i = 0; i < KVB_ARRAY_SIZE(files); i++) {
		struct kvb_error err;
		char *text = NULL, why[160], *src;
		struct kvb_diag d;
		if (kvb_target_read_rooted(t, root, files[i], &text, &err)) {
			free(text);
			continue;
		}
		text[strcspn(text, " \t\r\n")] = '\0';
		if (kvb_cpulist_read(text, have, why, sizeof(why)) <= 0) {
			kvb_strv_pushf(found, "topology not checked against the board: %s%s reads \"%s\": %s", root, files[i],
				       text, why);
			free(text);
			return;
		}
		src = kvb_xasprintf("the board's %s%s", root, files[i]);
		kvb_diag_init(&d, &p->doc);
		kvb_platform_check_cpus_against(p, have, src, &d);
		for (size_t k = 0; k < d.msgs.n; k++)
			kvb_strv_push(problems, d.msgs.v[k]);
		if (!d.msgs.n)
			kvb_strv_pushf(found, "topology: every cluster CPU is on the board (%s: %s)", src, text);
		kvb_diag_release(&d);
		free(src);
		free(text);
		return;
	}
	kvb_strv_pushf(found, "topology not checked against the board: it has no readable %s%s", root, files[0]);
}

/*
 * The platform's own files, its instruments' programs on this host, then the board when it
 * answers: reachability, kernel, CPUs, the instruments' files and tools there, the workloads'
 * tools. Everything is listed; a problem anywhere is exit 3 (the file names what will fail),
 * an unreachable board exit 4; "valid" is said only when nothing failed.
 */
static int check(struct kvb_platform *p)
{
	struct kvb_target t;
	struct kvb_error err;
	struct kvb_identity id;
	struct kvb_exec_result r;
	struct kvb_strv problems = KVB_STRV_INIT, found = KVB_STRV_INIT;
	char *online = kvb_xasprintf("%s/sys/devices/system/cpu/online", p->sysfs_root ? p->sysfs_root : "");
	const char *const cpus[] = { "cat", online, NULL }; /* under sysfs_root, as every reader of /sys */
	int rc = KVB_OK, open = 0, unreachable = 0;
	printf("%s: platform %s (connection %s, flash %s, boot timeout %d s)\n", p->file, p->name, p->conn_type,
	       p->flash_method, p->boot_timeout_s);
	for (size_t i = 0; i < p->nclusters; i++)
		printf("  cluster %-8s cpus %s\n", p->clusters[i].name, p->clusters[i].cpus);
	{
		struct kvb_preflight pf = { KVB_STRV_INIT, KVB_STRV_INIT };
		kvb_preflight_platform(p, &pf);
		for (size_t i = 0; i < pf.problems.n; i++)
			kvb_strv_push(&problems, pf.problems.v[i]);
		kvb_preflight_release(&pf);
	}
	kvb_instr_probe_platform(p, NULL, &problems, &found);
	memset(&id, 0, sizeof(id));
	kvb_exec_result_init(&r);
	if (kvb_target_find(p->conn_type)->caps & KVB_TARGET_OWNS_BOARD) {
		printf("reachability: not checked (connection %s starts the board itself: `kvbench run` boots it)\n",
		       p->conn_type);
		goto report;
	}
	if ((rc = kvb_target_open(&t, p, &err)) == KVB_OK) {
		open = 1;
		rc = kvb_target_wait_ready(&t, 15000, &err);
	}
	if (rc) {
		/* a value the backend refused when opening is the file's problem, not the board's */
		if (err.code == KVB_EINPUT)
			kvb_strv_push(&problems, err.msg);
		else
			printf("unreachable: %s\n", err.msg);
		unreachable = err.code != KVB_EINPUT;
		goto report;
	}
	if (t.ops->batch) { /* LAVA: nothing runs outside a job; the identity is read inside each one */
		printf("reachable: %s answers and takes the token; kernels are identified inside each job\n", t.ops->name);
		goto report;
	}
	{
		struct kvb_variant none;
		memset(&none, 0, sizeof(none));
		if ((rc = kvb_identity_check(&t, &none, &id, &err))) {
			printf("unreachable: %s\n", err.msg);
			unreachable = 1;
			goto report;
		}
	}
	printf("reachable: kernel %s (%s)\n  cmdline: %s\n", id.release, id.version, id.cmdline);
	if (!kvb_target_run_ok(&t, cpus, 10000, &r, &err))
		printf("  cpus online: %s", r.out.data);
	check_board_cpus(p, &t, &problems, &found);
	check_workload_caps(&t);
	for (size_t i = 0; kvb_workloads[i]; i++) {
		for (size_t k = 0; kvb_workloads[i]->needs && kvb_workloads[i]->needs[k]; k++) {
			const char *argv[] = { "sh", "-c", "command -v \"$1\"", "kvb-check", kvb_workloads[i]->needs[k], NULL };
			int have = !kvb_target_exec(&t, argv, 10000, &r, &err) && r.exit_code == 0;
			printf("  %-16s %s: %s\n", kvb_workloads[i]->name, kvb_workloads[i]->needs[k], have ? "found" : "missing");
		}
	}
	kvb_instr_probe_platform(p, &t, &problems, &found);
report:
	for (size_t i = 0; i < found.n; i++)
		printf("  %s\n", found.v[i]);
	for (size_t i = 0; i < problems.n; i++)
		printf("problem: %s\n", problems.v[i]);
	/* every problem counted, the board not answering too; exit 4 only when that is the only one */
	if (problems.n + (size_t)unreachable)
		printf("%s: %zu problem%s%s\n", p->file, problems.n + (size_t)unreachable,
		       problems.n + (size_t)unreachable == 1 ? "" : "s",
		       unreachable ? " (the board does not answer: what is on it was not checked)" : "");
	else if (!rc)
		printf("%s: valid\n", p->file);
	rc = problems.n ? KVB_EINPUT : rc ? KVB_ETARGET : KVB_OK;
	kvb_exec_result_release(&r);
	kvb_identity_release(&id);
	if (open)
		kvb_target_close(&t);
	kvb_strv_release(&problems);
	kvb_strv_release(&found);
	free(online);
	return rc;
}

static const char *const synopsis[] = { "platform list", "platform show <name>|<path>", "platform check <name>|<path>",
					 "platform new <name> --from <base> [--dir <dir>]", NULL };

static const struct kvb_option options[] = {
	KVB_OPT_GROUP(KVB_PLATFORM_NEW_GROUP),
	KVB_OPT_VALUE('F', "from", "base", "the platform copied (a name or a path)"),
	KVB_OPT_VALUE('D', "dir", "dir", "write DIR/NAME/platform.yaml (default: the first $KVB_PLATFORM_PATH\n"
					 "entry, else ~/.config/kvbench/platforms, searched from any directory)"),
	KVB_OPT_END(),
};

const struct kvb_cmd_usage kvb_usage_platform = {
	synopsis, options,
	"NAME is looked up in $KVB_PLATFORM_PATH, ./platforms, ~/.config/kvbench/platforms\n"
	"($XDG_CONFIG_HOME/kvbench/platforms) and the source tree's platforms/; a PATH (with '/')\n"
	"names a platform.yaml or its directory anywhere.\n"
	"check: the file, its instruments' programs on this host and, when the board answers, its\n"
	"       kernel, CPUs, tools and the instruments' files there; exit 3 for a problem, 4 when\n"
	"       the board does not answer.\n"
	"new:   writes the base's platform.yaml with the name replaced and says how to name it.\n",
	NULL,
};

int kvb_cmd_platform(struct kvb_cli *cli, int argc, char **argv)
{
	(void)cli; /* flags 0: no DB */
	struct kvb_platform p;
	int rc;
	if (argc < 2)
		return kvb_cli_usage("platform", "expected list, show, check or new");
	if (!strcmp(argv[1], "list")) {
		kvb_platform_each(list_one, NULL);
		return KVB_OK;
	}
	if (!strcmp(argv[1], "new"))
		return kvb_platform_new_cmd(argc, argv);
	if (argc != 3)
		return kvb_cli_usage("platform", "expected `platform %s NAME`", argv[1]);
	if (strcmp(argv[1], "show") && strcmp(argv[1], "check"))
		return kvb_cli_usage("platform", "'%s': expected list, show, check or new", argv[1]);
	if (kvb_cli_platform_load(&p, argv[2])) {
		kvb_platform_release(&p);
		return KVB_EINPUT;
	}
	if (!strcmp(argv[1], "show")) {
		cJSON *shown = kvb_redact_secrets(p.doc.root);
		char *s = cJSON_Print(shown);
		printf("# %s\n%s\n", p.file, s);
		show_timeouts(&p);
		free(s);
		cJSON_Delete(shown);
		rc = KVB_OK;
	} else {
		rc = KVB_OK;
		if (p.nboards > 1) { /* a pool: every board */
			for (size_t i = 0; i < p.nboards; i++) {
				struct kvb_platform view;
				int brc;
				kvb_platform_board_view(&p, i, &view);
				printf("board %s:\n", p.boards[i].name);
				if ((brc = check(&view)))
					rc = brc;
			}
		} else {
			rc = check(&p);
		}
	}
	kvb_platform_release(&p);
	return rc;
}
