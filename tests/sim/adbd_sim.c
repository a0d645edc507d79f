/*
 * Implements adbd_sim, a simulated Android device daemon that speaks the ADB
 * transport protocol over TCP, so Debian's real `adb` client and server can
 * be tested against a "device" with `adb connect 127.0.0.1:PORT`.
 *
 * Protocol facts (AOSP adb/protocol.txt, SERVICES.TXT, SYNC.TXT,
 * shell_protocol.h):
 *  - a message is a 24-byte header of six little-endian u32 (command, arg0,
 *    arg1, data_length, data_check, magic = command ^ 0xffffffff) plus
 *    data_length bytes of payload. data_check is the byte sum of the payload;
 *    peers at version >= 0x01000001 do not check it (we always fill it in).
 *  - CNXN(version, max_payload, "device::key=value;...;features=a,b") answers
 *    the host's CNXN; no AUTH is asked for. As a real adbd writes it
 *    (tests/fixtures/field/adb, checked by tests/integration/sim_wire.py):
 *    max_payload = min(host's, 1 MiB), the banner without a NUL, data_check
 *    filled in.
 *  - OPEN(host_id, 0, "service\0") -> OKAY(our_id, host_id) or CLSE(0, host_id)
 *    to refuse; data flows as WRTE(src, dst, bytes), and each WRTE must be
 *    acknowledged by an OKAY before the sender sends the next one on that
 *    stream; CLSE(src, dst) ends a stream.
 *  - shell v2 ("shell,v2,raw:CMD"): the stream carries packets of 1-byte id
 *    + u32 LE length + data; ids stdin 0, stdout 1, stderr 2, exit 3 (1 byte
 *    status), close-stdin 4, window-size 5.
 *  - sync ("sync:"): requests are 4-byte id + u32 LE length + payload;
 *    STAT/LIST (v1), STA2/LST2/LIS2 (v2 stat layout: error u32, dev u64,
 *    ino u64, mode, nlink, uid, gid u32, size u64, atime, mtime, ctime i64),
 *    SEND "path,mode" + DATA* + DONE(mtime) -> OKAY|FAIL, RECV path ->
 *    DATA* + DONE | FAIL, QUIT.
 *  - --no-shell-v2 plays an adbd from before Android N (AOSP android-6.0.1_r1
 *    adb/adb.cpp, adb.h): CNXN version 0x01000000, max payload 4096, the
 *    banner "device::ro.product.name=..;ro.product.model=..;ro.product.device=..;"
 *    with no features at all and its NUL counted in data_length (so `adb
 *    features` prints nothing: the host knows no feature of the device), and
 *    `shell:CMD` runs on a pty as those adbds did, so
 *    stderr is merged into stdout, every "\n" arrives as "\r\n" (the tty's
 *    ONLCR) and no exit status is sent (WA3 PR #119/#132, devlib PR #86,
 *    ya-webadb #412: "stderr is not populated; output in stdout").
 *  - root: answers as AOSP adb daemon/restart_service.cpp does: "adbd is
 *    already running as root\n" when adbd is root, "adbd cannot run as root
 *    in production builds\n" on a user build (--user-build), else "restarting
 *    adbd as root\n", after which adbd exits (sockets.cpp exit_on_close) and is
 *    away --adbd-restart-ms before it listens again as root (not a new boot).
 *
 * The device is a sandbox for tests, not a container: commands run with
 * /bin/sh -c in the --root directory and every path (shell or sync) is used
 * as given, relative paths being relative to --root. The sim keeps its state
 * in --state DIR (default ROOT/.adbd_sim): props/NAME (one file per
 * property, read by the getprop script), logcat (the log buffer), bin/
 * (getprop, setprop, logcat and log scripts placed first on the PATH of every
 * command, with $ADBD_SIM_DIR pointing at the state directory), boot_count
 * and last_reboot. Creating the file STATE/drop makes the sim drop every
 * connection at once (a pulled cable). With --hold-bootloader, `reboot:bootloader`
 * creates STATE/bootloader and the device stays away until that file is removed
 * (by tests/sim/fastboot_sim, which plays the bootloader, or by a test).
 *
 * Single-threaded: one poll() loop serves the listening socket, every
 * connection, every child's pipes and the timers. SIGTERM/SIGINT end it
 * cleanly (children are killed, exit status 0).
 */
#include "core/buf.h"
#include "core/util.h"
#include "sim_net.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

extern char **environ;

#define A_CNXN 0x4e584e43u
#define A_OPEN 0x4e45504fu
#define A_OKAY 0x59414b4fu
#define A_CLSE 0x45534c43u
#define A_WRTE 0x45545257u
#define A_VERSION 0x01000001u /* version that lets peers skip data_check */
#define A_VERSION_PRE_N 0x01000000u /* adbd before Android N: every packet's data_check is checked */
#define PRE_N_MAX_PAYLOAD 4096u     /* AOSP android-6.0.1_r1 adb/adb.h MAX_PAYLOAD */
#define SIM_MAX_PAYLOAD (1024u * 1024u) /* AOSP MAX_PAYLOAD; a real emulator answers a 1 MiB host with 0x100000 */
#define SYNC_DATA_MAX (64u * 1024u)
#define OUT_HIGH_WATER (4u * 1024u * 1024u) /* stop reading a child past this much unsent output */

#define SYNC_ID(a, b, c, d) ((uint32_t)(a) | ((uint32_t)(b) << 8) | ((uint32_t)(c) << 16) | ((uint32_t)(d) << 24))

enum shell_pkt { PKT_STDIN = 0, PKT_STDOUT = 1, PKT_STDERR = 2, PKT_EXIT = 3, PKT_CLOSE_STDIN = 4 };

enum stream_kind {
	SK_SHELL_V2, /* shell,v2: packets, separate stdout/stderr, exit status */
	SK_RAW,      /* legacy shell:/exec: raw bytes, no exit status */
	SK_SYNC,     /* sync: file service */
	SK_TEXT,     /* fixed answer then close (root:, reboot:) */
};

struct stream {
	struct stream *next;
	uint32_t id, peer;
	enum stream_kind kind;
	struct kvb_buf out;     /* bytes waiting to go out as WRTE */
	size_t out_off;
	int can_send;           /* the host acknowledged our last WRTE */
	int closing;            /* send CLSE once out is drained */
	uint64_t open_ns;
	/* child process (shell kinds) */
	pid_t pid;
	int exited, status;
	int in_fd, out_fd, err_fd;
	struct kvb_buf in;      /* shell: stdin bytes to write; sync: request bytes to parse */
	size_t in_off;
	int close_stdin;        /* close the child's stdin once in is drained */
	/* sync SEND state */
	int send_active, send_fd, send_errno, send_link;
	char *send_path;
	unsigned send_mode;
	struct kvb_buf send_linkbuf;
	struct kvb_buf pkt;     /* shell v2: bytes of a packet split across WRTEs */
	int onlcr;              /* legacy shell on a pty (pre-N adbd): every "\n" goes out as "\r\n" */
	/* reboot: service */
	const char *reboot_mode;
};

struct conn {
	struct conn *next;
	int fd;
	struct kvb_buf in;
	size_t in_off;
	struct kvb_buf out;
	size_t out_off;
	int online;
	uint32_t max_payload;   /* the host's maximum payload */
	uint32_t next_id;
	struct stream *streams;
	int dead;
};

struct opts {
	const char *root;
	char *state;
	int port;
	const char *port_file;
	uint64_t boot_delay_ms;
	uint64_t reboot_delay_ms;
	uint64_t drop_after_ms;  /* 0 = never */
	uint64_t drop_offline_ms; /* after a drop, refuse connections this long */
	int no_shell_v2;
	int hold_bootloader;     /* after reboot:bootloader, stay away while STATE/bootloader exists */
	int adbd_shell;          /* adbd starts as uid shell each boot (else root, as on an eng build) */
	int user_build;          /* ro.debuggable 0: `adb root` is refused */
	int toolbox;             /* commands as on Android 4.4/5.x: mksh, PATH = the toolbox's commands only */
	uint64_t adbd_restart_ms; /* how long adbd is away when it restarts as root */
	const char *serialno;
};

static struct opts o = { .reboot_delay_ms = 2000, .adbd_restart_ms = 1000, .serialno = "KVBSIM0001" };
static int g_listen = -1;
static struct conn *g_conns;
static uint64_t g_boot_at_ns;      /* sys.boot_completed becomes 1 at this time (0 = done) */
static uint64_t g_reboot_at_ns;    /* pending reboot: drop everything at this time */
static const char *g_reboot_mode;
static uint64_t g_relisten_at_ns;  /* offline until this time */
static int g_relisten_boots;       /* coming back is a new boot (reboot) or not (cable pulled) */
static int g_adbd_root;            /* adbd runs as root (uid 0) */
static uint64_t g_adbd_restart_at_ns; /* pending `adb root`: adbd exits at this time */

static void put_u32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static void put_u64(unsigned char *p, uint64_t v)
{
	put_u32(p, (uint32_t)v);
	put_u32(p + 4, (uint32_t)(v >> 32));
}

static uint32_t get_u32(const unsigned char *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static void add_u32(struct kvb_buf *b, uint32_t v)
{
	unsigned char t[4];
	put_u32(t, v);
	kvb_buf_add(b, t, 4);
}

/* ---- state directory: properties and scripts ---------------------------------------------- */

static void write_file(const char *path, const char *text, mode_t mode)
{
	kvb_sim_write_file(path, text, strlen(text), mode);
}

static void set_prop(const char *name, const char *value)
{
	char *p = kvb_xasprintf("%s/props/%s", o.state, name);
	if (value)
		write_file(p, value, 0644);
	else
		unlink(p);
	free(p);
}

static void state_file(const char *name, const char *text)
{
	char *p = kvb_xasprintf("%s/%s", o.state, name);
	write_file(p, text, 0644);
	free(p);
}

static const char getprop_sh[] =
	"#!/bin/sh\n"
	"# adbd_sim getprop: one file per property in $ADBD_SIM_DIR/props.\n"
	"d=\"$ADBD_SIM_DIR/props\"\n"
	"if [ $# -eq 0 ]; then\n"
	"  for f in \"$d\"/*; do [ -f \"$f\" ] && printf '[%s]: [%s]\\n' \"${f##*/}\" \"$(cat \"$f\")\"; done\n"
	"  exit 0\n"
	"fi\n"
	"if [ -f \"$d/$1\" ]; then cat \"$d/$1\"; echo; else printf '%s\\n' \"${2-}\"; fi\n";

static const char setprop_sh[] =
	"#!/bin/sh\n"
	"# adbd_sim setprop NAME VALUE\n"
	"[ $# -eq 2 ] || { echo 'usage: setprop NAME VALUE' >&2; exit 1; }\n"
	"printf '%s' \"$2\" > \"$ADBD_SIM_DIR/props/$1\"\n";

static const char logcat_sh[] =
	"#!/bin/sh\n"
	"# adbd_sim logcat: the log buffer is $ADBD_SIM_DIR/logcat; -c clears, -d dumps, else follow.\n"
	"f=\"$ADBD_SIM_DIR/logcat\"\n"
	"dump=0\n"
	"for a; do case \"$a\" in -c) : > \"$f\"; exit 0;; -d) dump=1;; esac; done\n"
	"[ -f \"$f\" ] || : > \"$f\"\n"
	"if [ $dump = 1 ]; then exec cat \"$f\"; fi\n"
	"exec tail -n +1 -f \"$f\"\n";

static const char log_sh[] =
	"#!/bin/sh\n"
	"# adbd_sim log [-p PRIO] [-t TAG] MESSAGE: appends a threadtime-format line to the log buffer.\n"
	"tag=log; prio=I\n"
	"while [ $# -gt 0 ]; do\n"
	"  case \"$1\" in -t) tag=$2; shift 2;; -p) prio=$(printf '%s' \"$2\" | tr a-z A-Z); shift 2;; *) break;; esac\n"
	"done\n"
	"printf '%s %5d %5d %s %-8s: %s\\n' \"$(date '+%m-%d %H:%M:%S.000')\" $$ $$ \"$prio\" \"$tag\" \"$*\" "
	">> \"$ADBD_SIM_DIR/logcat\"\n";

/*
 * --toolbox: the commands of AOSP android-5.1.1_r1 system/core/toolbox/Android.mk (BSD_TOOLS and
 * OUR_TOOLS), as symlinks to this host's programs of the same name where it has them. Android 4.4
 * and 5.x had these and no uname, printf, taskset or readlink -f (toybox came with 6.0), and
 * /system/bin/sh was mksh, whose printf is not a builtin.
 */
#define TOOLBOX_SH "/bin/mksh"
static const char *const toolbox_5_1[] = {
	"cat", "chown", "cp", "dd", "du", "grep", "kill", "ln", "mv", "printenv", "rm", "rmdir", "sleep", "sync",
	"chcon", "chmod", "clear", "cmp", "date", "df", "dmesg", "getenforce", "hd", "id", "ifconfig", "insmod",
	"ionice", "ls", "lsmod", "lsof", "mkdir", "mknod", "mkswap", "mount", "nohup", "ps", "readlink", "renice",
	"restorecon", "prlimit", "rmmod", "route", "runcon", "setenforce", "swapoff", "swapon", "top", "touch",
	"umount", "uptime", "vmstat",
};

static int setup_toolbox(void)
{
	static const char *const dirs[] = { "/bin", "/usr/bin", "/sbin", "/usr/sbin" };
	char *d = kvb_xasprintf("%s/toolbox", o.state);
	int rc = 0;
	if (access(TOOLBOX_SH, X_OK)) {
		fprintf(stderr, "adbd_sim: --toolbox needs %s (Debian package mksh)\n", TOOLBOX_SH);
		free(d);
		return -1;
	}
	if (kvb_mkdir_p(d, 0755)) {
		fprintf(stderr, "adbd_sim: cannot create '%s': %s\n", d, strerror(errno));
		free(d);
		return -1;
	}
	for (size_t i = 0; i < KVB_ARRAY_SIZE(toolbox_5_1) && !rc; i++)
		for (size_t k = 0; k < KVB_ARRAY_SIZE(dirs); k++) {
			char *from = kvb_xasprintf("%s/%s", dirs[k], toolbox_5_1[i]);
			char *to = kvb_xasprintf("%s/%s", d, toolbox_5_1[i]);
			int found = !access(from, X_OK);
			if (found) {
				unlink(to);
				if (symlink(from, to)) {
					fprintf(stderr, "adbd_sim: cannot link '%s': %s\n", to, strerror(errno));
					rc = -1;
				}
			}
			free(from);
			free(to);
			if (found)
				break;
		}
	if (!rc) {
		/* /system/bin/sh */
		char *to = kvb_xasprintf("%s/sh", d);
		unlink(to);
		if (symlink(TOOLBOX_SH, to)) {
			fprintf(stderr, "adbd_sim: cannot link '%s': %s\n", to, strerror(errno));
			rc = -1;
		}
		free(to);
	}
	free(d);
	return rc;
}

static int setup_state(void)
{
	char *p;
	if (!o.state)
		o.state = kvb_xasprintf("%s/.adbd_sim", o.root);
	p = kvb_xasprintf("%s/props", o.state);
	if (kvb_mkdir_p(p, 0755))
		goto fail;
	free(p);
	p = kvb_xasprintf("%s/bin", o.state);
	if (kvb_mkdir_p(p, 0755))
		goto fail;
	free(p);
	struct { const char *name, *text; } scripts[] = {
		{ "getprop", getprop_sh }, { "setprop", setprop_sh }, { "logcat", logcat_sh }, { "log", log_sh },
	};
	for (size_t i = 0; i < KVB_ARRAY_SIZE(scripts); i++) {
		p = kvb_xasprintf("%s/bin/%s", o.state, scripts[i].name);
		write_file(p, scripts[i].text, 0755);
		free(p);
	}
	p = kvb_xasprintf("%s/logcat", o.state);
	if (access(p, F_OK))
		write_file(p, "", 0644);
	free(p);
	set_prop("ro.product.model", "kvbsim");
	set_prop("ro.product.name", "kvbsim");
	set_prop("ro.product.device", "kvbsim");
	set_prop("ro.build.version.sdk", "29");
	set_prop("ro.serialno", o.serialno);
	return 0;
fail:
	fprintf(stderr, "adbd_sim: cannot create '%s': %s\n", p, strerror(errno));
	free(p);
	return -1;
}

/* A boot starts: sys.boot_completed is unset until boot_delay_ms have passed. */
static void start_boot(void)
{
	static int boots;
	char n[32];
	snprintf(n, sizeof(n), "%d\n", ++boots);
	state_file("boot_count", n);
	set_prop("sys.boot_completed", NULL);
	/* service.adb.root is not persistent: every boot starts adbd as the build makes it */
	set_prop("service.adb.root", NULL);
	set_prop("ro.debuggable", o.user_build ? "0" : "1");
	g_adbd_root = !o.adbd_shell;
	g_boot_at_ns = kvb_mono_ns() + o.boot_delay_ms * 1000000ull;
	if (!g_boot_at_ns)
		g_boot_at_ns = 1;
}

/* ---- sockets ------------------------------------------------------------------------------ */

static int open_listener(void)
{
	int fd = kvb_sim_listen(&o.port, SOCK_NONBLOCK | SOCK_CLOEXEC, 16, "adbd_sim");
	if (fd < 0)
		return -1;
	g_listen = fd;
	kvb_sim_log("listening on 127.0.0.1:%d", o.port);
	return 0;
}

static void flush_conn(struct conn *c)
{
	while (!c->dead && c->out_off < c->out.len) {
		ssize_t n = send(c->fd, c->out.data + c->out_off, c->out.len - c->out_off, MSG_NOSIGNAL);
		if (n > 0) {
			c->out_off += (size_t)n;
		} else if (n < 0 && errno == EINTR) {
			continue;
		} else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			break;
		} else {
			c->dead = 1;
		}
	}
	if (c->out_off == c->out.len) {
		kvb_buf_reset(&c->out);
		c->out_off = 0;
	}
}

static void send_msg(struct conn *c, uint32_t cmd, uint32_t a0, uint32_t a1, const void *data, size_t len)
{
	unsigned char h[24];
	uint32_t sum = 0;
	for (size_t i = 0; i < len; i++)
		sum += ((const unsigned char *)data)[i];
	put_u32(h, cmd);
	put_u32(h + 4, a0);
	put_u32(h + 8, a1);
	put_u32(h + 12, (uint32_t)len);
	put_u32(h + 16, sum);
	put_u32(h + 20, cmd ^ 0xffffffffu);
	kvb_buf_add(&c->out, h, sizeof(h));
	if (len)
		kvb_buf_add(&c->out, data, len);
	flush_conn(c);
}

/* ---- streams ------------------------------------------------------------------------------ */

static void stream_free(struct stream *s)
{
	if (s->pid > 0 && !s->exited) {
		kill(-s->pid, SIGKILL);
		waitpid(s->pid, NULL, 0);
	}
	if (s->in_fd >= 0)
		close(s->in_fd);
	if (s->out_fd >= 0)
		close(s->out_fd);
	if (s->err_fd >= 0)
		close(s->err_fd);
	if (s->send_fd >= 0)
		close(s->send_fd);
	free(s->send_path);
	kvb_buf_release(&s->send_linkbuf);
	kvb_buf_release(&s->pkt);
	kvb_buf_release(&s->out);
	kvb_buf_release(&s->in);
	free(s);
}

static struct stream *stream_find(struct conn *c, uint32_t id)
{
	for (struct stream *s = c->streams; s; s = s->next)
		if (s->id == id)
			return s;
	return NULL;
}

static void stream_unlink(struct conn *c, struct stream *s)
{
	for (struct stream **pp = &c->streams; *pp; pp = &(*pp)->next)
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	stream_free(s);
}

static void shell_packet(struct stream *s, int id, const void *data, size_t len)
{
	unsigned char h[5];
	h[0] = (unsigned char)id;
	put_u32(h + 1, (uint32_t)len);
	kvb_buf_add(&s->out, h, 5);
	kvb_buf_add(&s->out, data, len);
}

/* Starts /bin/sh -c cmd in the sandbox; stderr goes to its own pipe, to stdout (merge) or nowhere. */
enum err_mode { ERR_PIPE, ERR_MERGE, ERR_NULL };

static int spawn_shell(struct stream *s, const char *cmd, enum err_mode em)
{
	int pin[2] = { -1, -1 }, pout[2] = { -1, -1 }, perr[2] = { -1, -1 };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t def, none;
	const char *sh = o.toolbox ? TOOLBOX_SH : "/bin/sh";
	const char *argv_c[] = { sh, "-c", cmd, NULL };
	const char *argv_i[] = { sh, NULL };
	struct kvb_strv env = KVB_STRV_INIT;
	const char *path = getenv("PATH");
	int rc;

	if (pipe2(pin, O_CLOEXEC) || pipe2(pout, O_CLOEXEC) || (em == ERR_PIPE && pipe2(perr, O_CLOEXEC)))
		return -1;
	for (char **e = environ; *e; e++)
		if (strncmp(*e, "PATH=", 5) && strncmp(*e, "ADBD_SIM_DIR=", 13))
			kvb_strv_push(&env, *e);
	if (o.toolbox)
		kvb_strv_pushf(&env, "PATH=%s/bin:%s/toolbox", o.state, o.state);
	else
		kvb_strv_pushf(&env, "PATH=%s/bin:%s", o.state, path ? path : "/usr/bin:/bin");
	kvb_strv_pushf(&env, "ADBD_SIM_DIR=%s", o.state);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pin[0], 0);
	posix_spawn_file_actions_adddup2(&fa, pout[1], 1);
	if (em == ERR_PIPE)
		posix_spawn_file_actions_adddup2(&fa, perr[1], 2);
	else if (em == ERR_MERGE)
		posix_spawn_file_actions_adddup2(&fa, pout[1], 2);
	else
		posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addchdir_np(&fa, o.root);
	posix_spawnattr_init(&at);
	sigemptyset(&def);
	sigaddset(&def, SIGPIPE);
	sigaddset(&def, SIGTERM);
	sigaddset(&def, SIGINT);
	sigemptyset(&none);
	posix_spawnattr_setsigdefault(&at, &def);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
	rc = posix_spawn(&s->pid, sh, &fa, &at, (char *const *)(*cmd ? argv_c : argv_i),
			 (char *const *)kvb_strv_argv(&env));
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	kvb_strv_release(&env);
	close(pin[0]);
	close(pout[1]);
	if (perr[1] >= 0)
		close(perr[1]);
	if (rc) {
		close(pin[1]);
		close(pout[0]);
		if (perr[0] >= 0)
			close(perr[0]);
		s->pid = 0;
		errno = rc;
		return -1;
	}
	s->in_fd = pin[1];
	s->out_fd = pout[0];
	s->err_fd = perr[0];
	fcntl(s->in_fd, F_SETFL, O_NONBLOCK);
	fcntl(s->out_fd, F_SETFL, O_NONBLOCK);
	if (s->err_fd >= 0)
		fcntl(s->err_fd, F_SETFL, O_NONBLOCK);
	return 0;
}

/* Writes what it can of the pending stdin bytes to the child. */
static void pump_stdin(struct stream *s)
{
	while (s->in_fd >= 0 && s->in_off < s->in.len) {
		ssize_t n = write(s->in_fd, s->in.data + s->in_off, s->in.len - s->in_off);
		if (n > 0)
			s->in_off += (size_t)n;
		else if (n < 0 && errno == EINTR)
			continue;
		else if (n < 0 && errno == EAGAIN)
			return;
		else {
			close(s->in_fd); /* the child closed its stdin: drop the rest */
			s->in_fd = -1;
		}
	}
	kvb_buf_reset(&s->in);
	s->in_off = 0;
	if (s->close_stdin && s->in_fd >= 0) {
		close(s->in_fd);
		s->in_fd = -1;
	}
}

/* ---- sync service ------------------------------------------------------------------------- */

static void sync_reply(struct stream *s, const char *id, const void *data, size_t len)
{
	kvb_buf_add(&s->out, id, 4);
	add_u32(&s->out, (uint32_t)len);
	if (len)
		kvb_buf_add(&s->out, data, len);
}

static void sync_fail(struct stream *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sync_fail(struct stream *s, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sync_reply(s, "FAIL", msg, strlen(msg));
}

/* error u32, dev u64, ino u64, mode, nlink, uid, gid u32, size u64, atime, mtime, ctime i64: 68 bytes. */
static void add_stat_v2(struct kvb_buf *b, const struct stat *st, int err)
{
	unsigned char t[68];
	memset(t, 0, sizeof(t));
	put_u32(t, (uint32_t)err);
	if (!err) {
		put_u64(t + 4, (uint64_t)st->st_dev);
		put_u64(t + 12, (uint64_t)st->st_ino);
		put_u32(t + 20, (uint32_t)st->st_mode);
		put_u32(t + 24, (uint32_t)st->st_nlink);
		put_u32(t + 28, (uint32_t)st->st_uid);
		put_u32(t + 32, (uint32_t)st->st_gid);
		put_u64(t + 36, (uint64_t)st->st_size);
		put_u64(t + 44, (uint64_t)st->st_atime);
		put_u64(t + 52, (uint64_t)st->st_mtime);
		put_u64(t + 60, (uint64_t)st->st_ctime);
	}
	kvb_buf_add(b, t, sizeof(t));
}

static void sync_list(struct stream *s, const char *path, int v2)
{
	DIR *d = opendir(path);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		struct stat st;
		char *full;
		int err = 0;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		full = kvb_xasprintf("%s/%s", path, e->d_name);
		if (lstat(full, &st)) {
			err = errno;
			memset(&st, 0, sizeof(st));
		}
		free(full);
		if (v2) {
			kvb_buf_add(&s->out, "DNT2", 4);
			add_stat_v2(&s->out, &st, err);
		} else {
			kvb_buf_add(&s->out, "DENT", 4);
			add_u32(&s->out, (uint32_t)st.st_mode);
			add_u32(&s->out, (uint32_t)st.st_size);
			add_u32(&s->out, (uint32_t)st.st_mtime);
		}
		add_u32(&s->out, (uint32_t)strlen(e->d_name));
		kvb_buf_adds(&s->out, e->d_name);
	}
	if (d)
		closedir(d);
	/* The end marker has the size of an entry header (v1 20 bytes, v2 76 bytes). */
	kvb_buf_add(&s->out, "DONE", 4);
	for (int i = 0; i < (v2 ? 72 : 16); i++)
		kvb_buf_addc(&s->out, 0);
}

static void sync_recv(struct stream *s, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char buf[SYNC_DATA_MAX];
	ssize_t n;
	if (fd < 0) {
		sync_fail(s, "open failed: %s", strerror(errno));
		return;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		sync_reply(s, "DATA", buf, (size_t)n);
	close(fd);
	if (n < 0) {
		sync_fail(s, "read failed: %s", strerror(errno));
		return;
	}
	kvb_buf_add(&s->out, "DONE", 4);
	add_u32(&s->out, 0);
}

static void mkdir_parents(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (slash && slash != path) {
		char *dir = kvb_xasprintf("%.*s", (int)(slash - path), path);
		kvb_mkdir_p(dir, 0755);
		free(dir);
	}
}

static void sync_send_start(struct stream *s, const char *spec)
{
	const char *comma = strrchr(spec, ',');
	s->send_active = 1;
	s->send_errno = 0;
	s->send_fd = -1;
	s->send_link = 0;
	kvb_buf_reset(&s->send_linkbuf);
	free(s->send_path);
	s->send_path = comma ? kvb_xstrndup(spec, (size_t)(comma - spec)) : kvb_xstrdup(spec);
	s->send_mode = comma ? (unsigned)strtoul(comma + 1, NULL, 10) : 0644;
	if (!comma) {
		s->send_errno = EINVAL;
		return;
	}
	mkdir_parents(s->send_path); /* the fixed_push_mkdir feature */
	if (S_ISLNK(s->send_mode)) {
		s->send_link = 1;
		return;
	}
	unlink(s->send_path);
	s->send_fd = open(s->send_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, s->send_mode & 07777);
	if (s->send_fd < 0)
		s->send_errno = errno;
}

static void sync_send_data(struct stream *s, const unsigned char *data, size_t len)
{
	if (!s->send_active || s->send_errno)
		return;
	if (s->send_link) {
		kvb_buf_add(&s->send_linkbuf, data, len);
		return;
	}
	while (len) {
		ssize_t n = write(s->send_fd, data, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			s->send_errno = n < 0 ? errno : EIO;
			return;
		}
		data += n;
		len -= (size_t)n;
	}
}

static void sync_send_done(struct stream *s, uint32_t mtime)
{
	if (s->send_link && !s->send_errno) {
		unlink(s->send_path);
		if (symlink(s->send_linkbuf.data, s->send_path))
			s->send_errno = errno;
	}
	if (s->send_fd >= 0) {
		struct timespec ts[2] = { { .tv_sec = mtime }, { .tv_sec = mtime } };
		if (close(s->send_fd) && !s->send_errno)
			s->send_errno = errno;
		s->send_fd = -1;
		if (!s->send_errno)
			utimensat(AT_FDCWD, s->send_path, ts, 0);
	}
	if (s->send_errno)
		sync_fail(s, "couldn't create file '%s': %s", s->send_path, strerror(s->send_errno));
	else
		sync_reply(s, "OKAY", NULL, 0);
	s->send_active = 0;
}

/* Parses every complete request in s->in. Returns -1 when the stream must close. */
static int sync_feed(struct stream *s)
{
	for (;;) {
		const unsigned char *p = (const unsigned char *)s->in.data + s->in_off;
		size_t avail = s->in.len - s->in_off;
		uint32_t id, len;
		char *path;
		struct stat st;
		if (avail < 8)
			break;
		id = get_u32(p);
		len = get_u32(p + 4);
		if (id == SYNC_ID('D', 'O', 'N', 'E')) {
			s->in_off += 8;
			if (s->send_active)
				sync_send_done(s, len);
			continue;
		}
		if (id == SYNC_ID('Q', 'U', 'I', 'T'))
			return -1;
		if (len > SYNC_DATA_MAX) {
			sync_fail(s, "sync request too long (%u bytes)", len);
			return -1;
		}
		if (avail < 8 + (size_t)len)
			break;
		s->in_off += 8 + len;
		if (id == SYNC_ID('D', 'A', 'T', 'A')) {
			sync_send_data(s, p + 8, len);
			continue;
		}
		path = kvb_xstrndup((const char *)p + 8, len);
		kvb_sim_log("sync %.4s %s", (const char *)p, path);
		if (id == SYNC_ID('S', 'T', 'A', 'T')) {
			int ok = !lstat(path, &st);
			kvb_buf_add(&s->out, "STAT", 4);
			add_u32(&s->out, ok ? (uint32_t)st.st_mode : 0);
			add_u32(&s->out, ok ? (uint32_t)st.st_size : 0);
			add_u32(&s->out, ok ? (uint32_t)st.st_mtime : 0);
		} else if (id == SYNC_ID('S', 'T', 'A', '2') || id == SYNC_ID('L', 'S', 'T', '2')) {
			int r = id == SYNC_ID('S', 'T', 'A', '2') ? stat(path, &st) : lstat(path, &st);
			kvb_buf_add(&s->out, (const char *)p, 4);
			add_stat_v2(&s->out, &st, r ? errno : 0);
		} else if (id == SYNC_ID('L', 'I', 'S', 'T') || id == SYNC_ID('L', 'I', 'S', '2')) {
			sync_list(s, path, id == SYNC_ID('L', 'I', 'S', '2'));
		} else if (id == SYNC_ID('R', 'E', 'C', 'V')) {
			sync_recv(s, path);
		} else if (id == SYNC_ID('S', 'E', 'N', 'D')) {
			sync_send_start(s, path);
		} else {
			sync_fail(s, "unknown sync request '%.4s'", (const char *)p);
			free(path);
			return -1;
		}
		free(path);
	}
	if (s->in_off == s->in.len) {
		kvb_buf_reset(&s->in);
		s->in_off = 0;
	}
	return 0;
}

/* ---- services ----------------------------------------------------------------------------- */

/* Opens service svc for the host's stream host_id; NULL means "refuse". */
static struct stream *open_service(struct conn *c, const char *svc)
{
	struct stream *s = kvb_xcalloc(1, sizeof(*s));
	s->in_fd = s->out_fd = s->err_fd = s->send_fd = -1;
	kvb_buf_init(&s->out);
	kvb_buf_init(&s->in);
	kvb_buf_init(&s->send_linkbuf);
	kvb_buf_init(&s->pkt);
	s->open_ns = kvb_mono_ns();
	s->can_send = 1;
	(void)c;
	if (!strncmp(svc, "shell", 5) && (svc[5] == ':' || svc[5] == ',')) {
		/* shell[,arg...]:command — the args (v2, raw, pty, TERM=...) end at the first ':'. */
		const char *colon = strchr(svc, ':');
		const char *cmd = colon ? colon + 1 : "";
		int v2 = 0;
		for (const char *a = svc + 5; a < (colon ? colon : svc + strlen(svc));) {
			size_t n = strcspn(a + 1, ",:");
			if (n == 2 && !strncmp(a + 1, "v2", 2))
				v2 = 1;
			a += 1 + n;
		}
		if (v2 && o.no_shell_v2)
			goto refuse;
		s->kind = v2 ? SK_SHELL_V2 : SK_RAW;
		/* before shell v2 (Android N), adbd ran every shell command on a pty: merged streams, CRLF */
		s->onlcr = !v2 && o.no_shell_v2;
		if (spawn_shell(s, cmd, v2 ? ERR_PIPE : ERR_MERGE))
			goto refuse;
		kvb_sim_log("shell%s pid %d: %s", v2 ? " v2" : "", (int)s->pid, cmd);
		return s;
	}
	if (!strncmp(svc, "exec:", 5)) {
		s->kind = SK_RAW;
		if (spawn_shell(s, svc + 5, ERR_NULL))
			goto refuse;
		return s;
	}
	if (!strcmp(svc, "sync:")) {
		s->kind = SK_SYNC;
		return s;
	}
	if (!strcmp(svc, "root:")) {
		/* AOSP adb daemon/restart_service.cpp restart_root_service, its three answers */
		s->kind = SK_TEXT;
		if (g_adbd_root) {
			kvb_buf_adds(&s->out, "adbd is already running as root\n");
		} else if (o.user_build) {
			kvb_buf_adds(&s->out, "adbd cannot run as root in production builds\n");
		} else {
			/* sets service.adb.root=1; adbd exits when this stream closes and init starts it again */
			set_prop("service.adb.root", "1");
			kvb_buf_adds(&s->out, "restarting adbd as root\n");
			if (!g_adbd_restart_at_ns)
				g_adbd_restart_at_ns = kvb_mono_ns() + 100000000ull; /* let the close reach the host first */
		}
		s->closing = 1;
		return s;
	}
	if (!strncmp(svc, "reboot:", 7)) {
		s->kind = SK_TEXT;
		s->reboot_mode = !strcmp(svc + 7, "bootloader") ? "bootloader" : !strcmp(svc + 7, "recovery") ? "recovery" : "";
		s->closing = 1;
		return s;
	}
refuse:
	kvb_sim_log("refusing service '%s'", svc);
	stream_free(s);
	return NULL;
}

static void handle_message(struct conn *c, uint32_t cmd, uint32_t a0, uint32_t a1, const unsigned char *data,
			   uint32_t len)
{
	struct stream *s;
	if (cmd == A_CNXN) {
		static const char props[] = "device::ro.product.name=kvbsim;ro.product.model=kvbsim;ro.product.device=kvbsim;";
		if (o.no_shell_v2) {
			/*
			 * An adbd from before Android N (AOSP android-6.0.1_r1 adb/adb.cpp send_connect and
			 * fill_connect_data): version A_VERSION_PRE_N, its own MAX_PAYLOAD 4096 whatever the
			 * host asked, the banner with no "features=" at all and its NUL counted in the length.
			 * The host then knows no feature of the device: `adb features` prints nothing.
			 */
			c->max_payload = PRE_N_MAX_PAYLOAD;
			send_msg(c, A_CNXN, A_VERSION_PRE_N, PRE_N_MAX_PAYLOAD, props, sizeof(props));
		} else {
			char banner[512];
			uint32_t version = a0 < A_VERSION ? a0 : A_VERSION;
			c->max_payload = a1 < SIM_MAX_PAYLOAD ? a1 : SIM_MAX_PAYLOAD;
			if (c->max_payload < 4096)
				c->max_payload = 4096;
			snprintf(banner, sizeof(banner), "%sfeatures=shell_v2,stat_v2,ls_v2,fixed_push_mkdir", props);
			/* adbd answers min(host's, its own) (tests/fixtures/field/adb: arg1 0x100000) */
			send_msg(c, A_CNXN, version, c->max_payload, banner, strlen(banner));
		}
		c->online = 1;
		kvb_sim_log("CNXN from host (version %#x, max payload %u)", a0, a1);
		return;
	}
	if (!c->online)
		return; /* nothing but CNXN is valid before CNXN */
	switch (cmd) {
	case A_OPEN: {
		char *svc = kvb_xstrndup((const char *)data, len);
		s = open_service(c, svc);
		free(svc);
		if (!s) {
			send_msg(c, A_CLSE, 0, a0, NULL, 0);
			return;
		}
		s->id = c->next_id++;
		s->peer = a0;
		s->next = c->streams;
		c->streams = s;
		send_msg(c, A_OKAY, s->id, s->peer, NULL, 0);
		if (s->reboot_mode && !g_reboot_at_ns) {
			g_reboot_at_ns = kvb_mono_ns() + 100000000ull; /* let the close reach the host first */
			g_reboot_mode = s->reboot_mode;
		}
		return;
	}
	case A_OKAY:
		if ((s = stream_find(c, a1)))
			s->can_send = 1;
		return;
	case A_WRTE:
		s = stream_find(c, a1);
		if (!s)
			return;
		send_msg(c, A_OKAY, s->id, s->peer, NULL, 0);
		if (s->kind == SK_SYNC) {
			kvb_buf_add(&s->in, data, len);
			if (sync_feed(s) < 0)
				s->closing = 1;
		} else if (s->kind == SK_RAW) {
			kvb_buf_add(&s->in, data, len);
			pump_stdin(s);
		} else if (s->kind == SK_SHELL_V2) {
			/* Packets may span WRTEs: unparsed bytes wait in s->pkt. */
			kvb_buf_add(&s->pkt, data, len);
			size_t off = 0;
			while (s->pkt.len - off >= 5) {
				const unsigned char *p = (const unsigned char *)s->pkt.data + off;
				uint32_t plen = get_u32(p + 1);
				if (s->pkt.len - off < 5 + (size_t)plen)
					break;
				if (p[0] == PKT_STDIN)
					kvb_buf_add(&s->in, p + 5, plen);
				else if (p[0] == PKT_CLOSE_STDIN)
					s->close_stdin = 1;
				off += 5 + plen;
			}
			if (off) {
				memmove(s->pkt.data, s->pkt.data + off, s->pkt.len - off);
				s->pkt.len -= off;
				s->pkt.data[s->pkt.len] = '\0';
			}
			pump_stdin(s);
		}
		return;
	case A_CLSE:
		if ((s = stream_find(c, a1))) {
			kvb_sim_log("host closed stream %u", s->id);
			stream_unlink(c, s);
		}
		return;
	default:
		kvb_sim_log("ignoring command %#x", cmd);
	}
}

/* Parses every complete message in c->in. */
static void conn_feed(struct conn *c)
{
	while (!c->dead) {
		const unsigned char *p = (const unsigned char *)c->in.data + c->in_off;
		size_t avail = c->in.len - c->in_off;
		uint32_t cmd, len;
		if (avail < 24)
			break;
		cmd = get_u32(p);
		len = get_u32(p + 12);
		if (get_u32(p + 20) != (cmd ^ 0xffffffffu) || len > 1024u * 1024u) {
			kvb_sim_log("bad message header: dropping the connection");
			c->dead = 1;
			return;
		}
		if (avail < 24 + (size_t)len)
			break;
		c->in_off += 24 + len;
		handle_message(c, cmd, get_u32(p + 4), get_u32(p + 8), p + 24, len);
	}
	if (c->in_off == c->in.len) {
		kvb_buf_reset(&c->in);
		c->in_off = 0;
	}
}

/* Moves child output to the stream queue, notices exit, sends WRTE/CLSE as flow control allows. */
static void stream_progress(struct conn *c, struct stream *s)
{
	if (s->pid > 0 && !s->exited) {
		int st;
		if (waitpid(s->pid, &st, WNOHANG) == s->pid) {
			s->exited = 1;
			s->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		}
	}
	if (s->pid > 0 && s->exited && s->out_fd < 0 && s->err_fd < 0 && !s->closing) {
		if (s->kind == SK_SHELL_V2) {
			unsigned char code = (unsigned char)s->status;
			shell_packet(s, PKT_EXIT, &code, 1);
		}
		kvb_sim_log("stream %u: command exited with %d", s->id, s->status);
		s->closing = 1;
	}
	while (s->can_send && s->out_off < s->out.len && !c->dead) {
		size_t n = s->out.len - s->out_off;
		if (n > c->max_payload)
			n = c->max_payload;
		send_msg(c, A_WRTE, s->id, s->peer, s->out.data + s->out_off, n);
		s->out_off += n;
		s->can_send = 0;
	}
	if (s->out_off == s->out.len) {
		kvb_buf_reset(&s->out);
		s->out_off = 0;
		if (s->closing) {
			send_msg(c, A_CLSE, s->id, s->peer, NULL, 0);
			stream_unlink(c, s);
		}
	}
}

/* Reads one child pipe into the stream. */
static void read_child(struct stream *s, int *fd, int pkt)
{
	char buf[65536];
	ssize_t n = read(*fd, buf, sizeof(buf));
	if (n > 0) {
		if (s->kind == SK_SHELL_V2) {
			shell_packet(s, pkt, buf, (size_t)n);
		} else if (s->onlcr) {
			/* a tty's ONLCR output processing: each "\n" becomes "\r\n" (also after an existing "\r") */
			for (ssize_t i = 0; i < n; i++) {
				if (buf[i] == '\n')
					kvb_buf_addc(&s->out, '\r');
				kvb_buf_addc(&s->out, buf[i]);
			}
		} else {
			kvb_buf_add(&s->out, buf, (size_t)n);
		}
	} else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
		close(*fd);
		*fd = -1;
	}
}

static void conn_free(struct conn *c)
{
	while (c->streams)
		stream_unlink(c, c->streams);
	close(c->fd);
	kvb_buf_release(&c->in);
	kvb_buf_release(&c->out);
	free(c);
}

static void drop_all(const char *why)
{
	kvb_sim_log("dropping all connections (%s)", why);
	for (struct conn *c = g_conns; c; c = c->next)
		c->dead = 1;
}

/* Stops listening for ms (the device is unreachable); a new boot starts on return if boots. */
static void go_offline(uint64_t ms, int boots)
{
	if (g_listen >= 0)
		close(g_listen);
	g_listen = -1;
	g_relisten_at_ns = kvb_mono_ns() + ms * 1000000ull + 1;
	g_relisten_boots = boots;
}

/* A pulled cable: every connection drops; with --drop-offline-ms the device stays away a while. */
static void cable_pull(const char *why)
{
	drop_all(why);
	if (o.drop_offline_ms)
		go_offline(o.drop_offline_ms, 0);
}

static void accept_conn(void)
{
	int fd = accept4(g_listen, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	int one = 1;
	struct conn *c;
	if (fd < 0)
		return;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c = kvb_xcalloc(1, sizeof(*c));
	c->fd = fd;
	c->next_id = 1;
	c->max_payload = 4096;
	kvb_buf_init(&c->in);
	kvb_buf_init(&c->out);
	c->next = g_conns;
	g_conns = c;
	kvb_sim_log("connection accepted");
}

/* ---- main loop ---------------------------------------------------------------------------- */

enum pfd_kind { PF_LISTEN, PF_CONN, PF_OUT, PF_ERR, PF_IN };
struct pfd_ref {
	enum pfd_kind kind;
	struct conn *c;
	struct stream *s;
};

/* The bootloader holds the board (--hold-bootloader and STATE/bootloader exists). */
static int in_bootloader(void)
{
	char *p;
	int in;
	if (!o.hold_bootloader)
		return 0;
	p = kvb_xasprintf("%s/bootloader", o.state);
	in = !access(p, F_OK);
	free(p);
	return in;
}

static void timers(void)
{
	uint64_t now = kvb_mono_ns();
	char *drop = kvb_xasprintf("%s/drop", o.state);
	if (!access(drop, F_OK)) {
		unlink(drop);
		cable_pull("drop file");
	}
	free(drop);
	if (g_boot_at_ns && now >= g_boot_at_ns && g_listen >= 0) {
		set_prop("sys.boot_completed", "1");
		g_boot_at_ns = 0;
		kvb_sim_log("boot completed");
	}
	if (o.drop_after_ms)
		for (struct conn *c = g_conns; c; c = c->next)
			for (struct stream *s = c->streams; s; s = s->next)
				if ((s->kind == SK_SHELL_V2 || s->kind == SK_RAW) && !s->exited &&
				    now - s->open_ns >= o.drop_after_ms * 1000000ull) {
					cable_pull("--drop-after-ms");
					break;
				}
	if (g_reboot_at_ns && now >= g_reboot_at_ns) {
		char *mode = kvb_xasprintf("%s\n", g_reboot_mode);
		state_file("last_reboot", mode);
		if (o.hold_bootloader && !strcmp(g_reboot_mode, "bootloader"))
			state_file("bootloader", "");
		free(mode);
		drop_all("reboot");
		go_offline(o.reboot_delay_ms, 1);
		set_prop("sys.boot_completed", NULL);
		g_boot_at_ns = 0;
		g_reboot_at_ns = 0;
		kvb_sim_log("rebooting (%s), back in %llu ms", *g_reboot_mode ? g_reboot_mode : "normal",
		     (unsigned long long)o.reboot_delay_ms);
	}
	if (g_adbd_restart_at_ns && now >= g_adbd_restart_at_ns) {
		g_adbd_restart_at_ns = 0;
		g_adbd_root = 1;
		drop_all("adbd restarts as root");
		go_offline(o.adbd_restart_ms, 0);
		kvb_sim_log("adbd restarting as root, back in %llu ms", (unsigned long long)o.adbd_restart_ms);
	}
	if (g_relisten_at_ns && now >= g_relisten_at_ns && !in_bootloader()) {
		g_relisten_at_ns = 0;
		if (open_listener())
			kvb_sim_stop = 1;
		else if (g_relisten_boots)
			start_boot();
	}
}

static int run(void)
{
	struct pollfd *pf = NULL;
	struct pfd_ref *ref = NULL;
	size_t cap = 0;

	while (!kvb_sim_stop) {
		size_t n = 0;
		int busy = 0;
		timers();
		/* Reap dead connections. */
		for (struct conn **pp = &g_conns; *pp;) {
			if ((*pp)->dead) {
				struct conn *d = *pp;
				*pp = d->next;
				conn_free(d);
				kvb_sim_log("connection closed");
			} else {
				pp = &(*pp)->next;
			}
		}
		for (struct conn *c = g_conns; c; c = c->next) {
			for (struct stream *s = c->streams; s; s = s->next)
				cap += 4;
			cap += 1;
		}
		cap += 1;
		pf = kvb_xrealloc(pf, cap * sizeof(*pf));
		ref = kvb_xrealloc(ref, cap * sizeof(*ref));
		if (g_listen >= 0) {
			pf[n] = (struct pollfd){ .fd = g_listen, .events = POLLIN };
			ref[n++] = (struct pfd_ref){ PF_LISTEN, NULL, NULL };
		}
		for (struct conn *c = g_conns; c; c = c->next) {
			pf[n] = (struct pollfd){ .fd = c->fd, .events = (short)(POLLIN | (c->out_off < c->out.len ? POLLOUT : 0)) };
			ref[n++] = (struct pfd_ref){ PF_CONN, c, NULL };
			for (struct stream *s = c->streams; s; s = s->next) {
				int room = s->out.len - s->out_off < OUT_HIGH_WATER;
				if (s->pid > 0 && !s->exited)
					busy = 1;
				if (s->out_fd >= 0 && room) {
					pf[n] = (struct pollfd){ .fd = s->out_fd, .events = POLLIN };
					ref[n++] = (struct pfd_ref){ PF_OUT, c, s };
				}
				if (s->err_fd >= 0 && room) {
					pf[n] = (struct pollfd){ .fd = s->err_fd, .events = POLLIN };
					ref[n++] = (struct pfd_ref){ PF_ERR, c, s };
				}
				if (s->in_fd >= 0 && s->in_off < s->in.len) {
					pf[n] = (struct pollfd){ .fd = s->in_fd, .events = POLLOUT };
					ref[n++] = (struct pfd_ref){ PF_IN, c, s };
				}
			}
		}
		cap = 0;
		if (poll(pf, (nfds_t)n, busy ? 20 : 50) < 0) {
			if (errno == EINTR)
				continue;
			perror("adbd_sim: poll");
			break;
		}
		for (size_t i = 0; i < n; i++) {
			struct pfd_ref *r = &ref[i];
			if (!pf[i].revents)
				continue;
			switch (r->kind) {
			case PF_LISTEN:
				accept_conn();
				break;
			case PF_CONN: {
				if (pf[i].revents & POLLOUT)
					flush_conn(r->c);
				if (pf[i].revents & (POLLIN | POLLHUP | POLLERR)) {
					char buf[65536];
					ssize_t got = recv(r->c->fd, buf, sizeof(buf), 0);
					if (got > 0) {
						kvb_buf_add(&r->c->in, buf, (size_t)got);
						conn_feed(r->c);
					} else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
						r->c->dead = 1;
					}
				}
				break;
			}
			default:
				/* A stream may have been freed by a CLSE handled earlier in this round. */
				{
					int alive = 0;
					for (struct stream *s = r->c->streams; s; s = s->next)
						alive |= s == r->s;
					if (!alive || r->c->dead)
						break;
				}
				if (r->kind == PF_OUT && r->s->out_fd == pf[i].fd)
					read_child(r->s, &r->s->out_fd, PKT_STDOUT);
				else if (r->kind == PF_ERR && r->s->err_fd == pf[i].fd)
					read_child(r->s, &r->s->err_fd, PKT_STDERR);
				else if (r->kind == PF_IN)
					pump_stdin(r->s);
				break;
			}
		}
		for (struct conn *c = g_conns; c; c = c->next) {
			struct stream *s = c->streams;
			while (s && !c->dead) {
				struct stream *next = s->next;
				stream_progress(c, s);
				s = next;
			}
		}
	}
	free(pf);
	free(ref);
	while (g_conns) {
		struct conn *d = g_conns;
		g_conns = d->next;
		conn_free(d);
	}
	if (g_listen >= 0)
		close(g_listen);
	return 0;
}

static void usage(FILE *f)
{
	fputs("usage: adbd_sim --root DIR [--port N] [--port-file FILE] [--state DIR]\n"
	      "                [--boot-delay-ms N] [--reboot-delay-ms N] [--drop-after-ms N]\n"
	      "                [--drop-offline-ms N] [--adbd-shell] [--user-build] [--adbd-restart-ms N]\n"
	      "                [--no-shell-v2] [--toolbox] [--hold-bootloader] [--serialno S] [-v]\n"
	      "A simulated adbd for tests: speaks the ADB protocol on 127.0.0.1:PORT (0 = any free port,\n"
	      "written to --port-file). Commands run with /bin/sh -c in the sandbox DIR; paths are used as\n"
	      "given. sys.boot_completed becomes 1 boot-delay-ms after start and after each reboot;\n"
	      "reboot: drops the connection and listens again after reboot-delay-ms (default 2000);\n"
	      "drop-after-ms drops the connection once a shell command has run that long (also done when\n"
	      "the file STATE/drop appears) and drop-offline-ms keeps the device away that long after.\n"
	      "--hold-bootloader: reboot:bootloader creates STATE/bootloader and the device stays away\n"
	      "until that file is removed (fastboot_sim --adb-state STATE plays the bootloader).\n"
	      "root: answers as AOSP's adbd: \"adbd is already running as root\" (the default: adbd runs\n"
	      "as root), with --adbd-shell (adbd starts as shell each boot) \"restarting adbd as root\" then\n"
	      "adbd is away adbd-restart-ms (default 1000) and comes back as root (service.adb.root=1),\n"
	      "and with --user-build too \"adbd cannot run as root in production builds\".\n"
	      "--no-shell-v2 plays an adbd from before Android N (see the top of adbd_sim.c).\n"
	      "--toolbox: commands run as on Android 4.4/5.x: with mksh and only the toolbox's commands on\n"
	      "the PATH (no uname, no printf, no taskset).\n",
	      f);
}

static int parse_ms(const char *s, uint64_t *out)
{
	int64_t v;
	if (kvb_parse_i64(s, &v) || v < 0)
		return -1;
	*out = (uint64_t)v;
	return 0;
}

int main(int argc, char **argv)
{
	kvb_sim_name = "adbd_sim";
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int64_t n;
		int bad = 0;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "-v")) {
			kvb_sim_verbose = 1;
			continue;
		} else if (!strcmp(a, "--no-shell-v2")) {
			o.no_shell_v2 = 1;
			continue;
		} else if (!strcmp(a, "--hold-bootloader")) {
			o.hold_bootloader = 1;
			continue;
		} else if (!strcmp(a, "--adbd-shell")) {
			o.adbd_shell = 1;
			continue;
		} else if (!strcmp(a, "--user-build")) {
			o.user_build = 1;
			continue;
		} else if (!strcmp(a, "--toolbox")) {
			o.toolbox = 1;
			continue;
		}
		if (!v) {
			fprintf(stderr, "adbd_sim: '%s' needs a value (or is unknown)\n", a);
			return 2;
		}
		i++;
		if (!strcmp(a, "--root"))
			o.root = v;
		else if (!strcmp(a, "--state"))
			o.state = kvb_xstrdup(v);
		else if (!strcmp(a, "--port"))
			bad = kvb_parse_i64(v, &n) || n < 0 || n > 65535 || ((o.port = (int)n), 0);
		else if (!strcmp(a, "--port-file"))
			o.port_file = v;
		else if (!strcmp(a, "--boot-delay-ms"))
			bad = parse_ms(v, &o.boot_delay_ms);
		else if (!strcmp(a, "--reboot-delay-ms"))
			bad = parse_ms(v, &o.reboot_delay_ms);
		else if (!strcmp(a, "--drop-after-ms"))
			bad = parse_ms(v, &o.drop_after_ms);
		else if (!strcmp(a, "--drop-offline-ms"))
			bad = parse_ms(v, &o.drop_offline_ms);
		else if (!strcmp(a, "--adbd-restart-ms"))
			bad = parse_ms(v, &o.adbd_restart_ms);
		else if (!strcmp(a, "--serialno"))
			o.serialno = v;
		else {
			fprintf(stderr, "adbd_sim: unknown option '%s'\n", a);
			usage(stderr);
			return 2;
		}
		if (bad) {
			fprintf(stderr, "adbd_sim: bad value '%s' for %s\n", v, a);
			return 2;
		}
	}
	if (!o.root) {
		usage(stderr);
		return 2;
	}
	{
		static char abs_root[4096];
		if (!realpath(o.root, abs_root)) {
			fprintf(stderr, "adbd_sim: sandbox '%s': %s\n", o.root, strerror(errno));
			return 2;
		}
		o.root = abs_root;
	}
	if (o.state && o.state[0] != '/') {
		char cwd[4096];
		char *abs_state;
		if (!getcwd(cwd, sizeof(cwd)))
			return 1;
		abs_state = kvb_xasprintf("%s/%s", cwd, o.state);
		free(o.state);
		o.state = abs_state;
	}
	if (o.port_file && o.port_file[0] != '/') {
		static char abs_pf[8192];
		char cwd[4096];
		if (!getcwd(cwd, sizeof(cwd)))
			return 1;
		snprintf(abs_pf, sizeof(abs_pf), "%s/%s", cwd, o.port_file);
		o.port_file = abs_pf;
	}
	if (chdir(o.root) || setup_state() || (o.toolbox && setup_toolbox()))
		return 1;
	kvb_sim_catch_signals();
	if (open_listener())
		return 1;
	if (o.port_file)
		kvb_sim_write_port_file(o.port_file, o.port);
	start_boot();
	run();
	free(o.state);
	kvb_sim_log("stopped");
	return 0;
}
