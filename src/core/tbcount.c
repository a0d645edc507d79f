/* Implements the counting plugin's client, its dumps and a window's profile by function (tbcount.h). */
#include "core/tbcount.h"
#include "core/util.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define ANSWER_MS 60000

int kvb_tbcount_request(const char *sock, const char *dump_path, struct kvb_insn_count *c, struct kvb_error *err)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char *req = dump_path ? kvb_xasprintf("dump %s\n", dump_path) : kvb_xstrdup("total\n");
	char ans[600];
	size_t have = 0;
	unsigned long long rec, insns;
	char extra[16] = "";
	int fd = -1, rc = KVB_OK;
	uint64_t t0 = kvb_mono_ns();

	memset(c, 0, sizeof(*c));
	if (strlen(sock) >= sizeof(a.sun_path) || strchr(req, '\n') != req + strlen(req) - 1) {
		rc = kvb_error_set(err, KVB_ETARGET, "counting plugin: socket path or dump path unusable");
		goto out;
	}
	strcpy(a.sun_path, sock);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		rc = kvb_error_set(err, KVB_ETARGET, "counting plugin: cannot connect to %s: %s", sock, strerror(errno));
		goto out;
	}
	if (write(fd, req, strlen(req)) != (ssize_t)strlen(req)) {
		rc = kvb_error_set(err, KVB_ETARGET, "counting plugin: cannot send its request: %s", strerror(errno));
		goto out;
	}
	while (!memchr(ans, '\n', have)) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		int left = ANSWER_MS - (int)((kvb_mono_ns() - t0) / 1000000);
		ssize_t got;
		if (left <= 0 || poll(&pf, 1, left) != 1) {
			rc = kvb_error_set(err, KVB_ETARGET, "counting plugin: no answer within %d s", ANSWER_MS / 1000);
			goto out;
		}
		got = read(fd, ans + have, sizeof(ans) - 1 - have);
		if (got <= 0) {
			rc = kvb_error_set(err, KVB_ETARGET, "counting plugin: closed without an answer");
			goto out;
		}
		have += (size_t)got;
		if (have == sizeof(ans) - 1)
			break;
	}
	ans[have] = '\0';
	ans[strcspn(ans, "\n")] = '\0';
	if (sscanf(ans, "ok %llu %llu %15s", &rec, &insns, extra) < 2) {
		rc = kvb_error_set(err, KVB_ETARGET, "counting plugin: %s", ans);
		goto out;
	}
	c->records = rec;
	c->instructions = insns;
	c->full = !strcmp(extra, "full");
out:
	if (fd >= 0)
		close(fd);
	free(req);
	return rc;
}

static int by_block(const void *x, const void *y)
{
	const struct kvb_tb *a = x, *b = y;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	return a->insns < b->insns ? -1 : a->insns > b->insns;
}

int kvb_tb_dump_read(const char *path, struct kvb_tb_dump *d, struct kvb_error *err)
{
	FILE *f = fopen(path, "r");
	char line[256];
	size_t alloc = 0, lineno = 0, k = 0;
	memset(d, 0, sizeof(*d));
	if (!f)
		return kvb_error_set(err, KVB_EINPUT, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		struct kvb_tb t;
		lineno++;
		if (sscanf(line, "%" SCNx64 " %" SCNx64 " %" SCNu64 " %" SCNu64, &t.start, &t.end, &t.insns, &t.execs) !=
			    4 ||
		    t.end <= t.start || !t.insns) {
			fclose(f);
			kvb_tb_dump_release(d);
			return kvb_error_set(err, KVB_EINPUT, "%s:%zu: expected START END INSNS EXECS (hex, hex, >0, n)", path,
					     lineno);
		}
		if (d->n == alloc) {
			alloc = alloc ? 2 * alloc : 4096;
			d->v = kvb_xrealloc(d->v, alloc * sizeof(*d->v));
		}
		d->v[d->n++] = t;
	}
	fclose(f);
	/* translations of the same block (re-translated after a flush) are one block */
	if (d->n)
		qsort(d->v, d->n, sizeof(*d->v), by_block);
	for (size_t i = 0; i < d->n; i++) {
		if (k && !by_block(&d->v[k - 1], &d->v[i]))
			d->v[k - 1].execs += d->v[i].execs;
		else
			d->v[k++] = d->v[i];
	}
	d->n = k;
	return KVB_OK;
}

void kvb_tb_dump_release(struct kvb_tb_dump *d)
{
	free(d->v);
	memset(d, 0, sizeof(*d));
}

/* A symbol table's functions, by address. */
struct sym {
	uint64_t addr;
	const char *name; /* points into names */
	const char *dso;  /* "[kernel.kallsyms]" or "[MODULE]" */
};

/* A linker's marker ("__sched_text_start", "_stext", "__irqentry_text_end") shares its address
 * with a function: the marker sorts first, so the function is the one found. */
static int marker(const char *name)
{
	size_t n = strlen(name);
	return (n > 6 && !strcmp(name + n - 6, "_start")) || (n > 4 && !strcmp(name + n - 4, "_end")) ||
	       !strcmp(name, "_stext") || !strcmp(name, "_text");
}

static int by_addr(const void *x, const void *y)
{
	const struct sym *a = x, *b = y;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (marker(a->name) != marker(b->name))
		return marker(a->name) ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* Parses kallsyms text into s (names copied into *store, one NUL-separated buffer). */
static size_t read_syms(const char *text, struct sym **s, char **store)
{
	size_t n = 0, alloc = 0, len = strlen(text), used = 0;
	char *buf = kvb_xmalloc(len + 1);
	for (const char *l = text; *l;) {
		size_t ll = strcspn(l, "\n");
		char type, name[512], mod[256] = "";
		unsigned long long addr;
		char *line = kvb_xstrndup(l, ll);
		int got = sscanf(line, "%llx %c %511s %255s", &addr, &type, name, mod);
		free(line);
		l += ll + (l[ll] == '\n');
		if (got < 3 || !strchr("tTwW", type))
			continue;
		if (n == alloc) {
			alloc = alloc ? 2 * alloc : 1024;
			*s = kvb_xrealloc(*s, alloc * sizeof(**s));
		}
		(*s)[n].addr = addr;
		(*s)[n].name = buf + used;
		used += (size_t)snprintf(buf + used, len + 1 - used, "%s", name) + 1;
		(*s)[n].dso = NULL;
		if (mod[0] == '[') {
			(*s)[n].dso = buf + used;
			used += (size_t)snprintf(buf + used, len + 1 - used, "%s", mod) + 1;
		}
		n++;
	}
	*store = buf;
	if (n)
		qsort(*s, n, sizeof(**s), by_addr);
	return n;
}

/* The last symbol at or below addr among s[lo, hi), or -1. */
static long find(const struct sym *s, size_t lo, size_t hi, uint64_t addr)
{
	long r = -1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s[mid].addr <= addr) {
			r = (long)mid;
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return r;
}

struct row {
	char *key; /* "dso\tsymbol" */
	char mode;
	int resolved;
	uint64_t n;
};

static int by_key(const void *x, const void *y)
{
	return strcmp(((const struct row *)x)->key, ((const struct row *)y)->key);
}

static int by_count(const void *x, const void *y)
{
	const struct kvb_profile_sym *a = x, *b = y;
	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	return strcmp(a->symbol, b->symbol);
}

/* The executions of block b in dump a (0 when a has none). */
static uint64_t execs_in(const struct kvb_tb_dump *a, const struct kvb_tb *b)
{
	size_t lo = 0, hi = a ? a->n : 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = by_block(&a->v[mid], b);
		if (!c)
			return a->v[mid].execs;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

struct kvb_profile *kvb_tb_window_profile(const struct kvb_tb_dump *a, const struct kvb_tb_dump *b, const char *syms,
					  struct kvb_tb_window *w, char *why, size_t whyn)
{
	struct sym *s = NULL;
	char *store = NULL;
	size_t ns = read_syms(syms ? syms : "", &s, &store), nk, nr = 0, ar = 0;
	struct row *r = NULL;
	struct kvb_profile *p;

	memset(w, 0, sizeof(*w));
	if (!ns) {
		snprintf(why, whyn, "the symbol table has no function (no line \"ADDRESS t|T|w|W NAME\")");
		free(store);
		return NULL;
	}
	nk = (size_t)(find(s, 0, ns, KVB_TB_KERNEL_BASE - 1) + 1); /* s[0, nk): user space, s[nk, ns): kernel */
	for (size_t i = 0; i < b->n; i++) {
		const struct kvb_tb *t = &b->v[i];
		uint64_t before = execs_in(a, t), ins;
		int kernel = t->start >= KVB_TB_KERNEL_BASE;
		size_t lo = kernel ? nk : 0, hi = kernel ? ns : nk;
		long k;
		char *key;
		if (t->execs < before) {
			w->negative += before - t->execs;
			continue;
		}
		if (t->execs == before)
			continue;
		ins = (t->execs - before) * t->insns;
		w->instructions += ins;
		k = find(s, lo, hi, t->start);
		if (kernel)
			w->kernel += ins;
		if (k >= 0) {
			if (kernel)
				w->resolved += ins;
			if ((size_t)k + 1 < hi && s[k + 1].addr < t->end)
				w->crossing += ins;
			key = kvb_xasprintf("%s\t%s", s[k].dso ? s[k].dso : kernel ? "[kernel.kallsyms]" : "[program]",
					    s[k].name);
		} else if (kernel) {
			key = kvb_xasprintf("[kernel.kallsyms]\t0x%" PRIx64, t->start);
		} else {
			key = kvb_xstrdup("[user]\t(user space)");
		}
		if (nr == ar) {
			ar = ar ? 2 * ar : 1024;
			r = kvb_xrealloc(r, ar * sizeof(*r));
		}
		r[nr].key = key;
		r[nr].mode = kernel ? 'k' : '.';
		r[nr].resolved = k >= 0 || !kernel;
		r[nr].n = ins;
		nr++;
	}
	free(s);
	free(store);
	p = kvb_xcalloc(1, sizeof(*p));
	p->event = kvb_xstrdup(KVB_TB_EVENT);
	p->period = 1;
	p->unit = "instructions";
	p->lost = 0;
	if (nr)
		qsort(r, nr, sizeof(*r), by_key);
	for (size_t i = 0; i < nr; i++) {
		struct kvb_profile_sym *ps;
		char *tab;
		if (p->n && i && !strcmp(r[i - 1].key, r[i].key)) {
			p->v[p->n - 1].samples += r[i].n;
			continue;
		}
		if (p->n == p->alloc) {
			p->alloc = p->alloc ? 2 * p->alloc : 256;
			p->v = kvb_xrealloc(p->v, p->alloc * sizeof(*p->v));
		}
		ps = &p->v[p->n++];
		tab = strchr(r[i].key, '\t');
		ps->dso = kvb_xstrndup(r[i].key, (size_t)(tab - r[i].key));
		ps->symbol = kvb_xstrdup(tab + 1);
		ps->mode = r[i].mode;
		ps->resolved = r[i].resolved;
		ps->samples = r[i].n;
	}
	for (size_t i = 0; i < nr; i++)
		free(r[i].key);
	free(r);
	if (p->n)
		qsort(p->v, p->n, sizeof(*p->v), by_count);
	p->samples = w->instructions;
	p->event_count = w->instructions;
	p->kernel_samples = w->kernel;
	p->kernel_resolved = w->resolved;
	return p;
}
