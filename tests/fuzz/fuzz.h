/*
 * Helpers shared by the libFuzzer targets (tests/fuzz/fuzz_<name>.c, built with
 * -DKVB_FUZZ=ON and clang): a NUL-terminated copy of the input, and a private
 * temp directory for targets whose code under test reads a file.
 *
 * Every target is one LLVMFuzzerTestOneInput() calling the same public
 * function the CLI calls; a target never checks results (the sanitizers and
 * libFuzzer's leak, timeout and crash detection are the oracle), it only
 * releases what the call returned so that LeakSanitizer sees real leaks.
 */
#ifndef KVB_FUZZ_H
#define KVB_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Owned NUL-terminated copy of data (the parsers take C strings). */
static inline char *kvb_fuzz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* A directory private to this process, made once ($TMPDIR or /tmp), never removed while fuzzing. */
static inline const char *kvb_fuzz_dir(void)
{
	static char dir[4096];
	if (!dir[0]) {
		const char *t = getenv("TMPDIR");
		snprintf(dir, sizeof(dir), "%s/kvb-fuzz.XXXXXX", t && *t ? t : "/tmp");
		if (!mkdtemp(dir))
			abort();
	}
	return dir;
}

/* Writes data to DIR/name (replacing it) and returns the path (static buffer). Aborts on I/O errors. */
static inline const char *kvb_fuzz_file(const char *name, const uint8_t *data, size_t size)
{
	static char path[4200];
	FILE *f;
	snprintf(path, sizeof(path), "%s/%s", kvb_fuzz_dir(), name);
	f = fopen(path, "wb");
	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f))
		abort();
	return path;
}

#endif
