/* Implements the LAVA console marker protocol: the test shell's steps and the reader of the job log (lava_markers.h). */
#include "target/lava_markers.h"
#include "config/keys.h"
#include "core/sha256.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

int kvb_lava_nonce(char out[KVB_LAVA_NONCE_LEN + 1])
{
	unsigned char rnd[KVB_LAVA_NONCE_LEN / 2];
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return -1;
	for (size_t i = 0; i < sizeof(rnd); i++)
		snprintf(out + 2 * i, 3, "%02x", rnd[i]);
	return 0;
}

char *kvb_lava_shell_prelude(const char *nonce, int console_loglevel)
{
	struct kvb_buf b = KVB_BUF_INIT;
	/* one line of POSIX sh (dash, busybox ash): LAVA writes each step as a line of its run.sh, and the
	 * functions stay defined for the steps after it. wc -c through $((...)): busybox pads the number. */
	kvb_buf_addf(&b, "KVB_N=%s; kvb_bad=; ", nonce);
	kvb_buf_adds(&b, "kvb_sum() { kvb_s=$(sha256sum <\"$1\" 2>/dev/null) && echo \"${kvb_s%% *}\" || echo -; }; ");
	kvb_buf_adds(&b, "kvb_x() { kvb_k=$1; kvb_l=$2; shift 2; echo \"KVB-$KVB_N $kvb_k BEGIN\"; "
			 "\"$@\" </dev/null >/tmp/kvb-o 2>/tmp/kvb-e && kvb_rc=0 || kvb_rc=$?; "
			 "[ \"$kvb_rc\" -eq 0 ] || kvb_bad=\"$kvb_bad $kvb_l \"; "
			 "sed \"s/^/KVB-$KVB_N $kvb_k O /\" /tmp/kvb-o; echo; "
			 "sed \"s/^/KVB-$KVB_N $kvb_k E /\" /tmp/kvb-e; echo; "
			 "echo \"KVB-$KVB_N $kvb_k RC $kvb_rc $(($(wc -c </tmp/kvb-o))) $(kvb_sum /tmp/kvb-o) "
			 "$(($(wc -c </tmp/kvb-e))) $(kvb_sum /tmp/kvb-e)\"; echo \"KVB-$KVB_N $kvb_k END\"; }");
	if (console_loglevel > 0)
		/* printk off the console while the test shell prints markers (kernelci-core PR #559) */
		kvb_buf_addf(&b,
			     "; dmesg -n %d 2>/dev/null || busybox dmesg -n %d 2>/dev/null || "
			     "echo \"KVB-$KVB_N - NOTE dmesg -n %d failed: kernel messages may reach the console\"",
			     console_loglevel, console_loglevel, console_loglevel);
	return kvb_buf_detach(&b);
}

char *kvb_lava_shell_step(size_t k, const char *label, const char *argv_sh)
{
	return kvb_xasprintf("kvb_x %zu %s %s", k, label, argv_sh);
}

int64_t kvb_lava_dt_ns(const char *dt)
{
	struct tm tm;
	const char *rest;
	int64_t ns = 0, scale = 100000000;
	time_t t;
	memset(&tm, 0, sizeof(tm));
	if (!dt || !(rest = strptime(dt, "%Y-%m-%dT%H:%M:%S", &tm)))
		return 0;
	if (*rest == '.')
		for (rest++; *rest >= '0' && *rest <= '9' && scale; rest++, scale /= 10)
			ns += (*rest - '0') * scale;
	if ((t = timegm(&tm)) == (time_t)-1)
		return 0;
	return (int64_t)t * 1000000000 + ns;
}

void kvb_lava_reader_init(struct kvb_lava_reader *r, const char *nonce,
			  void (*cb)(void *arg, const struct kvb_lava_cmd_out *c), void *arg)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->prefix, sizeof(r->prefix), "KVB-%.*s ", KVB_LAVA_NONCE_LEN, nonce);
	r->cb = cb;
	r->arg = arg;
	r->k = -1;
}

void kvb_lava_reader_release(struct kvb_lava_reader *r)
{
	kvb_strv_release(&r->lines);
	kvb_strv_release(&r->notes);
	r->k = -1;
}

/* Where a kernel message ("[ 12.345678] ", printk's time prefix) starts in s, or -1. */
static long printk_at(const char *s, int at_start)
{
	static const char *const re = "\\[ *[0-9]+\\.[0-9]{6}\\] ";
	regex_t rx;
	regmatch_t m;
	long at = -1;
	if (regcomp(&rx, re, REG_EXTENDED))
		return -1;
	if (!regexec(&rx, s, 1, &m, 0) && (!at_start || m.rm_so == 0))
		at = (long)m.rm_so;
	regfree(&rx);
	return at;
}

/* lines[i] as kind and text ("<kind><text>"). */
#define KIND(r, i) ((r)->lines.v[i][0])
#define TEXT(r, i) ((r)->lines.v[i] + 1)

/*
 * The contents of the lines of one kind, joined with '\n' after each; with
 * repair, a kernel message inside such a line is cut out and the line joined
 * with its continuation (the next line that is not itself a kernel message).
 * *repaired counts the cuts.
 */
static void gather(const struct kvb_lava_reader *r, char kind, int repair, struct kvb_buf *out, unsigned *repaired)
{
	size_t n = r->lines.n;
	char *used = kvb_xcalloc(n + 1, 1);
	kvb_buf_reset(out);
	for (size_t i = 0; i < n; i++) {
		long p;
		size_t j;
		if (KIND(r, i) != kind || used[i])
			continue;
		if (repair && (p = printk_at(TEXT(r, i), 0)) >= 0) {
			for (j = i + 1; j < n && KIND(r, j) == 'U' && printk_at(TEXT(r, j), 1) == 0; j++)
				;
			if (j < n && KIND(r, j) == 'U' && !used[j]) {
				kvb_buf_add(out, TEXT(r, i), (size_t)p);
				kvb_buf_adds(out, TEXT(r, j));
				kvb_buf_addc(out, '\n');
				used[j] = 1;
				(*repaired)++;
				continue;
			}
		}
		kvb_buf_adds(out, TEXT(r, i));
		kvb_buf_addc(out, '\n');
	}
	free(used);
}

/* Does b match the board's byte count and sha256 ("-": none)? The last '\n' is dropped when the file had none. */
static int witnessed(struct kvb_buf *b, uint64_t len, const char *sum)
{
	char hex[65];
	if (b->len == len + 1 && b->data[b->len - 1] == '\n')
		b->data[--b->len] = '\0';
	if (b->len != len)
		return 0;
	if (!strcmp(sum, "-"))
		return 1;
	kvb_sha256_mem(b->data, b->len, hex);
	return !strcmp(hex, sum);
}

/* A decimal field of at most maxd digits, whole. */
static int parse_uint(const char *s, size_t n, size_t maxd, uint64_t *v)
{
	if (!n || n > maxd)
		return -1;
	*v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		*v = *v * 10 + (uint64_t)(s[i] - '0');
	}
	return 0;
}

struct rc_line {
	int rc;
	uint64_t olen, elen;
	char osum[65], esum[65];
};

/* "<status> <out bytes> <out sha256|-> <err bytes> <err sha256|->", strictly: status 0..255, nothing else on the line. */
static int parse_rc(const char *s, struct rc_line *o)
{
	const char *f[5];
	size_t len[5], nf = 0;
	uint64_t v;
	while (*s && nf < 5) {
		const char *e = strchr(s, ' ');
		f[nf] = s;
		len[nf] = e ? (size_t)(e - s) : strlen(s);
		nf++;
		s += len[nf - 1];
		if (*s == ' ')
			s++;
		else
			break;
	}
	if (nf != 5 || *s)
		return -1;
	if (parse_uint(f[0], len[0], 3, &v) || v > 255)
		return -1;
	o->rc = (int)v;
	if (parse_uint(f[1], len[1], 19, &o->olen) || parse_uint(f[3], len[3], 19, &o->elen))
		return -1;
	for (int i = 2; i <= 4; i += 2) {
		char *dst = i == 2 ? o->osum : o->esum;
		if (len[i] == 1 && f[i][0] == '-') {
			strcpy(dst, "-");
			continue;
		}
		if (len[i] != 64)
			return -1;
		for (size_t c = 0; c < 64; c++)
			if (!((f[i][c] >= '0' && f[i][c] <= '9') || (f[i][c] >= 'a' && f[i][c] <= 'f')))
				return -1;
		memcpy(dst, f[i], 64);
		dst[64] = '\0';
	}
	return 0;
}

/* The open command is complete (its END, the next BEGIN, or the end of the log): judge it and report it. */
static void close_cmd(struct kvb_lava_reader *r, int ended)
{
	struct kvb_lava_cmd_out c;
	struct rc_line rl;
	struct kvb_buf out = KVB_BUF_INIT, err = KVB_BUF_INIT, why = KVB_BUF_INIT;
	const char *rct = NULL;
	long ri = -1;
	int ok = 0;
	if (r->k < 0)
		return;
	memset(&c, 0, sizeof(c));
	c.k = (size_t)r->k;
	c.begin_ns = r->begin_ns;
	c.end_ns = r->last_ns;
	for (size_t i = 0; i < r->lines.n; i++)
		if (KIND(r, i) == 'R')
			ri = (long)i;
	if (ri < 0) {
		kvb_buf_addf(&why, "no exit status line%s", ended ? "" : " and no END marker");
	} else {
		rct = TEXT(r, ri);
		ok = !parse_rc(rct, &rl);
		if (!ok) {
			/* a kernel message inside the RC line: cut out, joined with its continuation, parsed again */
			long p = printk_at(rct, 0);
			size_t j;
			for (j = (size_t)ri + 1; p >= 0 && j < r->lines.n && KIND(r, j) == 'U' && printk_at(TEXT(r, j), 1) == 0;
			     j++)
				;
			if (p >= 0 && j < r->lines.n && KIND(r, j) == 'U') {
				char *joined = kvb_xasprintf("%.*s%s", (int)p, rct, TEXT(r, j));
				if ((ok = !parse_rc(joined, &rl)))
					c.repaired++;
				free(joined);
			}
		}
		if (!ok)
			kvb_buf_addf(&why, "its exit status line cannot be read: '%s RC %.200s'", r->prefix, rct);
	}
	if (ok) {
		unsigned rep = 0;
		gather(r, 'O', 0, &out, &rep);
		if (!witnessed(&out, rl.olen, rl.osum) && strcmp(rl.osum, "-")) {
			gather(r, 'O', 1, &out, &rep);
			if (!witnessed(&out, rl.olen, rl.osum))
				rep = 0, ok = 0;
		} else if (!witnessed(&out, rl.olen, rl.osum)) {
			ok = 0;
		}
		if (!ok)
			kvb_buf_addf(&why, "its stdout as logged (%zu bytes) is not what the board wrote (%llu bytes%s%s)",
				     out.len, (unsigned long long)rl.olen, strcmp(rl.osum, "-") ? ", sha256 " : "",
				     strcmp(rl.osum, "-") ? rl.osum : "");
		c.repaired += rep;
	}
	if (ok) {
		unsigned rep = 0;
		gather(r, 'E', 0, &err, &rep);
		if (!witnessed(&err, rl.elen, rl.esum) && strcmp(rl.esum, "-")) {
			gather(r, 'E', 1, &err, &rep);
			if (!witnessed(&err, rl.elen, rl.esum))
				rep = 0, ok = 0;
		} else if (!witnessed(&err, rl.elen, rl.esum)) {
			ok = 0;
		}
		if (!ok)
			kvb_buf_addf(&why, "its stderr as logged (%zu bytes) is not what the board wrote (%llu bytes)",
				     err.len, (unsigned long long)rl.elen);
		c.repaired += rep;
	}
	if (ok) {
		c.rc = rl.rc;
		c.out = out.data;
		c.err = err.data;
	} else {
		c.rc = -1;
		c.out = c.err = "";
		c.repaired = 0;
		kvb_buf_adds(&why, " (garbled on the console: kernel messages interleaved with the test shell?)");
		c.bad = why.data;
	}
	r->cb(r->arg, &c);
	r->ncomplete++;
	kvb_buf_release(&out);
	kvb_buf_release(&err);
	kvb_buf_release(&why);
	kvb_strv_release(&r->lines);
	r->k = -1;
}

void kvb_lava_reader_flush(struct kvb_lava_reader *r)
{
	close_cmd(r, 0);
}

void kvb_lava_reader_feed(struct kvb_lava_reader *r, const cJSON *entries)
{
	const size_t plen = strlen(r->prefix);
	const cJSON *e;
	cJSON_ArrayForEach(e, entries)
	{
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(e, "msg");
		const char *line, *rest;
		char *end, *text;
		size_t len;
		long k;
		if (!cJSON_IsString(m) || strcmp(kvb_get_str(e, "lvl", ""), "target"))
			continue;
		if (r->k >= 0) {
			int64_t t = kvb_lava_dt_ns(kvb_get_str(e, "dt", NULL));
			if (t)
				r->last_ns = t;
		}
		line = m->valuestring;
		len = strlen(line);
		while (len && (line[len - 1] == '\r' || line[len - 1] == '\n'))
			len--;
		text = kvb_xstrndup(line, len);
		if (strncmp(text, r->prefix, plen)) {
			if (r->k >= 0)
				kvb_strv_pushf(&r->lines, "U%s", text);
			free(text);
			continue;
		}
		rest = text + plen;
		if (rest[0] == '-' && rest[1] == ' ') {
			/* the test shell's own lines */
			if (!strncmp(rest + 2, "NOTE ", 5))
				kvb_strv_push(&r->notes, rest + 7);
			else if (!strcmp(rest + 2, "WAIT")) {
				close_cmd(r, 0);
				r->waiting = 1;
			}
			free(text);
			continue;
		}
		k = (rest[0] >= '0' && rest[0] <= '9') ? strtol(rest, &end, 10) : -1;
		if (k < 0 || *end != ' ') {
			if (r->k >= 0)
				kvb_strv_pushf(&r->lines, "U%s", text); /* a marker garbled before its kind */
			free(text);
			continue;
		}
		rest = end + 1;
		if (!strcmp(rest, "BEGIN")) {
			close_cmd(r, 0);
			r->k = k;
			r->begin_ns = r->last_ns = kvb_lava_dt_ns(kvb_get_str(e, "dt", NULL));
		} else if (k != r->k) {
			if (r->k >= 0)
				kvb_strv_pushf(&r->lines, "U%s", text);
		} else if ((rest[0] == 'O' || rest[0] == 'E') && (rest[1] == ' ' || !rest[1])) {
			kvb_strv_pushf(&r->lines, "%c%s", rest[0], rest[1] ? rest + 2 : "");
		} else if (!strncmp(rest, "RC ", 3)) {
			kvb_strv_pushf(&r->lines, "R%s", rest + 3);
		} else if (!strcmp(rest, "END")) {
			close_cmd(r, 1);
		} else {
			kvb_strv_pushf(&r->lines, "U%s", text);
		}
		free(text);
	}
}
