/* Implements reading a kernel image's release and version strings (bzImage header, banner search, gzip via zlib). */
#include "flash/kimage.h"
#include "core/buf.h"
#include "core/util.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define BANNER "Linux version "
/* Decompressed images are tens of MB; refuse a "kernel" that inflates past this. */
#define KIMAGE_MAX_INFLATED (512u * 1024 * 1024)

void kvb_kimage_id_release(struct kvb_kimage_id *id)
{
	if (!id)
		return;
	free(id->release);
	free(id->version);
	free(id->banner);
	memset(id, 0, sizeof(*id));
}

static uint32_t le16(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t le32(const unsigned char *p)
{
	return le16(p) | le16(p + 2) << 16;
}

int kvb_kimage_parse_version(const char *s, struct kvb_kimage_id *id, struct kvb_error *err)
{
	size_t n = strcspn(s, " \n");
	const char *p = s + n, *end;

	if (!n)
		return kvb_error_set(err, KVB_EINPUT, "no release in version string '%.80s'", s);
	while (*p == ' ')
		p++;
	while (*p == '(') {
		int depth = 0;
		for (; *p && *p != '\n'; p++) {
			if (*p == '(')
				depth++;
			else if (*p == ')' && --depth == 0)
				break;
		}
		if (*p != ')')
			return kvb_error_set(err, KVB_EINPUT, "unbalanced parentheses in version string '%.200s'", s);
		p++;
		while (*p == ' ')
			p++;
	}
	end = p + strcspn(p, "\n");
	while (end > p && (end[-1] == ' ' || end[-1] == '\r'))
		end--;
	if (end == p)
		return kvb_error_set(err, KVB_EINPUT, "no version after the release in '%.200s'", s);
	id->release = kvb_xstrndup(s, n);
	id->version = kvb_xstrndup(p, (size_t)(end - p));
	id->banner = kvb_xstrndup(s, (size_t)(end - s));
	return KVB_OK;
}

/* The bzImage kernel_version string, or NULL when data is no bzImage. Points into data. */
static const char *bzimage_string(const unsigned char *data, size_t n, size_t *len)
{
	size_t off;
	if (n < 0x210 || memcmp(data + 0x202, "HdrS", 4) || le16(data + 0x206) < 0x0200)
		return NULL;
	off = le16(data + 0x20E);
	if (!off)
		return NULL;
	off += 0x200;
	if (off >= n)
		return NULL;
	*len = strnlen((const char *)data + off, n - off);
	return (const char *)data + off;
}

/* First "Linux version X" with a plausible release (not a printf format). Points into data. */
static const char *find_banner(const unsigned char *data, size_t n, size_t *len)
{
	const size_t bl = sizeof(BANNER) - 1;
	const unsigned char *p = data, *end = data + n;
	while ((p = memmem(p, (size_t)(end - p), BANNER, bl))) {
		const unsigned char *s = p + bl;
		if (s < end && *s > ' ' && *s < 0x7f && *s != '%') {
			*len = strnlen((const char *)s, (size_t)(end - s));
			return (const char *)s;
		}
		p++;
	}
	return NULL;
}

/* Inflates a gzip stream into out (cleared first). Returns 0, or -1 with msg set. */
static enum kvb_err gunzip(const unsigned char *data, size_t n, struct kvb_buf *out, const char **msg)
{
	z_stream z;
	int zr;
	memset(&z, 0, sizeof(z));
	kvb_buf_reset(out);
	/* 16 + MAX_WBITS: expect a gzip header (zlib manual, inflateInit2). */
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
		*msg = "zlib init failed";
		return KVB_EINPUT;
	}
	z.next_in = (unsigned char *)data;
	z.avail_in = (uInt)(n > UINT32_MAX ? UINT32_MAX : n);
	do {
		kvb_buf_grow(out, 1u << 20);
		z.next_out = (unsigned char *)out->data + out->len;
		z.avail_out = (uInt)(out->cap - out->len - 1);
		zr = inflate(&z, Z_NO_FLUSH);
		out->len = (size_t)((char *)z.next_out - out->data);
		out->data[out->len] = '\0';
		if (out->len > KIMAGE_MAX_INFLATED) {
			zr = Z_MEM_ERROR;
			break;
		}
	} while (zr == Z_OK);
	inflateEnd(&z);
	/* Image.gz may carry trailing padding after the stream: Z_STREAM_END is enough. */
	if (zr != Z_STREAM_END && !(zr == Z_BUF_ERROR && out->len)) {
		*msg = zr == Z_MEM_ERROR ? "inflates past 512 MiB" : "corrupt gzip data";
		return KVB_EINPUT;
	}
	return KVB_OK;
}

int kvb_kimage_identify_mem(const unsigned char *data, size_t n, const char *name, struct kvb_kimage_id *id,
			    struct kvb_error *err)
{
	struct kvb_buf inflated = KVB_BUF_INIT;
	const char *s = NULL, *zmsg = NULL;
	char *str = NULL;
	size_t len = 0;
	int rc;

	memset(id, 0, sizeof(*id));
	if ((s = bzimage_string(data, n, &len))) {
		id->format = "bzImage";
	} else if ((s = find_banner(data, n, &len))) {
		id->format = "raw";
	} else if (n >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
		if (!gunzip(data, n, &inflated, &zmsg) && (s = find_banner((unsigned char *)inflated.data, inflated.len, &len)))
			id->format = "gzip";
	} else if (n >= 64 && !memcmp(data, "MZ", 2) && !memcmp(data + 4, "zimg", 4)) {
		size_t off = le32(data + 8), sz = le32(data + 12);
		if (strncmp((const char *)data + 24, "gzip", 32))
			zmsg = "zboot payload is not gzip";
		else if (off > n || sz > n - off)
			zmsg = "zboot payload lies outside the file";
		else if (!gunzip(data + off, sz, &inflated, &zmsg) &&
			 (s = find_banner((unsigned char *)inflated.data, inflated.len, &len)))
			id->format = "zboot";
	}
	if (!s) {
		kvb_buf_release(&inflated);
		return kvb_error_set(err, KVB_EINPUT, "'%s': no kernel version found (not a bzImage, no \"" BANNER "\"%s%s)",
				     name, zmsg ? "; " : "", zmsg ? zmsg : "");
	}
	str = kvb_xstrndup(s, len);
	kvb_buf_release(&inflated);
	rc = kvb_kimage_parse_version(str, id, err);
	free(str);
	if (rc) {
		kvb_error_prefix(err, "'%s'", name);
		kvb_kimage_id_release(id);
	}
	return rc;
}

int kvb_kimage_identify(const char *path, struct kvb_kimage_id *id, struct kvb_error *err)
{
	struct kvb_buf b = KVB_BUF_INIT;
	int rc;
	memset(id, 0, sizeof(*id));
	if (kvb_buf_read_file(&b, path))
		return kvb_error_set(err, KVB_EINPUT, "cannot read kernel image '%s': %s", path, strerror(errno));
	rc = kvb_kimage_identify_mem((const unsigned char *)b.data, b.len, path, id, err);
	kvb_buf_release(&b);
	return rc;
}
