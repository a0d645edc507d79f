/* Implements slicing a job's kernel log out of /dev/kmsg records and dmesg text (kmsg.h). */
#include "instrument/kmsg.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

/* "PRIO,SEQ,TS,FLAGS[,...];MSG" -> r (msg borrowed from line, len *msg_len). 0, or -1 when not a record. */
static int parse_record(const char *l, size_t n, struct kvb_kmsg_rec *r, const char **msg, size_t *msg_len)
{
	unsigned long long v[3];
	const char *p = l, *end = l + n, *semi = memchr(l, ';', n);
	if (!semi)
		return -1;
	for (int i = 0; i < 3; i++) {
		char *e;
		if (p >= semi || *p < '0' || *p > '9')
			return -1;
		v[i] = strtoull(p, &e, 10);
		if (e > semi || (*e != ',' && *e != ';'))
			return -1;
		p = e + 1;
	}
	r->prio = (int)v[0];
	r->seq = v[1];
	r->ts_us = v[2];
	*msg = semi + 1;
	*msg_len = (size_t)(end - semi - 1);
	return 0;
}

static int cmp_seq(const void *a, const void *b)
{
	const struct kvb_kmsg_rec *x = a, *y = b;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int is_msg(const char *msg, size_t n, const char *marker)
{
	return marker && strlen(marker) == n && !memcmp(msg, marker, n);
}

void kvb_kmsg_slice(const char *text, const char *start_marker, const char *stop_marker, struct kvb_kmsg_job *out)
{
	struct kvb_kmsg_rec *all = NULL;
	size_t n = 0, alloc = 0, k = 0;
	memset(out, 0, sizeof(*out));
	for (const char *l = text; l && *l;) {
		size_t len = strcspn(l, "\n");
		struct kvb_kmsg_rec r;
		const char *msg;
		size_t mlen;
		/* a record's line ends with its newline: a last line without one was cut by the kill */
		if (l[len] == '\n' && l[0] != ' ' && !parse_record(l, len, &r, &msg, &mlen)) {
			if (n == alloc) {
				alloc = alloc ? 2 * alloc : 256;
				all = kvb_xrealloc(all, alloc * sizeof(*all));
			}
			r.msg = kvb_xstrndup(msg, mlen);
			all[n++] = r;
		}
		l += len + (l[len] == '\n');
	}
	out->records_read = n;
	qsort(all, n, sizeof(*all), cmp_seq);
	/* a reader that started over after EPIPE read some records twice: keep each seq once */
	for (size_t i = 0; i < n; i++) {
		if (k && all[k - 1].seq == all[i].seq) {
			free(all[i].msg);
			continue;
		}
		all[k++] = all[i];
	}
	n = k;
	if (n)
		out->first_seq = all[0].seq;
	for (size_t i = 0; i < n; i++) {
		size_t ml = strlen(all[i].msg);
		if (!out->have_start && is_msg(all[i].msg, ml, start_marker)) {
			out->have_start = 1;
			out->start_seq = all[i].seq;
		} else if (out->have_start && !out->have_stop && is_msg(all[i].msg, ml, stop_marker)) {
			out->have_stop = 1;
			out->stop_seq = all[i].seq;
		}
	}
	out->v = kvb_xcalloc(n + 1, sizeof(*out->v));
	for (size_t i = 0; i < n; i++) {
		int inside = out->have_start && all[i].seq > out->start_seq && (!out->have_stop || all[i].seq < out->stop_seq);
		if (inside)
			out->v[out->n++] = all[i];
		else
			free(all[i].msg);
	}
	free(all);
	if (out->have_start && out->have_stop) {
		uint64_t expect = out->start_seq + 1;
		for (size_t i = 0; i <= out->n; i++) {
			uint64_t next = i < out->n ? out->v[i].seq : out->stop_seq;
			if (next > expect) {
				if (!out->lost)
					out->lost_first = expect;
				out->lost += next - expect;
				out->lost_last = next - 1;
			}
			expect = next + 1;
		}
	}
}

void kvb_kmsg_job_release(struct kvb_kmsg_job *j)
{
	for (size_t i = 0; i < j->n; i++)
		free(j->v[i].msg);
	free(j->v);
	memset(j, 0, sizeof(*j));
}

/* Lines of s as (start, length) pairs; a last line without its newline counts. */
struct lines {
	const char **p;
	size_t *len;
	size_t n;
};

static void split(const char *s, struct lines *out)
{
	size_t alloc = 0;
	memset(out, 0, sizeof(*out));
	for (const char *l = s; l && *l;) {
		size_t len = strcspn(l, "\n");
		if (out->n == alloc) {
			alloc = alloc ? 2 * alloc : 256;
			out->p = kvb_xrealloc(out->p, alloc * sizeof(*out->p));
			out->len = kvb_xrealloc(out->len, alloc * sizeof(*out->len));
		}
		out->p[out->n] = l;
		out->len[out->n++] = len;
		l += len + (l[len] == '\n');
	}
}

static int same(const struct lines *a, size_t i, const struct lines *b, size_t j)
{
	return a->len[i] == b->len[j] && !memcmp(a->p[i], b->p[j], a->len[i]);
}

void kvb_dmesg_new_lines(const char *before, const char *after, struct kvb_dmesg_new *out)
{
	struct lines b, a;
	size_t m = 0, i;
	split(before, &b);
	split(after, &a);
	memset(out, 0, sizeof(*out));
	out->from = after + strlen(after);
	if (!b.n) {
		out->from = after;
		goto done;
	}
	/* nothing dropped: the start's log is a prefix of the stop's */
	for (i = 0; i < b.n && i < a.n && same(&b, i, &a, i); i++)
		;
	if (i == b.n) {
		m = b.n;
	} else {
		/* the ring buffer dropped old lines: the stop's log starts with the longest suffix of the start's */
		size_t top = a.n < b.n ? a.n : b.n;
		for (size_t p = top; p-- > 0 && !m;) {
			size_t k;
			if (!same(&a, p, &b, b.n - 1))
				continue;
			for (k = 0; k <= p && same(&a, p - k, &b, b.n - 1 - k); k++)
				;
			if (k == p + 1)
				m = p + 1;
		}
		out->dropped_old = b.n - m;
		out->start_lost = m == 0;
	}
	out->from = m < a.n ? a.p[m] : after + strlen(after);
done:
	free(b.p);
	free(b.len);
	free(a.p);
	free(a.len);
}

int kvb_dmesg_is_warning(const char *l, size_t n)
{
	static const char *const pat[] = { "WARNING", "BUG", "Oops", "cut here", "Call Trace", "general protection",
					   "Kernel panic", NULL };
	for (int i = 0; pat[i]; i++)
		if (memmem(l, n, pat[i], strlen(pat[i])))
			return 1;
	return 0;
}
