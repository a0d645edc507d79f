/* Implements the profile instrument's counting method (profile_count.h). */
#include "instrument/profile_count.h"
#include "core/buf.h"
#include "core/util.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int kvb_guest_clock_parse(const char *text, struct kvb_guest_clock *g)
{
	double up, idle;
	if (!text || sscanf(text, "%lf %lf", &up, &idle) != 2 || up < 0 || idle < 0)
		return -1;
	g->up_ns = (uint64_t)llround(up * 1e9);
	g->idle_ns = (uint64_t)llround(idle * 1e9);
	return 0;
}

static int read_clock(struct kvb_instr_ctx *c, struct kvb_guest_clock *g, struct kvb_error *err)
{
	char *text = NULL;
	int rc = kvb_target_read_rooted(c->target, "", "/proc/uptime", &text, err);
	if (!rc && kvb_guest_clock_parse(text, g))
		rc = kvb_error_set(err, KVB_ETARGET, "the guest's /proc/uptime is not two numbers: '%.60s'", text);
	free(text);
	return rc;
}

static int dump(struct kvb_instr_ctx *c, char **path, const char *tag, struct kvb_insn_count *n, struct kvb_error *err)
{
	*path = kvb_xasprintf("%s/%s.%s.blocks", c->artifact_dir, c->name, tag);
	return kvb_target_insn_counter(c->target, *path, n, err);
}

int kvb_pcount_start(struct kvb_instr_ctx *c, struct kvb_pcount *s, struct kvb_error *err)
{
	int rc = read_clock(c, &s->g0, err);
	return rc ? rc : dump(c, &s->dump0, "start", &s->c0, err);
}

int kvb_pcount_stop(struct kvb_instr_ctx *c, struct kvb_pcount *s, struct kvb_error *err)
{
	int rc = dump(c, &s->dump1, "stop", &s->c1, err);
	return rc ? rc : read_clock(c, &s->g1, err);
}

void kvb_pcount_release(struct kvb_pcount *s)
{
	if (s->dump0)
		unlink(s->dump0);
	if (s->dump1)
		unlink(s->dump1);
	free(s->dump0);
	free(s->dump1);
	memset(s, 0, sizeof(*s));
}

/* The window's blocks (those that ran in it), kept with the job: "START END INSNS EXECS". */
static void keep_blocks(struct kvb_instr_ctx *c, const struct kvb_tb_dump *a, const struct kvb_tb_dump *b)
{
	char *local = kvb_xasprintf("%s/%s.blocks.txt", c->artifact_dir, c->name);
	FILE *f = fopen(local, "w");
	size_t j = 0;
	if (f) {
		fputs("# the job's window: guest blocks that ran, START END (hex) INSNS EXECS (executions in the window)\n", f);
		for (size_t i = 0; i < b->n; i++) {
			uint64_t before = 0;
			while (j < a->n && (a->v[j].start < b->v[i].start ||
					    (a->v[j].start == b->v[i].start &&
					     (a->v[j].end < b->v[i].end ||
					      (a->v[j].end == b->v[i].end && a->v[j].insns < b->v[i].insns)))))
				j++;
			if (j < a->n && a->v[j].start == b->v[i].start && a->v[j].end == b->v[i].end &&
			    a->v[j].insns == b->v[i].insns)
				before = a->v[j].execs;
			if (b->v[i].execs > before)
				fprintf(f, "%" PRIx64 " %" PRIx64 " %" PRIu64 " %" PRIu64 "\n", b->v[i].start, b->v[i].end,
					b->v[i].insns, b->v[i].execs - before);
		}
		if (!fclose(f))
			kvb_metrics_artifact(c->out, "profile", local);
	}
	free(local);
}

int kvb_pcount_collect(struct kvb_instr_ctx *c, struct kvb_pcount *s, struct kvb_profile **out, struct kvb_error *err)
{
	struct kvb_tb_dump a, b;
	struct kvb_tb_window win;
	struct kvb_pcount_limits lim;
	char *syms = NULL, why[256];
	struct kvb_profile *p = NULL;
	int rc;

	*out = NULL;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	if ((rc = kvb_tb_dump_read(s->dump0, &a, err)) || (rc = kvb_tb_dump_read(s->dump1, &b, err)))
		goto out;
	if ((rc = kvb_target_read_rooted(c->target, "", "/proc/kallsyms", &syms, err)))
		goto out;
	p = kvb_tb_window_profile(&a, &b, syms, &win, why, sizeof(why));
	if (!p) {
		rc = kvb_error_set(err, KVB_ETARGET, "the guest's /proc/kallsyms: %s (a kernel without CONFIG_KALLSYMS?)", why);
		goto out;
	}
	keep_blocks(c, &a, &b);
	lim.name = c->name;
	lim.max_clock_gap_pct = kvb_get_num(c->conf, "max_clock_gap_pct", 5);
	lim.min_resolved_pct = kvb_get_num(c->conf, "min_resolved_pct", 99);
	rc = kvb_pcount_judge(&win, &s->c0, &s->c1, &s->g0, &s->g1, &lim, &c->out->witnesses, err);
	if (!rc) {
		*out = p;
		p = NULL;
	}
out:
	kvb_profile_free(p);
	free(syms);
	kvb_tb_dump_release(&a);
	kvb_tb_dump_release(&b);
	return rc;
}

int kvb_pcount_judge(const struct kvb_tb_window *win, const struct kvb_insn_count *c0, const struct kvb_insn_count *c1,
		     const struct kvb_guest_clock *g0, const struct kvb_guest_clock *g1,
		     const struct kvb_pcount_limits *lim, struct kvb_witnesses *w, struct kvb_error *err)
{
	char subject[160], expected[200], observed[300];
	struct kvb_witness *x;
	uint64_t counted = c1->instructions - c0->instructions;
	int64_t up = (int64_t)(g1->up_ns - g0->up_ns), idle = (int64_t)(g1->idle_ns - g0->idle_ns), busy = up - idle;
	double gap = busy > 0 ? 100.0 * ((double)win->instructions - (double)busy) / (double)busy : 100;
	double res_pct = win->kernel ? 100.0 * (double)win->resolved / (double)win->kernel : 100;

	snprintf(subject, sizeof(subject), "%s clock", lim->name);
	snprintf(observed, sizeof(observed), "%" PRIu64 " instructions counted by block (QEMU plugin kvb-tbcount), %.3g %% "
		 "in blocks that cross a symbol", win->instructions,
		 win->instructions ? 100.0 * (double)win->crossing / (double)win->instructions : 0.0);
	kvb_witness_add(w, "profile", subject, "every guest instruction of the window counted where it ran", observed,
			KVB_WIT_OK, win->crossing ? "a block that runs past a symbol's address is counted to the function "
						    "of its first instruction" : NULL);

	snprintf(subject, sizeof(subject), "%s counter", lim->name);
	snprintf(expected, sizeof(expected), "counts only grow, every block counted (room for every translation)");
	snprintf(observed, sizeof(observed), "window %" PRIu64 " instructions by its dumps, %" PRIu64 " by its totals, %"
		 PRIu64 " executions gone backwards%s", win->instructions, counted, win->negative,
		 c1->full ? ", the counter is full" : "");
	if (win->negative || c1->full || c1->instructions < c0->instructions || win->instructions != counted) {
		x = kvb_witness_add(w, "profile", subject, expected, observed, KVB_WIT_REFUSED,
				    "the counting plugin's dumps do not make one window (%s)", observed);
		return kvb_error_set(err, KVB_ETARGET, "%s", x->detail);
	}
	kvb_witness_add(w, "profile", subject, expected, observed, KVB_WIT_OK, NULL);

	/* icount shift=0: a guest ns is an instruction while the CPU runs; idle jumps the clock */
	snprintf(subject, sizeof(subject), "%s guest clock", lim->name);
	snprintf(expected, sizeof(expected), "instructions = the guest's busy ns (elapsed - idle, /proc/uptime) within %g %%",
		 lim->max_clock_gap_pct);
	snprintf(observed, sizeof(observed), "%" PRIu64 " instructions, busy %" PRId64 " ns (elapsed %" PRId64
		 ", idle %" PRId64 "): %+.2f %%", win->instructions, busy, up, idle, gap);
	if (fabs(gap) > lim->max_clock_gap_pct) {
		x = kvb_witness_add(w, "profile", subject, expected, observed, KVB_WIT_REFUSED,
				    "the counted instructions and the guest's instruction clock disagree (%s): not the "
				    "instruction-clock board, or the plugin missed blocks", observed);
		return kvb_error_set(err, KVB_ETARGET, "%s", x->detail);
	}
	kvb_witness_add(w, "profile", subject, expected, observed, KVB_WIT_OK, NULL);

	snprintf(subject, sizeof(subject), "%s kernel symbols", lim->name);
	snprintf(expected, sizeof(expected), "at least %g %% of the kernel's instructions in a function of /proc/kallsyms",
		 lim->min_resolved_pct);
	snprintf(observed, sizeof(observed), "%" PRIu64 " of %" PRIu64 " (%.4g %%)", win->resolved, win->kernel, res_pct);
	if (res_pct < lim->min_resolved_pct) {
		x = kvb_witness_add(w, "profile", subject, expected, observed, KVB_WIT_REFUSED,
				    "kernel instructions not resolved to functions (%s): /proc/kallsyms gives no addresses "
				    "(kernel.kptr_restrict 2, or no CONFIG_KALLSYMS)", observed);
		return kvb_error_set(err, KVB_ETARGET, "%s", x->detail);
	}
	kvb_witness_add(w, "profile", subject, expected, observed, KVB_WIT_OK, NULL);
	return KVB_OK;
}
