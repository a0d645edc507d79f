/* Implements allocation, string vectors, clocks and strict number parsing. */
#include "core/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void oom(size_t n)
{
	fprintf(stderr, "kvbench: out of memory allocating %zu bytes\n", n);
	abort();
}

void *kvb_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *kvb_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom(n * size);
	return p;
}

void *kvb_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom(n);
	return q;
}

char *kvb_xstrdup(const char *s)
{
	return kvb_xstrndup(s, strlen(s));
}

char *kvb_xstrndup(const char *s, size_t n)
{
	char *p = kvb_xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *kvb_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	p = kvb_xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

void kvb_strv_push(struct kvb_strv *s, const char *str)
{
	if (s->n + 2 > s->alloc) {
		s->alloc = s->alloc ? s->alloc * 2 : 8;
		s->v = kvb_xrealloc(s->v, s->alloc * sizeof(*s->v));
	}
	s->v[s->n++] = kvb_xstrdup(str);
	s->v[s->n] = NULL;
}

void kvb_strv_pushf(struct kvb_strv *s, const char *fmt, ...)
{
	va_list ap;
	char tmp[4096];
	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	kvb_strv_push(s, tmp);
}

void kvb_strv_release(struct kvb_strv *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = s->alloc = 0;
}

const char *const *kvb_strv_argv(struct kvb_strv *s)
{
	static const char *const empty[] = { NULL };
	return s->v ? (const char *const *)s->v : empty;
}

uint64_t kvb_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int64_t kvb_wall_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

void kvb_sleep_ms(uint64_t ms)
{
	struct timespec ts = { .tv_sec = (time_t)(ms / 1000), .tv_nsec = (long)(ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

enum kvb_err kvb_parse_i64(const char *s, int64_t *out)
{
	char *end;
	long long v;
	if (!s || !*s)
		return KVB_EINPUT;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end)
		return KVB_EINPUT;
	*out = v;
	return KVB_OK;
}

enum kvb_err kvb_parse_double(const char *s, double *out)
{
	char *end;
	double v;
	if (!s || !*s)
		return KVB_EINPUT;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end)
		return KVB_EINPUT;
	*out = v;
	return KVB_OK;
}

int kvb_is_dir(const char *path)
{
	struct stat st;
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

int kvb_is_file(const char *path)
{
	struct stat st;
	return !stat(path, &st) && S_ISREG(st.st_mode);
}

int kvb_mkdir_p(const char *path, unsigned mode)
{
	char *p = kvb_xstrdup(path);
	int rc = 0;
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, mode) && errno != EEXIST) {
			rc = -1;
			break;
		}
		*s = '/';
	}
	if (!rc && mkdir(p, mode) && errno != EEXIST)
		rc = -1;
	free(p);
	return rc;
}

int kvb_copy_file(const char *src, const char *dst)
{
	char buf[1 << 16];
	ssize_t n;
	int in = open(src, O_RDONLY | O_CLOEXEC), out, rc = 0;
	if (in < 0)
		return -1;
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		int e = errno;
		close(in);
		errno = e;
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		char *p = buf;
		while (n > 0) {
			ssize_t w = write(out, p, (size_t)n);
			if (w < 0) {
				if (errno == EINTR)
					continue;
				rc = -1;
				goto out;
			}
			p += w;
			n -= w;
		}
	}
	if (n < 0)
		rc = -1;
out:
	{
		int e = errno;
		close(in);
		if (close(out) && !rc)
			rc = -1;
		else
			errno = e;
	}
	return rc;
}

char *kvb_path_component(const char *name)
{
	size_t n = strlen(name), i;
	char *out;
	if (n > 64)
		n = 64;
	if (!n)
		return kvb_xstrdup("_");
	out = kvb_xstrndup(name, n);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)out[i];
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
		      c == '_' || c == '+' || c == '-'))
			out[i] = '_';
	}
	if (out[0] == '.')
		out[0] = '_';
	return out;
}

int kvb_mkdir_nofollow(const char *path, unsigned mode)
{
	struct stat st;
	if (!mkdir(path, mode))
		return 0;
	if (errno != EEXIST)
		return -1;
	if (lstat(path, &st))
		return -1;
	if (S_ISLNK(st.st_mode)) {
		errno = ELOOP;
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return 0;
}

FILE *kvb_fopen_nofollow(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	FILE *f;
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	if (!f)
		close(fd);
	return f;
}

void kvb_line_col(const char *text, size_t len, size_t off, int *line, int *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off && i < len; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}
