/*
 * Small helpers used everywhere: allocation that aborts on out-of-memory
 * (a harness cannot do anything useful without memory; git does the same),
 * string vectors, time in nanoseconds, number parsing.
 */
#ifndef KVB_UTIL_H
#define KVB_UTIL_H

#include "core/error.h"

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

void *kvb_xmalloc(size_t n);
void *kvb_xcalloc(size_t n, size_t size);
void *kvb_xrealloc(void *p, size_t n);
char *kvb_xstrdup(const char *s);
char *kvb_xstrndup(const char *s, size_t n);
char *kvb_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define KVB_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* NULL-terminated vector of owned strings; usable directly as an argv. */
struct kvb_strv {
	char **v;
	size_t n;
	size_t alloc;
};
#define KVB_STRV_INIT { 0 }
void kvb_strv_push(struct kvb_strv *s, const char *str);
void kvb_strv_pushf(struct kvb_strv *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void kvb_strv_release(struct kvb_strv *s);
/* Argv view: never NULL, always NULL-terminated. */
const char *const *kvb_strv_argv(struct kvb_strv *s);

/* CLOCK_MONOTONIC in ns (durations). */
uint64_t kvb_mono_ns(void);
/* CLOCK_REALTIME in ns since the epoch (timestamps stored in the DB). */
int64_t kvb_wall_ns(void);
void kvb_sleep_ms(uint64_t ms);

/* Strict parsers: the whole string must be a number. Return KVB_OK, or KVB_EINPUT (no message: the caller names the value). */
enum kvb_err kvb_parse_i64(const char *s, int64_t *out);
enum kvb_err kvb_parse_double(const char *s, double *out);

/* mkdir -p; returns 0 or -1 with errno. */
int kvb_mkdir_p(const char *path, unsigned mode);
/* 1 when path (symlinks followed) is a directory / a regular file, else 0 (also when stat fails). */
int kvb_is_dir(const char *path);
int kvb_is_file(const char *path);
/* Copies a file; returns 0 or -1 with errno. */
int kvb_copy_file(const char *src, const char *dst);

/*
 * A name from an agenda or a board (variant name, spec id) made safe as ONE
 * path component under the output directory: every byte other than
 * [A-Za-z0-9._+-] becomes '_', a leading '.' becomes '_' (so no "." / ".."
 * and no hidden file), an empty name gives "_", and at most 64 bytes are
 * kept. Different names can map to the same component (the caller adds a
 * number where that matters). Owned.
 */
char *kvb_path_component(const char *name);
/*
 * mkdir of one level (the parent must exist) that also accepts an existing
 * directory, but refuses a symlink (errno ELOOP) or another kind of file
 * (ENOTDIR) at path: nothing gets written through a link planted in the
 * output directory. Returns 0 or -1 with errno.
 */
int kvb_mkdir_nofollow(const char *path, unsigned mode);
/*
 * fopen(path, "w") that refuses to follow a symlink at path (errno ELOOP)
 * and creates the file 0644. For artifacts written into the output directory.
 */
FILE *kvb_fopen_nofollow(const char *path);
/*
 * The 1-based line and column of byte offset off in text[0..len) (a column counts bytes; an
 * offset past len stops at len): where a parser's error offset points, for "file:line:col".
 */
void kvb_line_col(const char *text, size_t len, size_t off, int *line, int *col);

#endif
