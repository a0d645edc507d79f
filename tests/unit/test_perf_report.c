/*
 * The parser of `perf report --stdio --no-children -n` (kvb_perf_report_parse, core/profile.c)
 * on real outputs (tests/fixtures/field/perf-report): the padded form of a mail and the -t '|'
 * form of Debian's perf 6.1.
 */
#include "core/buf.h"
#include "core/profile.h"
#include "core/util.h"

#include "test.h"

#include <stdlib.h>

static char *fixture(const char *name)
{
	struct kvb_buf b = KVB_BUF_INIT;
	const char *src = getenv("KVB_SOURCE_DIR");
	char *p = kvb_xasprintf("%s/tests/fixtures/field/perf-report/%s", src ? src : ".", name);
	if (kvb_buf_read_file(&b, p))
		fprintf(stderr, "cannot read %s\n", p);
	free(p);
	return kvb_buf_detach(&b);
}

static const struct kvb_profile_sym *find(const struct kvb_profile *p, const char *sym)
{
	for (size_t i = 0; p && i < p->n; i++)
		if (!strcmp(p->v[i].symbol, sym))
			return &p->v[i];
	return NULL;
}

static void test_perf_report__padded_mail_output(void)
{
	char why[256] = "", *t = fixture("lkml-iperf3-cache-misses.txt");
	struct kvb_profile *p = kvb_perf_report_parse(t, why, sizeof(why));
	CHECK(p != NULL);
	if (!p) {
		fprintf(stderr, "%s\n", why);
		free(t);
		return;
	}
	CHECK_STR(p->event, "cache-misses");
	CHECK(p->event_count == 647900762ULL);
	CHECK(p->lost == -1); /* the block has no "Total Lost Samples" line */
	CHECK(p->n == 15);
	CHECK_STR(p->v[0].symbol, "arm_copy_from_user");
	CHECK_STR(p->v[0].dso, "[kernel.kallsyms]");
	CHECK(p->v[0].samples == 102932 && p->v[0].mode == 'k' && p->v[0].resolved);
	CHECK(find(p, "netdev_core_pick_tx") && find(p, "netdev_core_pick_tx")->samples == 3351);
	CHECK(p->samples == 102932 + 93906 + 10923 + 10886 + 9711 + 7718 + 7507 + 6124 + 5706 + 4028 + 3863 + 3801 +
				    3783 + 3723 + 3351);
	CHECK(p->kernel_samples == p->samples && p->kernel_resolved == p->samples);
	kvb_profile_free(p);
	free(t);
}

static void test_perf_report__separated_perf61_output(void)
{
	char why[256] = "", *t = fixture("debian-perf61-sep-pipe.txt");
	struct kvb_profile *p = kvb_perf_report_parse(t, why, sizeof(why));
	const struct kvb_profile_sym *s;
	CHECK(p != NULL);
	if (!p) {
		fprintf(stderr, "%s\n", why);
		free(t);
		return;
	}
	CHECK_STR(p->event, "cpu-clock:I");
	CHECK(p->lost == 0);
	CHECK(p->event_count == 1393541805ULL);
	CHECK(p->n == 40);
	CHECK(p->samples == 7334);
	CHECK(p->kernel_samples == 5076 && p->kernel_resolved == 5076);
	s = find(p, "anon_pipe_read");
	CHECK(s && s->samples == 97 && s->mode == 'k' && !strcmp(s->dso, "[kernel.kallsyms]"));
	s = find(p, "__memset_avx512_unaligned_erms");
	CHECK(s && s->samples == 373 && s->mode == '.' && !strcmp(s->dso, "libc.so.6"));
	s = find(p, "0x00000000000f636e");
	CHECK(s && !s->resolved && s->samples == 27 && !strcmp(s->dso, "perf"));
	kvb_profile_free(p);
	free(t);
}

/* rows of one symbol under two commands are summed; an unresolved kernel address counts against
 * kernel_resolved (what kptr_restrict=2 gives); a report without -n is refused */
static void test_perf_report__merges_and_refuses(void)
{
	char why[256] = "";
	const char *two = "# Samples: 5  of event 'cpu-clock'\n"
			  "# Overhead  Samples  Command  Shared Object      Symbol\n"
			  "# ........  .......  .......  .................  ..................\n"
			  "#\n"
			  "    40.00%        2  perf     [kernel.kallsyms]  [k] pipe_read\n"
			  "    20.00%        1  sshd     [kernel.kallsyms]  [k] pipe_read\n"
			  "    40.00%        2  perf     [unknown]          [k] 0xffffffff8a2c1f30\n";
	struct kvb_profile *p = kvb_perf_report_parse(two, why, sizeof(why));
	CHECK(p && p->n == 2 && p->samples == 5);
	CHECK(p && find(p, "pipe_read") && find(p, "pipe_read")->samples == 3);
	CHECK(p && p->kernel_samples == 5 && p->kernel_resolved == 3);
	kvb_profile_free(p);
	p = kvb_perf_report_parse("# Overhead  Command  Shared Object  Symbol\n"
				  "# ........  .......  .............  ......\n"
				  "    40.00%  perf  [kernel.kallsyms]  [k] pipe_read\n",
				  why, sizeof(why));
	CHECK(!p);
	CHECK_CONTAINS(why, "no Samples column");
	p = kvb_perf_report_parse("Error:\nThe perf.data data has no samples!\n", why, sizeof(why));
	CHECK(!p);
	CHECK_CONTAINS(why, "no column titles");
	CHECK(kvb_perf_lost_chunks("Warning:\nProcessed 120532 events and lost 7 chunks!\n\nCheck IO/CPU overload!\n") == 7);
	CHECK(kvb_perf_lost_chunks("") == 0);
}

#define TESTS                                                                                                          \
	T(test_perf_report__padded_mail_output)                                                                        \
	T(test_perf_report__separated_perf61_output)                                                                   \
	T(test_perf_report__merges_and_refuses)
#include "test_main.h"
