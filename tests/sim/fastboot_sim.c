/*
 * Implements fastboot_sim, a simulated bootloader that speaks the fastboot
 * protocol over TCP, so Debian's real `fastboot -s tcp:127.0.0.1:PORT`
 * client can flash and reboot a "board" in tests.
 *
 * Protocol facts (AOSP system/core fastboot/README.md, "Transport and
 * Framing", "Commands", "TCP Protocol v1"):
 *  - TCP: on connect both sides send the 4-byte handshake "FB" + a 2-digit
 *    decimal version ("FB01"); then every message in either direction is an
 *    8-byte big-endian length followed by that many bytes.
 *  - the host sends one command per message ("getvar:NAME",
 *    "download:%08x" (hex size), "flash:PARTITION", "erase:PARTITION",
 *    "reboot", "reboot-bootloader", "continue"); the device answers with
 *    messages starting "INFO" (repeat), "OKAY", "FAIL" (+ text) or, for
 *    download, "DATA%08x", after which the host sends that many bytes (in
 *    any number of messages) and the device answers OKAY.
 *
 * The board around the bootloader: with --adb-state DIR (the state
 * directory of an adbd_sim started with --hold-bootloader) the bootloader is
 * reachable only while DIR/bootloader exists, which adbd_sim creates on
 * `adb reboot bootloader`; otherwise the port is closed, as on a board that
 * is running Android. On `reboot` the bootloader "boots" the boot partition:
 * it reads the kernel's release and version out of the flashed boot.img (the
 * header, then the version string of the kernel inside), writes them and the
 * image's command line to DIR/kernel/{release,version,cmdline}, puts `uname`
 * and `cat` wrappers in DIR/bin (first on the PATH of adbd_sim's commands)
 * that answer `uname -r`, `uname -v`, `cat /proc/cmdline` and `cat
 * /proc/sys/kernel/osrelease` / `version` from those
 * files, and removes DIR/bootloader, upon which adbd_sim boots again.
 *
 * Flashed partitions are kept in --store DIR (default ./fastboot_sim) as
 * PARTITION.img. --lose-flash N makes the Nth `flash:` command answer OKAY
 * without keeping anything (an image that silently does not take: the board
 * boots what it had); --fail-flash N makes the Nth answer FAIL (a write
 * error: the board stays in the bootloader until told to reboot). Every command is logged, one line each, to
 * STORE/commands.
 *
 * One connection at a time (fastboot is synchronous and opens one per
 * invocation). SIGTERM/SIGINT end it with exit status 0.
 */
#include "core/buf.h"
#include "core/util.h"
#include "flash/bootimg.h"
#include "sim_net.h"

#include <errno.h>
#include <stdarg.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <arpa/inet.h>

#define MAX_DOWNLOAD 0x20000000u /* 512 MiB, answered to getvar:max-download-size */
#define IO_TIMEOUT_MS 15000

struct opts {
	int port;
	const char *port_file;
	const char *adb_state;
	const char *store;
	const char *product;
	const char *serialno;
	int lose_flash;
	int fail_flash;
};

static struct opts o = { .store = "fastboot_sim", .product = "hikey960", .serialno = "KVBFB0001" };
static int g_listen = -1;
static int g_flashes;
static struct kvb_buf g_download;

static void log_command(const char *cmd)
{
	char *p = kvb_xasprintf("%s/commands", o.store);
	FILE *f = fopen(p, "a");
	if (f) {
		fprintf(f, "%s\n", cmd);
		fclose(f);
	}
	free(p);
}

/* In the bootloader: always without --adb-state, else while the board's marker file exists. */
static int in_bootloader(void)
{
	char *p;
	int in;
	if (!o.adb_state)
		return 1;
	p = kvb_xasprintf("%s/bootloader", o.adb_state);
	in = !access(p, F_OK);
	free(p);
	return in;
}

static int open_listener(void)
{
	g_listen = kvb_sim_listen(&o.port, SOCK_CLOEXEC, 4, "fastboot_sim");
	return g_listen < 0 ? -1 : 0;
}

/* ---- transport ------------------------------------------------------------------------------ */

/* Reads exactly n bytes within IO_TIMEOUT_MS. Returns 0, or -1 on EOF, error or timeout. */
static int read_full(int fd, void *buf, size_t n)
{
	size_t got = 0;
	while (got < n) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t r;
		if (poll(&p, 1, IO_TIMEOUT_MS) <= 0 || kvb_sim_stop)
			return -1;
		r = recv(fd, (char *)buf + got, n - got, 0);
		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			return -1;
		}
		got += (size_t)r;
	}
	return 0;
}

static int write_full(int fd, const void *buf, size_t n)
{
	size_t put = 0;
	while (put < n) {
		ssize_t w = send(fd, (const char *)buf + put, n - put, MSG_NOSIGNAL);
		if (w <= 0) {
			if (w < 0 && errno == EINTR)
				continue;
			return -1;
		}
		put += (size_t)w;
	}
	return 0;
}

/* Reads one message's length (8 bytes, big-endian). */
static int read_len(int fd, uint64_t *len)
{
	unsigned char h[8];
	if (read_full(fd, h, 8))
		return -1;
	*len = 0;
	for (int i = 0; i < 8; i++)
		*len = (*len << 8) | h[i];
	return 0;
}

static int send_msg(int fd, const char *text)
{
	unsigned char h[8];
	uint64_t n = strlen(text);
	for (int i = 0; i < 8; i++)
		h[i] = (unsigned char)(n >> (56 - 8 * i));
	kvb_sim_log("-> %s", text);
	return write_full(fd, h, 8) || write_full(fd, text, (size_t)n) ? -1 : 0;
}

static int reply(int fd, const char *kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int reply(int fd, const char *kind, const char *fmt, ...)
{
	char text[256];
	size_t k = strlen(kind);
	va_list ap;
	memcpy(text, kind, k);
	va_start(ap, fmt);
	vsnprintf(text + k, sizeof(text) - k, fmt, ap);
	va_end(ap);
	return send_msg(fd, text);
}

/* ---- the board ------------------------------------------------------------------------------ */

static const char uname_sh[] =
	"#!/bin/sh\n"
	"# fastboot_sim: the kernel the bootloader booted answers uname -r / -v.\n"
	"d=\"$ADBD_SIM_DIR/kernel\"\n"
	"case \"$*\" in\n"
	"  -r) exec /bin/cat \"$d/release\";;\n"
	"  -v) exec /bin/cat \"$d/version\";;\n"
	"esac\n"
	"exec /bin/uname \"$@\"\n";

static const char cat_sh[] =
	"#!/bin/sh\n"
	"# fastboot_sim: /proc/cmdline, /proc/sys/kernel/osrelease and version are those of the boot\n"
	"# image the bootloader booted.\n"
	"d=\"$ADBD_SIM_DIR/kernel\"\n"
	"if [ $# -eq 1 ] && [ -f \"$d/cmdline\" ]; then\n"
	"  case \"$1\" in\n"
	"    /proc/cmdline) exec /bin/cat \"$d/cmdline\";;\n"
	"    /proc/sys/kernel/osrelease) exec /bin/cat \"$d/release\";;\n"
	"    /proc/sys/kernel/version) exec /bin/cat \"$d/version\";;\n"
	"  esac\n"
	"fi\n"
	"exec /bin/cat \"$@\"\n";

static void put_state(const char *rel, const char *text, mode_t mode)
{
	char *p = kvb_xasprintf("%s/%s", o.adb_state, rel);
	kvb_sim_write_file(p, text, strlen(text), mode);
	free(p);
}

/* A one-line state file: text and its "\n". */
static void put_line(const char *rel, const char *text)
{
	char *line = kvb_xasprintf("%s\n", text);
	put_state(rel, line, 0644);
	free(line);
}

/* Boots the boot partition: the board's identity becomes that of the kernel in boot.img. */
static void boot_board(void)
{
	char *img = kvb_xasprintf("%s/boot.img", o.store), *cmdline = NULL, *dir;
	struct kvb_kimage_id id;
	struct kvb_error err;
	if (!o.adb_state) {
		free(img);
		return;
	}
	if (access(img, F_OK)) {
		kvb_sim_log("booting: nothing flashed to boot, the board keeps its kernel");
	} else if (kvb_bootimg_identify(img, &id, &cmdline, &err)) {
		/* A board that cannot boot its image: it stays in the bootloader. */
		fprintf(stderr, "fastboot_sim: boot.img does not boot: %s\n", err.msg);
		free(img);
		return;
	} else {
		dir = kvb_xasprintf("%s/kernel", o.adb_state);
		kvb_mkdir_p(dir, 0755);
		free(dir);
		/* each ends in "\n" as `uname -r`, `uname -v` and /proc/cmdline do (a reader that trims
		 * a "\r" it does not see in the line must be caught here, not on a board) */
		put_line("kernel/release", id.release);
		put_line("kernel/version", id.version);
		put_line("kernel/cmdline", cmdline);
		dir = kvb_xasprintf("%s/bin", o.adb_state);
		kvb_mkdir_p(dir, 0755);
		free(dir);
		put_state("bin/uname", uname_sh, 0755);
		put_state("bin/cat", cat_sh, 0755);
		kvb_sim_log("booting %s (%s), cmdline '%s'", id.release, id.version, cmdline);
		kvb_kimage_id_release(&id);
		free(cmdline);
	}
	free(img);
	img = kvb_xasprintf("%s/bootloader", o.adb_state);
	unlink(img);
	free(img);
}

/* ---- commands ------------------------------------------------------------------------------- */

static int cmd_getvar(int fd, const char *var)
{
	if (!strcmp(var, "product"))
		return reply(fd, "OKAY", "%s", o.product);
	if (!strcmp(var, "serialno"))
		return reply(fd, "OKAY", "%s", o.serialno);
	if (!strcmp(var, "version"))
		return reply(fd, "OKAY", "0.4");
	if (!strcmp(var, "max-download-size"))
		return reply(fd, "OKAY", "0x%08x", MAX_DOWNLOAD);
	if (!strcmp(var, "is-userspace"))
		return reply(fd, "OKAY", "no");
	if (!strcmp(var, "slot-count"))
		return reply(fd, "OKAY", "0"); /* no A/B slots, like HiKey960 */
	if (!strncmp(var, "has-slot:", 9))
		return reply(fd, "OKAY", "no");
	if (!strncmp(var, "is-logical:", 11))
		return reply(fd, "OKAY", "no");
	if (!strncmp(var, "partition-type:", 15))
		return reply(fd, "OKAY", "raw");
	return reply(fd, "FAIL", "GetVar Variable Not found");
}

static int cmd_download(int fd, const char *hex)
{
	char *end;
	unsigned long size = strtoul(hex, &end, 16);
	if (*end || end - hex != 8 || size > MAX_DOWNLOAD)
		return reply(fd, "FAIL", "bad download size '%s'", hex);
	if (reply(fd, "DATA", "%08lx", size))
		return -1;
	kvb_buf_reset(&g_download);
	while (g_download.len < size) {
		uint64_t len;
		if (read_len(fd, &len) || len > size - g_download.len)
			return -1;
		kvb_buf_grow(&g_download, (size_t)len);
		if (read_full(fd, g_download.data + g_download.len, (size_t)len))
			return -1;
		g_download.len += (size_t)len;
	}
	kvb_sim_log("downloaded %zu bytes", g_download.len);
	return reply(fd, "OKAY", "%s", "");
}

static int cmd_flash(int fd, const char *part)
{
	char *p;
	if (!*part || strchr(part, '/') || part[0] == '.')
		return reply(fd, "FAIL", "bad partition name '%s'", part);
	if (!g_download.len)
		return reply(fd, "FAIL", "nothing downloaded");
	g_flashes++;
	if (reply(fd, "INFO", "writing '%s'", part))
		return -1;
	if (g_flashes == o.fail_flash) {
		kvb_sim_log("flash %d to '%s' fails (--fail-flash)", g_flashes, part);
		return reply(fd, "FAIL", "flash write failure on '%s'", part);
	}
	if (g_flashes == o.lose_flash) {
		kvb_sim_log("flash %d to '%s' lost (--lose-flash)", g_flashes, part);
	} else {
		p = kvb_xasprintf("%s/%s.img", o.store, part);
		kvb_sim_write_file(p, g_download.data, g_download.len, 0644);
		free(p);
	}
	return reply(fd, "OKAY", "%s", "");
}

/* Serves one host connection until it closes. */
static void serve(int fd)
{
	char hs[4];
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (write_full(fd, "FB01", 4) || read_full(fd, hs, 4) || memcmp(hs, "FB", 2) || hs[2] < '0' || hs[2] > '9' ||
	    hs[3] < '0' || hs[3] > '9') {
		kvb_sim_log("bad handshake");
		return;
	}
	for (;;) {
		uint64_t len;
		char cmd[4097];
		int rc, reboot = 0;
		if (read_len(fd, &len) || len == 0 || len >= sizeof(cmd) || read_full(fd, cmd, (size_t)len))
			return;
		cmd[len] = '\0';
		kvb_sim_log("<- %s", cmd);
		log_command(cmd);
		if (!strncmp(cmd, "getvar:", 7))
			rc = cmd_getvar(fd, cmd + 7);
		else if (!strncmp(cmd, "download:", 9))
			rc = cmd_download(fd, cmd + 9);
		else if (!strncmp(cmd, "flash:", 6))
			rc = cmd_flash(fd, cmd + 6);
		else if (!strcmp(cmd, "reboot") || !strcmp(cmd, "continue"))
			rc = reply(fd, "OKAY", "%s", ""), reboot = 1;
		else if (!strcmp(cmd, "reboot-bootloader"))
			rc = reply(fd, "OKAY", "%s", "");
		else
			rc = reply(fd, "FAIL", "unknown command");
		if (rc)
			return;
		if (reboot) {
			boot_board();
			return;
		}
	}
}

static void usage(FILE *f)
{
	fputs("usage: fastboot_sim [--port N] [--port-file FILE] [--store DIR] [--adb-state DIR]\n"
	      "                    [--lose-flash N] [--fail-flash N] [--product NAME] [--serialno S] [-v]\n"
	      "A simulated bootloader for tests: speaks fastboot over TCP on 127.0.0.1:PORT (0 = any free\n"
	      "port, written to --port-file); use `fastboot -s tcp:127.0.0.1:PORT`. Flashed partitions go to\n"
	      "STORE/PART.img, commands to STORE/commands. With --adb-state (an adbd_sim --hold-bootloader\n"
	      "state dir) it answers only while the board is in the bootloader, and `reboot` boots boot.img:\n"
	      "the adb device then reports that kernel's uname -r/-v and cmdline. --lose-flash N: the Nth\n"
	      "flash answers OKAY but is not kept; --fail-flash N: the Nth flash answers FAIL.\n",
	      f);
}

int main(int argc, char **argv)
{
	kvb_sim_name = "fastboot_sim";
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int64_t n = 0;
		int bad = 0;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "-v")) {
			kvb_sim_verbose = 1;
			continue;
		}
		if (!v) {
			fprintf(stderr, "fastboot_sim: '%s' needs a value (or is unknown)\n", a);
			return 2;
		}
		i++;
		if (!strcmp(a, "--port"))
			bad = kvb_parse_i64(v, &n) || n < 0 || n > 65535 || ((o.port = (int)n), 0);
		else if (!strcmp(a, "--port-file"))
			o.port_file = v;
		else if (!strcmp(a, "--store"))
			o.store = v;
		else if (!strcmp(a, "--adb-state"))
			o.adb_state = v;
		else if (!strcmp(a, "--lose-flash"))
			bad = kvb_parse_i64(v, &n) || n < 1 || n > 1000000 || ((o.lose_flash = (int)n), 0);
		else if (!strcmp(a, "--fail-flash"))
			bad = kvb_parse_i64(v, &n) || n < 1 || n > 1000000 || ((o.fail_flash = (int)n), 0);
		else if (!strcmp(a, "--product"))
			o.product = v;
		else if (!strcmp(a, "--serialno"))
			o.serialno = v;
		else {
			fprintf(stderr, "fastboot_sim: unknown option '%s'\n", a);
			usage(stderr);
			return 2;
		}
		if (bad) {
			fprintf(stderr, "fastboot_sim: bad value '%s' for %s\n", v, a);
			return 2;
		}
	}
	if (kvb_mkdir_p(o.store, 0755)) {
		fprintf(stderr, "fastboot_sim: cannot create '%s': %s\n", o.store, strerror(errno));
		return 1;
	}
	kvb_sim_catch_signals();
	/* Bind once to learn (and keep) the port, even if the board starts outside the bootloader. */
	if (open_listener())
		return 1;
	if (o.port_file)
		kvb_sim_write_port_file(o.port_file, o.port);
	while (!kvb_sim_stop) {
		int in = in_bootloader();
		if (!in && g_listen >= 0) {
			close(g_listen); /* the board runs Android: nothing answers on the port */
			g_listen = -1;
		} else if (in && g_listen < 0 && open_listener()) {
			return 1;
		}
		if (g_listen >= 0) {
			struct pollfd p = { .fd = g_listen, .events = POLLIN };
			if (poll(&p, 1, 100) > 0) {
				int fd = accept4(g_listen, NULL, NULL, SOCK_CLOEXEC);
				if (fd >= 0) {
					kvb_sim_log("connection accepted");
					serve(fd);
					close(fd);
				}
			}
		} else {
			kvb_sleep_ms(50);
		}
	}
	if (g_listen >= 0)
		close(g_listen);
	kvb_buf_release(&g_download);
	return 0;
}
