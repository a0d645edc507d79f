/* Implements SHA-256 digests with OpenSSL EVP (no hand-written hash). */
#include "core/sha256.h"

#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>

static void to_hex(const unsigned char *d, unsigned n, char hex[65])
{
	static const char x[] = "0123456789abcdef";
	for (unsigned i = 0; i < n && i < 32; i++) {
		hex[2 * i] = x[d[i] >> 4];
		hex[2 * i + 1] = x[d[i] & 15];
	}
	hex[64] = '\0';
}

int kvb_sha256_file(const char *path, char hex[65], int64_t *bytes)
{
	unsigned char md[EVP_MAX_MD_SIZE], buf[1 << 16];
	unsigned mdlen = 0;
	size_t n;
	int64_t total = 0;
	FILE *f = fopen(path, "rb");
	EVP_MD_CTX *c;
	if (!f)
		return -1;
	c = EVP_MD_CTX_new();
	EVP_DigestInit_ex(c, EVP_sha256(), NULL);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		EVP_DigestUpdate(c, buf, n);
		total += (int64_t)n;
	}
	int bad = ferror(f);
	fclose(f);
	EVP_DigestFinal_ex(c, md, &mdlen);
	EVP_MD_CTX_free(c);
	if (bad) {
		errno = EIO;
		return -1;
	}
	to_hex(md, mdlen, hex);
	if (bytes)
		*bytes = total;
	return 0;
}

void kvb_sha256_mem(const void *data, size_t n, char hex[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned mdlen = 0;
	EVP_Digest(data, n, md, &mdlen, EVP_sha256(), NULL);
	to_hex(md, mdlen, hex);
}
