/*
 * kvbench's QEMU counting plugin (qemu-plugin/kvb_tbcount.c) loaded by a real QEMU, in user mode
 * (qemu-x86_64, Debian's qemu-user 7.2: the same TCG and plugin loader as the boards'
 * qemu-system-x86_64, seconds instead of a boot): two dumps around spin(N) of
 * tests/integration/tbcount_spin.c (a loop of exactly two instructions an iteration) make a
 * window in which spin has 2N instructions and a few, mapped through the program's `nm` (the
 * format of /proc/kallsyms); the counter's totals agree with its dumps; a bad request gets the
 * plugin's error. Skipped (77) when the plugin was not built or qemu-x86_64 is missing.
 */
#include "core/spawn.h"
#include "core/tbcount.h"
#include "core/util.h"

#include "test.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define N 3000000ul

int kvb_test_failures;

static char dir[] = "/tmp/kvb-tbcount.XXXXXX";

/* waits up to 60 s for file to exist and (needle non-NULL) hold needle */
static int wait_for(const char *file, const char *needle)
{
	for (int i = 0; i < 1200; i++) {
		struct kvb_buf b = KVB_BUF_INIT;
		int ok = !access(file, F_OK) && (!needle || (!kvb_buf_read_file(&b, file) && b.data && strstr(b.data, needle)));
		kvb_buf_release(&b);
		if (ok)
			return 1;
		usleep(50000);
	}
	return 0;
}

static char *nm_of(const char *prog)
{
	const char *argv[] = { "nm", prog, NULL };
	struct kvb_spawn_opts o = { 0 };
	struct kvb_exec_result r;
	struct kvb_error e;
	char *s = NULL;
	o.argv = argv;
	o.timeout_ms = 60000;
	kvb_exec_result_init(&r);
	if (!kvb_spawn_run(&o, &r, &e) && !r.exit_code)
		s = kvb_xstrdup(r.out.data ? r.out.data : "");
	kvb_exec_result_release(&r);
	return s;
}

int main(void)
{
	const char *bd = getenv("KVB_BUILD_DIR");
	char *so = kvb_xasprintf("%s/kvb-tbcount.so", bd ? bd : "build");
	char *prog = kvb_xasprintf("%s/tests/tbcount_spin", bd ? bd : "build");
	char *sock, *fifo, *out, *d0, *d1, *plug, *syms;
	const char *argv[6];
	struct kvb_spawn_opts o = { 0 };
	struct kvb_bgproc bg;
	struct kvb_insn_count c0, c1, cx;
	struct kvb_error err;
	struct kvb_tb_dump a, b;
	struct kvb_tb_window w;
	struct kvb_profile *p;
	char why[256];
	int fd, status;

	if (access(so, R_OK)) {
		printf("SKIP: %s not built (no qemu-plugin.h at build time: scripts/get-qemu-plugin-header)\n", so);
		return 77;
	}
	if (system("command -v qemu-x86_64 >/dev/null 2>&1")) {
		printf("SKIP: qemu-x86_64 (Debian qemu-user) is not installed\n");
		return 77;
	}
	if (!mkdtemp(dir))
		return 1;
	sock = kvb_xasprintf("%s/s.sock", dir);
	fifo = kvb_xasprintf("%s/in", dir);
	out = kvb_xasprintf("%s/out", dir);
	d0 = kvb_xasprintf("%s/d0", dir);
	d1 = kvb_xasprintf("%s/d1", dir);
	plug = kvb_xasprintf("%s,sock=%s", so, sock);
	CHECK(!mkfifo(fifo, 0600));
	argv[0] = "qemu-x86_64";
	argv[1] = "-plugin";
	argv[2] = plug;
	argv[3] = prog;
	argv[4] = "3000000";
	argv[5] = NULL;
	o.argv = argv;
	o.stdin_path = fifo;
	o.stdout_path = out;
	/* read-write: opening it does not wait for the child, whose stdin then opens at once */
	fd = open(fifo, O_RDWR);
	CHECK(fd >= 0);
	CHECK(!kvb_spawn_bg(&o, &bg, &err));
	CHECK(wait_for(sock, NULL));

	CHECK(!kvb_tbcount_request(sock, d0, &c0, &err));
	CHECK(write(fd, "x", 1) == 1);
	CHECK(wait_for(out, "spun"));
	CHECK(!kvb_tbcount_request(sock, d1, &c1, &err));
	CHECK(!kvb_tbcount_request(sock, NULL, &cx, &err));
	CHECK(cx.instructions >= c1.instructions);
	CHECK(kvb_tbcount_request(sock, "/nonexistent/dir/x", &cx, &err) == KVB_ETARGET);
	CHECK_CONTAINS(err.msg, "/nonexistent/dir/x");
	CHECK(write(fd, "y", 1) == 1);
	close(fd);
	CHECK(waitpid(bg.pid, &status, 0) == bg.pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);

	CHECK(!kvb_tb_dump_read(d0, &a, &err));
	CHECK(!kvb_tb_dump_read(d1, &b, &err));
	syms = nm_of(prog);
	CHECK(syms != NULL);
	p = kvb_tb_window_profile(&a, &b, syms, &w, why, sizeof(why));
	CHECK(p != NULL);
	if (p) {
		uint64_t spin = 0, sum = 0;
		for (size_t i = 0; i < p->n; i++) {
			sum += p->v[i].samples;
			if (!strcmp(p->v[i].symbol, "spin"))
				spin = p->v[i].samples;
			CHECK(p->v[i].mode == '.');
		}
		/* two instructions an iteration, plus its entry and ret */
		CHECK(spin >= 2 * N && spin <= 2 * N + 16);
		CHECK(!strcmp(p->v[0].symbol, "spin"));
		CHECK(sum == w.instructions);
		CHECK(w.instructions == c1.instructions - c0.instructions);
		CHECK(w.negative == 0);
		CHECK(w.kernel == 0);
		for (size_t i = 0; i < p->n && i < 3; i++)
			printf("  %s %s %llu\n", p->v[i].dso, p->v[i].symbol, (unsigned long long)p->v[i].samples);
		printf("window %llu instructions, spin %llu (2N = %lu), %zu functions\n", (unsigned long long)w.instructions,
		       (unsigned long long)spin, 2 * N, p->n);
		kvb_profile_free(p);
	}
	/* the window from the program's start holds the same spin and the loader's work before it */
	p = kvb_tb_window_profile(NULL, &b, syms, &w, why, sizeof(why));
	CHECK(p && w.instructions == c1.instructions && w.instructions > 2 * N);
	kvb_profile_free(p);
	/* no function in the table: said */
	CHECK(kvb_tb_window_profile(&a, &b, "0000000000401000 D data\n", &w, why, sizeof(why)) == NULL);
	CHECK_CONTAINS(why, "no function");

	kvb_tb_dump_release(&a);
	kvb_tb_dump_release(&b);
	free(syms);
	unlink(d0);
	unlink(d1);
	unlink(out);
	unlink(fifo);
	unlink(sock);
	rmdir(dir);

	free(so);
	free(prog);
	free(sock);
	free(fifo);
	free(out);
	free(d0);
	free(d1);
	free(plug);
	return kvb_test_failures ? 1 : 0;
}
