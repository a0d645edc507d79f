/* The progress line of a long step (core/progress.h), as kbuild's builds and the qemu board's boots print it in a log. */
#include "core/buf.h"
#include "core/progress.h"
#include "core/util.h"
#include "test.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define S 1000000000ull

/* stderr into a file while fn runs p; returns what was written. Owned. */
static char *stderr_of(void (*fn)(struct kvb_progress *), struct kvb_progress *p)
{
	char path[] = "/tmp/kvb-test-progress-XXXXXX";
	int fd = mkstemp(path), saved = dup(2);
	struct kvb_buf b = KVB_BUF_INIT;
	fflush(stderr);
	dup2(fd, 2);
	fn(p);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(fd);
	kvb_buf_read_file(&b, path);
	unlink(path);
	return b.data ? kvb_buf_detach(&b) : kvb_xstrdup("");
}

static void tick(struct kvb_progress *p)
{
	kvb_progress_tick(p, "ready marker seen, waiting for sshd");
}

/* Not on a terminal: nothing in the first 30 s, then one line per every_s naming the step and its time. */
static void test_progress__a_log_gets_a_line_per_interval_after_30_s(void)
{
	struct kvb_progress p;
	char *out;
	kvb_progress_start(&p, "boot of variant 'k', round 2", 30, 0);
	p.tty = 0; /* whatever ctest's stderr is */
	out = stderr_of(tick, &p);
	CHECK_STR(out, ""); /* a 2 s boot says nothing */
	free(out);
	p.t0_ns -= 31 * S;
	out = stderr_of(tick, &p);
	CHECK_CONTAINS(out, "boot of variant 'k', round 2: 31 s  ready marker seen, waiting for sshd");
	free(out);
	out = stderr_of(tick, &p);
	CHECK_STR(out, ""); /* not again at once */
	free(out);
	p.last_ns -= 31 * S;
	p.t0_ns -= 31 * S;
	out = stderr_of(tick, &p);
	CHECK_CONTAINS(out, ": 62 s  ");
	free(out);
	/* a build's interval is a minute: 31 s after its last line is too early */
	kvb_progress_start(&p, "build 1a2b3c4d5e6f", 60, 0);
	p.tty = 0;
	p.t0_ns -= 100 * S;
	p.last_ns = kvb_mono_ns() - 31 * S;
	out = stderr_of(tick, &p);
	CHECK_STR(out, "");
	free(out);
	/* quiet prints nothing, ever */
	kvb_progress_start(&p, "build 1a2b3c4d5e6f", 60, 1);
	p.t0_ns -= 100 * S;
	CHECK(!kvb_progress_due(&p));
}

#define TESTS T(test_progress__a_log_gets_a_line_per_interval_after_30_s)
#include "test_main.h"
