/* SHA-256 of files and memory, via OpenSSL's EVP interface (libcrypto). */
#ifndef KVB_SHA256_H
#define KVB_SHA256_H

#include <stddef.h>
#include <stdint.h>

/* hex receives 64 lowercase hex digits + NUL; bytes (may be NULL) the file size. Returns 0 or -1 (errno). */
int kvb_sha256_file(const char *path, char hex[65], int64_t *bytes);
void kvb_sha256_mem(const void *data, size_t n, char hex[65]);

#endif
