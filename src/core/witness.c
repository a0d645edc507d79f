/* Implements the witness list a job fills (docs/design.md#witnesses). */
#include "core/witness.h"
#include "core/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kvb_witnesses_init(struct kvb_witnesses *w)
{
	memset(w, 0, sizeof(*w));
}

static void witness_free(struct kvb_witness *x)
{
	free(x->kind);
	free(x->subject);
	free(x->expected);
	free(x->observed);
	free(x->detail);
}

void kvb_witnesses_release(struct kvb_witnesses *w)
{
	for (size_t i = 0; i < w->n; i++)
		witness_free(&w->v[i]);
	free(w->v);
	kvb_witnesses_init(w);
}

static struct kvb_witness *grow(struct kvb_witnesses *w)
{
	if (w->n == w->alloc) {
		w->alloc = w->alloc ? 2 * w->alloc : 8;
		w->v = kvb_xrealloc(w->v, w->alloc * sizeof(*w->v));
	}
	return memset(&w->v[w->n++], 0, sizeof(*w->v));
}

struct kvb_witness *kvb_witness_add(struct kvb_witnesses *w, const char *kind, const char *subject, const char *expected,
				    const char *observed, enum kvb_witness_verdict verdict, const char *detail_fmt, ...)
{
	struct kvb_witness *x = grow(w);
	x->kind = kvb_xstrdup(kind ? kind : "");
	x->subject = kvb_xstrdup(subject ? subject : "");
	x->expected = expected ? kvb_xstrdup(expected) : NULL;
	x->observed = observed ? kvb_xstrdup(observed) : NULL;
	x->verdict = verdict;
	x->t_ns = kvb_wall_ns();
	if (detail_fmt) {
		va_list ap;
		va_start(ap, detail_fmt);
		if (vasprintf(&x->detail, detail_fmt, ap) < 0)
			abort();
		va_end(ap);
	}
	return x;
}

void kvb_witnesses_move(struct kvb_witnesses *dst, struct kvb_witnesses *src)
{
	for (size_t i = 0; i < src->n; i++)
		*grow(dst) = src->v[i];
	free(src->v);
	kvb_witnesses_init(src);
}

const char *kvb_witness_verdict_name(enum kvb_witness_verdict v)
{
	static const char *const names[] = { "ok", "recorded", "changed", "disturbed", "refused", "failed" };
	return (unsigned)v < sizeof(names) / sizeof(names[0]) ? names[v] : "unknown";
}

size_t kvb_witnesses_count(const struct kvb_witnesses *w, enum kvb_witness_verdict v)
{
	size_t n = 0;
	for (size_t i = 0; i < w->n; i++)
		n += w->v[i].verdict == v;
	return n;
}

char *kvb_witness_describe(const struct kvb_witness *w)
{
	if (w->detail)
		return kvb_xasprintf("%s %s: %s", w->kind, w->subject, w->detail);
	return kvb_xasprintf("%s %s: expected %s, found %s (%s)", w->kind, w->subject, w->expected ? w->expected : "-",
			     w->observed ? w->observed : "(unreadable)", kvb_witness_verdict_name(w->verdict));
}
