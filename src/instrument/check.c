/* Implements `platform check`'s probes of instruments: meter programs on this host, roots, files and tools on the board. */
#include "instrument/instrument.h"
#include "instrument/probe.h"
#include "core/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Adds "instrument 'NAME': " + fmt to list: the one place a probe line gets its instance's name. */
static void probe_line(struct kvb_strv *list, const char *name, const char *fmt, va_list ap)
{
	char msg[3072];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	kvb_strv_pushf(list, "instrument '%s': %s", name, msg);
}

void kvb_instr_probe_problem(struct kvb_instr_probe *p, const char *fmt, ...)
{
	va_list ap;
	char msg[3072];
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (p->origin) {
		kvb_strv_pushf(p->problems, "%s: instrument '%s': %s", p->origin, p->name, msg);
	} else if (p->plat && p->plat->doc.file) {
		/* where in the file the instance is, as every other problem of `platform check` */
		char *path = kvb_xasprintf("instruments.%s", p->name);
		int line, col;
		kvb_doc_loc(&p->plat->doc, path, &line, &col);
		kvb_strv_pushf(p->problems, "%s:%d:%d: instrument '%s': %s", p->plat->doc.file, line, col, p->name, msg);
		free(path);
	} else {
		kvb_strv_pushf(p->problems, "instrument '%s': %s", p->name, msg);
	}
}

void kvb_instr_probe_found(struct kvb_instr_probe *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	probe_line(p->found, p->name, fmt, ap);
	va_end(ap);
}

/* 1 when path is a regular file this process may execute. */
static int executable(const char *path)
{
	struct stat sb;
	return !stat(path, &sb) && S_ISREG(sb.st_mode) && !access(path, X_OK);
}

void kvb_instr_probe_host_program(struct kvb_instr_probe *p, const char *argv0, const char *what)
{
	const char *path = getenv("PATH");
	char *found = NULL;
	if (!argv0 || !*argv0) {
		kvb_instr_probe_problem(p, "%s is empty", what);
		return;
	}
	if (strchr(argv0, '/')) {
		if (executable(argv0))
			found = kvb_xstrdup(argv0);
	} else {
		/* execvp's search: each $PATH entry (an empty one is the current directory) */
		char *copy = kvb_xstrdup(path && *path ? path : "/usr/local/bin:/bin:/usr/bin");
		for (char *d = copy, *next; d && !found; d = next) {
			char *cand;
			next = strchr(d, ':');
			if (next)
				*next++ = '\0';
			cand = kvb_xasprintf("%s/%s", *d ? d : ".", argv0);
			if (executable(cand))
				found = cand;
			else
				free(cand);
		}
		free(copy);
	}
	if (found)
		kvb_instr_probe_found(p, "%s %s: %s", what, argv0, found);
	else
		kvb_instr_probe_problem(p, "%s '%s' %s on this host", what, argv0,
			       strchr(argv0, '/') ? "is not an executable file" : "is not found in $PATH");
	free(found);
}

/* Runs `sh -c SCRIPT sh ARG` on the board: 1 when it exits 0, 0 when not, -1 when it could not run. */
static int board_test(struct kvb_instr_probe *p, const char *script, const char *arg, char *why, size_t n)
{
	const char *argv[] = { "sh", "-c", script, "sh", arg, NULL };
	struct kvb_exec_result r;
	struct kvb_error err;
	int ok;
	kvb_exec_result_init(&r);
	if (kvb_target_exec(p->target, argv, 10000, &r, &err)) {
		snprintf(why, n, "%.400s", err.msg);
		ok = -1;
	} else {
		ok = r.exit_code == 0;
	}
	kvb_exec_result_release(&r);
	return ok;
}

void kvb_instr_probe_board_file(struct kvb_instr_probe *p, const char *path)
{
	const char *root = kvb_instr_sysfs_root(p->plat);
	char *full = kvb_xasprintf("%s%s", root, path), why[512] = "";
	int ok;
	if (!p->target) {
		free(full);
		return;
	}
	ok = board_test(p, "test -r \"$1\"", full, why, sizeof(why));
	if (ok > 0) {
		kvb_instr_probe_found(p, "%s: readable on the board", full);
	} else if (!ok) {
		/* a wrong root explains every file under it: say whether the root itself is there */
		int root_ok = *root ? board_test(p, "test -d \"$1\"", root, why, sizeof(why)) > 0 : 1;
		kvb_instr_probe_problem(p, "%s is not a readable file on the board%s%s%s", full,
			       *root ? " (its root '" : "", *root ? root : "",
			       !*root ? "" : root_ok ? "' exists)" : "' is not a directory there)");
	} else {
		kvb_instr_probe_found(p, "%s not checked: %s", full, why);
	}
	free(full);
}

void kvb_instr_probe_board_program(struct kvb_instr_probe *p, const char *prog, const char *what)
{
	char why[512] = "";
	int ok;
	if (!p->target || !prog)
		return;
	ok = board_test(p, "command -v \"$1\" >/dev/null", prog, why, sizeof(why));
	if (ok > 0)
		kvb_instr_probe_found(p, "%s %s: found on the board", what, prog);
	else if (!ok)
		kvb_instr_probe_problem(p, "%s '%s' is not on the board's PATH", what, prog);
	else
		kvb_instr_probe_found(p, "%s %s not checked: %s", what, prog, why);
}

void kvb_meter_probe(struct kvb_instr_probe *p, const struct kvb_instrument_ops *ops)
{
	/* the backend's own setup builds the argv the job will spawn: the programs checked are those */
	struct kvb_instr_ctx c;
	struct kvb_error err;
	if (p->target)
		return; /* a meter runs on this host: nothing of it is on the board */
	memset(&c, 0, sizeof(c));
	c.name = p->name;
	c.conf = p->conf;
	c.plat = p->plat;
	c.artifact_dir = "/nonexistent/kvbench-platform-check"; /* only names output files; none is opened */
	if (ops->setup(&c, &err)) {
		kvb_instr_probe_problem(p, "%s", err.msg);
	} else {
		struct kvb_meter *m = c.priv;
		for (size_t i = 0; m && i < m->ncmd; i++)
			kvb_instr_probe_host_program(p, m->cmd[i].argv.n ? m->cmd[i].argv.v[0] : NULL, "meter command");
	}
	if (ops->teardown)
		ops->teardown(&c);
}

size_t kvb_instr_probe_platform(const struct kvb_platform *plat, struct kvb_target *t, struct kvb_strv *problems,
				struct kvb_strv *found)
{
	size_t before = problems->n;
	for (const cJSON *kv = plat && cJSON_IsObject(plat->instruments) ? plat->instruments->child : NULL; kv;
	     kv = kv->next) {
		const struct kvb_instrument_ops *ops = kvb_instrument_find(kvb_get_str(kv, "type", ""));
		struct kvb_instr_probe p = { .name = kv->string, .conf = kv, .plat = plat, .target = t,
					     .problems = problems, .found = found };
		if (ops && ops->probe)
			ops->probe(&p);
	}
	return problems->n - before;
}
