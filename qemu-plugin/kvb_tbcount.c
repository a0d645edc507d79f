/*
 * kvbench's QEMU TCG plugin (docs/profile.md#counting-every-instruction, docs/design.md#profiles):
 * counts every guest instruction by translation block, interrupts off or not, and writes the
 * counts on request.
 *
 *   qemu-system-x86_64 ... -plugin PATH/kvb-tbcount.so,sock=/run/dir/tbcount.sock
 *
 * Every translation of a block gets its own record {start vaddr, end vaddr (after its last
 * instruction), instructions, executions}; the executions are an inline add of 1 at the block's
 * entry (qemu_plugin_register_vcpu_tb_exec_inline, QEMU_PLUGIN_INLINE_ADD_U64), so counting adds
 * one host instruction per block run and no callback. A thread serves the unix stream socket
 * named by `sock=`: each line is a request, each answer one line:
 *
 *   dump PATH   -> "ok RECORDS INSTRUCTIONS\n" after writing to PATH one line per record that ran:
 *                  "START END INSNS EXECS" (hex, hex, decimal, decimal; START/END guest virtual
 *                  addresses), INSTRUCTIONS = sum of INSNS x EXECS over them
 *   total       -> "ok RECORDS INSTRUCTIONS\n" without writing
 *   (else)      -> "error WHY\n"
 *
 * Two dumps around a window and their difference by START are the window's instructions by block.
 * Limits, as the plugin API has them (QEMU 7.2, docs/devel/tcg-plugins.rst): the inline add is not
 * atomic (a block run by two vCPU threads at once can lose counts: use one TCG thread, as -icount
 * does); a block left early (an exception in its middle, e.g. a page fault) counts all its
 * instructions; the counts are read while the guest runs (a dump is not one instant).
 * SIGUSR1 is QEMU's own (vCPU kicks): requests come over the socket only.
 */
#include <qemu-plugin.h>

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

struct rec {
	uint64_t execs; /* the inline add's target: first, 8-byte aligned */
	uint64_t start, end;
	uint64_t insns;
};

#define CHUNK 4096
#define MAX_CHUNKS 65536 /* 268 million translations */

static struct rec *chunks[MAX_CHUNKS];
static size_t nrec;            /* published with release: records below it are complete */
static pthread_mutex_t grow = PTHREAD_MUTEX_INITIALIZER;
static int lfd = -1;
static char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
static int full;

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	struct qemu_plugin_insn *last;
	struct rec *r;
	(void)id;
	if (!n)
		return;
	last = qemu_plugin_tb_get_insn(tb, n - 1);
	pthread_mutex_lock(&grow);
	i = nrec;
	if (i / CHUNK >= MAX_CHUNKS) {
		full = 1;
		pthread_mutex_unlock(&grow);
		return;
	}
	if (!chunks[i / CHUNK] && !(chunks[i / CHUNK] = calloc(CHUNK, sizeof(struct rec)))) {
		full = 1;
		pthread_mutex_unlock(&grow);
		return;
	}
	r = &chunks[i / CHUNK][i % CHUNK];
	r->start = qemu_plugin_tb_vaddr(tb);
	r->end = qemu_plugin_insn_vaddr(last) + qemu_plugin_insn_size(last);
	r->insns = n;
	r->execs = 0;
	__atomic_store_n(&nrec, i + 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&grow);
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &r->execs, 1);
}

/* Sums (and with f, writes) every record that ran. */
static void walk(FILE *f, uint64_t *records, uint64_t *insns)
{
	size_t n = __atomic_load_n(&nrec, __ATOMIC_ACQUIRE);
	*records = *insns = 0;
	for (size_t i = 0; i < n; i++) {
		const struct rec *r = &chunks[i / CHUNK][i % CHUNK];
		uint64_t e = __atomic_load_n(&r->execs, __ATOMIC_RELAXED);
		if (!e)
			continue;
		++*records;
		*insns += e * r->insns;
		if (f)
			fprintf(f, "%" PRIx64 " %" PRIx64 " %" PRIu64 " %" PRIu64 "\n", r->start, r->end, r->insns, e);
	}
}

static void answer(int fd, const char *line)
{
	char out[600];
	uint64_t records, insns;
	if (!strncmp(line, "dump ", 5)) {
		FILE *f = fopen(line + 5, "w");
		if (!f) {
			snprintf(out, sizeof(out), "error %.200s: %.200s\n", line + 5, strerror(errno));
		} else {
			walk(f, &records, &insns);
			if (fclose(f))
				snprintf(out, sizeof(out), "error %.200s: %.200s\n", line + 5, strerror(errno));
			else
				snprintf(out, sizeof(out), "ok %" PRIu64 " %" PRIu64 "%s\n", records, insns,
					 full ? " full" : "");
		}
	} else if (!strcmp(line, "total")) {
		walk(NULL, &records, &insns);
		snprintf(out, sizeof(out), "ok %" PRIu64 " %" PRIu64 "%s\n", records, insns, full ? " full" : "");
	} else {
		snprintf(out, sizeof(out), "error unknown request '%.100s' (dump PATH, total)\n", line);
	}
	if (write(fd, out, strlen(out)) < 0)
		return;
}

static void *serve(void *arg)
{
	(void)arg;
	for (;;) {
		char buf[4200];
		size_t have = 0;
		int fd = accept(lfd, NULL, NULL);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return NULL;
		}
		for (;;) {
			ssize_t got = read(fd, buf + have, sizeof(buf) - 1 - have);
			char *nl;
			if (got <= 0)
				break;
			have += (size_t)got;
			buf[have] = '\0';
			while ((nl = strchr(buf, '\n'))) {
				*nl = '\0';
				answer(fd, buf);
				have -= (size_t)(nl + 1 - buf);
				memmove(buf, nl + 1, have + 1);
			}
			if (have == sizeof(buf) - 1)
				break; /* a line too long: drop the connection */
		}
		close(fd);
	}
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	(void)id;
	(void)p;
	if (sock_path[0])
		unlink(sock_path);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	pthread_t th;
	(void)info;
	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "sock=", 5) && strlen(argv[i] + 5) < sizeof(sock_path)) {
			strcpy(sock_path, argv[i] + 5);
		} else {
			fprintf(stderr, "kvb-tbcount: unknown or too long argument '%s' (sock=PATH)\n", argv[i]);
			return -1;
		}
	}
	if (!sock_path[0]) {
		fprintf(stderr, "kvb-tbcount: needs sock=PATH (the unix socket it answers on)\n");
		return -1;
	}
	strcpy(a.sun_path, sock_path);
	unlink(sock_path);
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 4)) {
		fprintf(stderr, "kvb-tbcount: cannot listen on %s: %s\n", sock_path, strerror(errno));
		return -1;
	}
	if (pthread_create(&th, NULL, serve, NULL)) {
		fprintf(stderr, "kvb-tbcount: cannot start its thread\n");
		return -1;
	}
	pthread_detach(th);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
