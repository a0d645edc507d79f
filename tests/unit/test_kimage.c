/* Tests reading kernel release/version from bzImage headers, raw and gzip/zboot images, and real Debian kernels. */
#include "test.h"
#include "core/util.h"
#include "flash/kimage.h"

#include <glob.h>
#include <unistd.h>
#include <stdlib.h>
#include <zlib.h>

static const char *synthetic_banner =
	"Linux version 6.6.0-rc1-kvb+ (dev@build-host) (aarch64-linux-gnu-gcc (Debian 12.2.0-14) 12.2.0, GNU ld "
	"(GNU Binutils for Debian) 2.40) #3 SMP PREEMPT Tue Jan  2 10:00:00 UTC 2024\n";

/* An image-like blob: noise, a printf-format decoy, the banner, noise. */
static unsigned char *raw_image(size_t *n)
{
	const char *decoy = "Linux version %s (%s)";
	size_t bl = strlen(synthetic_banner) + 1;
	unsigned char *b;
	*n = 100000;
	b = kvb_xmalloc(*n);
	for (size_t i = 0; i < *n; i++)
		b[i] = (unsigned char)(i * 7 + 3);
	memcpy(b + 1000, decoy, strlen(decoy) + 1);
	memcpy(b + 70000, synthetic_banner, bl);
	return b;
}

static unsigned char *gzip_buf(const unsigned char *in, size_t n, size_t *outn)
{
	z_stream z;
	unsigned char *out = kvb_xmalloc(n + 1024);
	memset(&z, 0, sizeof(z));
	/* windowBits 16 + 15: gzip wrapper. */
	CHECK(deflateInit2(&z, 6, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY) == Z_OK);
	z.next_in = (unsigned char *)in;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)(n + 1024);
	CHECK(deflate(&z, Z_FINISH) == Z_STREAM_END);
	*outn = z.total_out;
	deflateEnd(&z);
	return out;
}

static void test_kimage__reads_bzimage_setup_header(void)
{
	unsigned char img[0x2000];
	const char *s = "6.1.0-99-test (someone@example) #7 SMP PREEMPT_DYNAMIC Debian 6.1.999-1 (2030-01-01)";
	struct kvb_kimage_id id;
	struct kvb_error err = { 0 };
	memset(img, 0, sizeof(img));
	memcpy(img + 0x202, "HdrS", 4);
	img[0x206] = 0x0f; /* boot protocol 2.15 */
	img[0x207] = 0x02;
	img[0x20E] = 0x00; /* kernel_version = 0x300: the string is at 0x300 + 0x200 */
	img[0x20F] = 0x03;
	memcpy(img + 0x500, s, strlen(s) + 1);
	/* A banner elsewhere must not win over the header. */
	memcpy(img + 0x1000, "Linux version 9.9.9 (x) #1", 27);
	CHECK(kvb_kimage_identify_mem(img, sizeof(img), "bz", &id, &err) == KVB_OK);
	CHECK_STR(id.format, "bzImage");
	CHECK_STR(id.release, "6.1.0-99-test");
	CHECK_STR(id.version, "#7 SMP PREEMPT_DYNAMIC Debian 6.1.999-1 (2030-01-01)");
	kvb_kimage_id_release(&id);
}

static void test_kimage__finds_banner_skipping_builder_and_nested_compiler_parens(void)
{
	size_t n;
	unsigned char *img = raw_image(&n);
	struct kvb_kimage_id id;
	struct kvb_error err = { 0 };
	CHECK(kvb_kimage_identify_mem(img, n, "Image", &id, &err) == KVB_OK);
	CHECK_STR(id.format, "raw");
	CHECK_STR(id.release, "6.6.0-rc1-kvb+");
	CHECK_STR(id.version, "#3 SMP PREEMPT Tue Jan  2 10:00:00 UTC 2024");
	kvb_kimage_id_release(&id);
	free(img);
}

static void test_kimage__inflates_gzip_image(void)
{
	size_t n, gn;
	unsigned char *img = raw_image(&n), *gz = gzip_buf(img, n, &gn);
	unsigned char *padded = kvb_xcalloc(gn + 512, 1);
	struct kvb_kimage_id id;
	struct kvb_error err = { 0 };
	CHECK(gn < n / 2); /* really compressed: the banner is not visible as bytes */
	CHECK(kvb_kimage_identify_mem(gz, gn, "Image.gz", &id, &err) == KVB_OK);
	CHECK_STR(id.format, "gzip");
	CHECK_STR(id.release, "6.6.0-rc1-kvb+");
	kvb_kimage_id_release(&id);
	/* Trailing zero padding after the gzip member is tolerated. */
	memcpy(padded, gz, gn);
	CHECK(kvb_kimage_identify_mem(padded, gn + 512, "Image.gz+pad", &id, &err) == KVB_OK);
	CHECK_STR(id.version, "#3 SMP PREEMPT Tue Jan  2 10:00:00 UTC 2024");
	kvb_kimage_id_release(&id);
	free(padded);
	free(gz);
	free(img);
}

static void put_le32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static void test_kimage__reads_efi_zboot_gzip_payload(void)
{
	size_t n, gn, off = 4096;
	unsigned char *img = raw_image(&n), *gz = gzip_buf(img, n, &gn);
	unsigned char *z = kvb_xcalloc(off + gn + 64, 1);
	struct kvb_kimage_id id;
	struct kvb_error err = { 0 };
	memcpy(z, "MZ", 2);
	memcpy(z + 4, "zimg", 4);
	put_le32(z + 8, (uint32_t)off);
	put_le32(z + 12, (uint32_t)gn);
	memcpy(z + 24, "gzip", 4);
	memcpy(z + off, gz, gn);
	CHECK(kvb_kimage_identify_mem(z, off + gn + 64, "vmlinuz.efi", &id, &err) == KVB_OK);
	CHECK_STR(id.format, "zboot");
	CHECK_STR(id.release, "6.6.0-rc1-kvb+");
	kvb_kimage_id_release(&id);
	/* A payload size running past the end is refused with a reason. */
	put_le32(z + 12, (uint32_t)(gn + 100000));
	CHECK(kvb_kimage_identify_mem(z, off + gn + 64, "bad.efi", &id, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "outside the file");
	free(z);
	free(gz);
	free(img);
}

static void test_kimage__rejects_file_without_version(void)
{
	unsigned char junk[4096];
	struct kvb_kimage_id id;
	struct kvb_error err = { 0 };
	memset(junk, 'x', sizeof(junk));
	CHECK(kvb_kimage_identify_mem(junk, sizeof(junk), "junk.bin", &id, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "'junk.bin'");
	CHECK(id.release == NULL);
	CHECK(kvb_kimage_identify("/nonexistent/vmlinuz", &id, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "cannot read kernel image '/nonexistent/vmlinuz'");
	/* Corrupt gzip says so. */
	junk[0] = 0x1f;
	junk[1] = 0x8b;
	CHECK(kvb_kimage_identify_mem(junk, sizeof(junk), "bad.gz", &id, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "corrupt gzip");
}

static void test_kimage__parse_version_rejects_unbalanced_or_empty(void)
{
	struct kvb_kimage_id id = { 0 };
	struct kvb_error err = { 0 };
	CHECK(kvb_kimage_parse_version("6.1.0 (builder #1 SMP", &id, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "unbalanced");
	CHECK(kvb_kimage_parse_version("6.1.0 (builder)", &id, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "no version");
	CHECK(kvb_kimage_parse_version("6.1.0 #1 SMP Thu", &id, &err) == KVB_OK);
	CHECK_STR(id.release, "6.1.0");
	CHECK_STR(id.version, "#1 SMP Thu");
	kvb_kimage_id_release(&id);
}

/* The Debian kernels scripts/get-kernels downloads (scripts/test runs it first). */
static void test_kimage__reads_real_debian_vmlinuz(void)
{
	const char *dir = getenv("KVB_KERNELS_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char *pat = dir ? kvb_xasprintf("%s/*/boot/vmlinuz-*", dir)
			: xdg ? kvb_xasprintf("%s/kvbench/kernels/*/boot/vmlinuz-*", xdg)
			      : kvb_xasprintf("%s/.cache/kvbench/kernels/*/boot/vmlinuz-*", home ? home : "");
	glob_t g;
	if (glob(pat, 0, NULL, &g) || g.gl_pathc == 0) {
		fprintf(stderr, "SKIP test_kimage__reads_real_debian_vmlinuz: no kernel matches '%s' "
				"(run scripts/get-kernels)\n", pat);
		free(pat);
		return;
	}
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct kvb_kimage_id id;
		struct kvb_error err = { 0 };
		const char *kver = strrchr(g.gl_pathv[i], '/') + 1 + strlen("vmlinuz-");
		int rc = kvb_kimage_identify(g.gl_pathv[i], &id, &err);
		CHECK(rc == KVB_OK);
		if (rc) {
			fprintf(stderr, "%s\n", err.msg);
			continue;
		}
		fprintf(stderr, "  %s: release '%s' version '%s'\n", g.gl_pathv[i], id.release, id.version);
		CHECK_STR(id.format, "bzImage");
		CHECK_STR(id.release, kver);
		CHECK(!strncmp(id.version, "#1 SMP PREEMPT_DYNAMIC Debian 6.1.", 34));
		CHECK(id.version[strlen(id.version) - 1] == ')');
		kvb_kimage_id_release(&id);
	}
	globfree(&g);
	free(pat);
}

/* Writes n bytes to a new file under /tmp; returns its path (owned). */
static char *tmp_file(const void *data, size_t n)
{
	char *path = kvb_xstrdup("/tmp/kvb-kimage-XXXXXX");
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	CHECK(write(fd, data, n) == (ssize_t)n);
	close(fd);
	return path;
}

/* issue 41: `-V patch=/etc/hostname` passed every check, booted the other variant, then failed in
 * the board script: a text file, a boot image given as kernel and a kernel given as boot_image are
 * refused before any boot; a kernel format without a readable release is a note, not a refusal. */
static void test_kimage__check_refuses_what_is_not_a_kernel(void)
{
	static const char text[] = "my-hostname\n";
	unsigned char boot[4096] = "ANDROID!", zimage[0x1000], *raw;
	struct kvb_error err = { 0 };
	char *note = NULL, *p;
	size_t n;

	p = tmp_file(text, sizeof(text) - 1);
	CHECK(kvb_kimage_check(p, 0, NULL, &note, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "'");
	CHECK_CONTAINS(err.msg, "is not a kernel image: it is ASCII text");
	CHECK(!note);
	CHECK(kvb_kimage_check(p, 1, NULL, &note, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "is not an Android boot image: it is ASCII text");
	unlink(p);
	free(p);

	p = tmp_file(boot, sizeof(boot));
	CHECK(kvb_kimage_check(p, 0, NULL, &note, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "is an Android boot image, not a kernel: give it as boot_image:");
	unlink(p);
	free(p);

	/* an arm zImage (magic 0x016f2818 at 0x24) compresses its banner: booted, its release unread */
	memset(zimage, 0, sizeof(zimage));
	zimage[0x24] = 0x18;
	zimage[0x25] = 0x28;
	zimage[0x26] = 0x6f;
	zimage[0x27] = 0x01;
	p = tmp_file(zimage, sizeof(zimage));
	CHECK(kvb_kimage_check(p, 0, NULL, &note, &err) == KVB_OK);
	CHECK_CONTAINS(note, "is a kernel (Linux kernel ARM boot executable zImage");
	CHECK_CONTAINS(note, "whose release kvbench cannot read");
	free(note);
	note = NULL;
	unlink(p);
	free(p);

	/* an image with the banner: fine, no note */
	raw = raw_image(&n);
	p = tmp_file(raw, n);
	CHECK(kvb_kimage_check(p, 0, NULL, &note, &err) == KVB_OK);
	CHECK(!note);
	CHECK(kvb_kimage_check(p, 1, NULL, &note, &err) == KVB_EINPUT);
	unlink(p);
	free(p);
	free(raw);
}

/* An arm64 Image: its 64-byte header (Documentation/arch/arm64/booting.rst: code0/1, text_offset,
 * image_size, flags, res2-4, magic "ARM\x64" at 56, res5), then the banner. Owned, *n bytes. */
static unsigned char *arm64_image(size_t *n)
{
	size_t bl = strlen(synthetic_banner) + 1;
	unsigned char *b = kvb_xmalloc(8192);
	memset(b, 0, 8192);
	b[3] = 0x14;                    /* code0: b stext */
	b[9] = 0x00, b[10] = 0x08;      /* text_offset 0x80000 */
	b[18] = 0x00, b[19] = 0x01;     /* image_size 0x1000000 */
	b[24] = 0x0a;                   /* flags: little-endian, 4K pages */
	memcpy(b + 56, "ARM\x64", 4);
	memcpy(b + 4096, synthetic_banner, bl);
	*n = 4096 + bl;
	return b;
}

/* The new user's try (issue 41, left): a file that is not a kernel, or a kernel of another
 * architecture, reached an ssh-copy board. libmagic names the format and its architecture; the check
 * refuses the wrong one naming the file and what it is, also inside gzip and inside a boot image. */
static void test_kimage__check_names_format_and_refuses_other_arch(void)
{
	static const char dmesg[] = "[    0.000000] Linux version 6.1.0-kvb (t@example.com) (gcc 12) #1 SMP PREEMPT\n"
				    "[    0.000000] Command line: console=ttyS0\n";
	unsigned char *img, *gz, boot[2048 + 8192];
	struct kvb_kimage_type t;
	struct kvb_error err = { 0 };
	char *note = NULL, *p;
	size_t n, gn;

	img = arm64_image(&n);
	p = tmp_file(img, n);
	CHECK(kvb_kimage_type_file(p, &t, &err) == KVB_OK);
	CHECK(t.kind == KVB_KIMAGE_KERNEL);
	CHECK_STR(t.arch, "arm64");
	CHECK(kvb_kimage_check(p, 0, "arm64", &note, &err) == KVB_OK);
	CHECK(!note);
	CHECK(kvb_kimage_check(p, 0, "x86", &note, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, p);
	CHECK_CONTAINS(err.msg, "is a kernel for arm64 (Linux kernel ARM64 boot executable Image");
	CHECK_CONTAINS(err.msg, "the platform's arch is x86");
	unlink(p);
	free(p);

	/* Image.gz: libmagic looks inside (MAGIC_COMPRESS) */
	gz = gzip_buf(img, n, &gn);
	p = tmp_file(gz, gn);
	CHECK(kvb_kimage_check(p, 0, "arm64", &note, &err) == KVB_OK);
	CHECK(kvb_kimage_check(p, 0, "x86", &note, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "gzip compressed data");
	unlink(p);
	free(p);

	/* a boot image (v0: header page, then the kernel) holding that arm64 Image.gz */
	memset(boot, 0, sizeof(boot));
	memcpy(boot, "ANDROID!", 8);
	boot[8] = (unsigned char)gn, boot[9] = (unsigned char)(gn >> 8);
	boot[36 + 1] = 0x08; /* page_size 2048 */
	CHECK(gn <= 8192);
	memcpy(boot + 2048, gz, gn);
	p = tmp_file(boot, sizeof(boot));
	CHECK(kvb_kimage_check(p, 1, "arm64", &note, &err) == KVB_OK);
	CHECK(kvb_kimage_check(p, 1, "x86", &note, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "'s kernel is a kernel for arm64");
	CHECK(kvb_kimage_check(p, 0, "arm64", &note, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "is an Android boot image, not a kernel");
	unlink(p);
	free(p);
	free(gz);
	free(img);

	/* a kernel log holds the banner, but is text: not a kernel (the banner search alone took it) */
	p = tmp_file(dmesg, sizeof(dmesg) - 1);
	CHECK(kvb_kimage_check(p, 0, NULL, &note, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "is not a kernel image: it is ASCII text");
	unlink(p);
	free(p);

	/* a program is an ELF file too, but no vmlinux */
	CHECK(kvb_kimage_check("/bin/true", 0, NULL, &note, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "'/bin/true' is not a kernel image: it is ELF 64-bit LSB pie executable");
}

#define TESTS                                                                                  \
	T(test_kimage__check_refuses_what_is_not_a_kernel)                                     \
	T(test_kimage__check_names_format_and_refuses_other_arch)                              \
	T(test_kimage__reads_bzimage_setup_header)                                             \
	T(test_kimage__finds_banner_skipping_builder_and_nested_compiler_parens)               \
	T(test_kimage__inflates_gzip_image)                                                    \
	T(test_kimage__reads_efi_zboot_gzip_payload)                                           \
	T(test_kimage__rejects_file_without_version)                                           \
	T(test_kimage__parse_version_rejects_unbalanced_or_empty)                              \
	T(test_kimage__reads_real_debian_vmlinuz)
#include "test_main.h"
