/*
 * The job's kernel log without loss (instrument/kmsg.h): /dev/kmsg records between kvbench's
 * markers with their sequence numbers checked, and dmesg text (with or without timestamps)
 * aligned by content. Real shapes from tests/fixtures/field/kmsg (this machine's kernel).
 */
#include "core/buf.h"
#include "core/util.h"
#include "instrument/kmsg.h"

#include "test.h"

#include <stdlib.h>

static char *fixture(const char *name)
{
	struct kvb_buf b = KVB_BUF_INIT;
	const char *src = getenv("KVB_SOURCE_DIR");
	char *p = kvb_xasprintf("%s/tests/fixtures/field/kmsg/%s", src ? src : ".", name);
	if (kvb_buf_read_file(&b, p))
		fprintf(stderr, "cannot read %s\n", p);
	free(p);
	return kvb_buf_detach(&b);
}

static void test_kmsg__records_between_the_markers_none_lost(void)
{
	struct kvb_kmsg_job j;
	const char *text = "6,10,100,-;boot\n"
			   "14,11,200,-;kvbench: dmesg start N1\n"
			   "4,12,300,-;WARNING: CPU: 1 PID: 42 at kernel/sched/core.c:100\n"
			   " SUBSYSTEM=cpu\n"
			   "6,13,400,-;fine\n"
			   "14,14,500,-;kvbench: dmesg stop N1\n"
			   "6,15,600,-;after";   /* a last line cut by the kill */
	kvb_kmsg_slice(text, "kvbench: dmesg start N1", "kvbench: dmesg stop N1", &j);
	CHECK(j.have_start && j.have_stop && j.start_seq == 11 && j.stop_seq == 14);
	CHECK(j.n == 2 && j.lost == 0);
	CHECK(j.n == 2 && j.v[0].seq == 12 && j.v[0].prio == 4 && j.v[0].ts_us == 300);
	if (j.n == 2)
		CHECK_STR(j.v[1].msg, "fine");
	kvb_kmsg_job_release(&j);
}

static void test_kmsg__a_reader_that_started_over_after_epipe_names_what_was_overwritten(void)
{
	/* the reader read up to seq 13, was overtaken (EPIPE), started over at the oldest left: 40 */
	struct kvb_kmsg_job j;
	const char *text = "14,11,200,-;kvbench: x start N\n"
			   "6,12,300,-;WARNING: first\n"
			   "6,13,300,-;filler\n"
			   "6,40,900,-;filler\n"
			   "4,41,901,-;BUG: second\n"
			   "14,42,950,-;kvbench: x stop N\n";
	kvb_kmsg_slice(text, "kvbench: x start N", "kvbench: x stop N", &j);
	CHECK(j.n == 4 && j.lost == 26 && j.lost_first == 14 && j.lost_last == 39);
	kvb_kmsg_job_release(&j);
	/* read twice (a second pass from the oldest): each seq once, nothing lost */
	text = "14,11,200,-;kvbench: x start N\n6,12,300,-;a\n14,11,200,-;kvbench: x start N\n6,12,300,-;a\n"
	       "6,13,300,-;b\n14,14,400,-;kvbench: x stop N\n";
	kvb_kmsg_slice(text, "kvbench: x start N", "kvbench: x stop N", &j);
	CHECK(j.records_read == 6 && j.n == 2 && j.lost == 0);
	kvb_kmsg_job_release(&j);
	/* the start marker itself was overwritten: nothing of the job can be trusted */
	text = "6,40,900,-;filler\n14,42,950,-;kvbench: x stop N\n";
	kvb_kmsg_slice(text, "kvbench: x start N", "kvbench: x stop N", &j);
	CHECK(!j.have_start && j.n == 0 && j.first_seq == 40);
	kvb_kmsg_job_release(&j);
}

static void test_kmsg__real_records_continuations_and_a_seq_jump(void)
{
	/* this machine's /dev/kmsg: markers put around a real excerpt whose seq jumps 109 -> 189 (26 records: 94-109, 189-198) */
	char *real = fixture("devkmsg-6.18-boot-excerpt.txt");
	char *text = kvb_xasprintf("14,93,1,-;kvbench: m start R\n%s14,199,2,-;kvbench: m stop R\n", real);
	struct kvb_kmsg_job j;
	kvb_kmsg_slice(text, "kvbench: m start R", "kvbench: m stop R", &j);
	CHECK(j.n == 26 && j.lost == 79 && j.lost_first == 110 && j.lost_last == 188);
	if (j.n == 26)
		CHECK_STR(j.v[8].msg, "rcu: \\x09RCU restricting CPUs from NR_CPUS=256 to nr_cpu_ids=2.");
	kvb_kmsg_job_release(&j);
	free(text);
	free(real);
}

static void test_dmesg__no_timestamps_and_the_start_line_repeats(void)
{
	/* the issue's case: no printk time, the start's last line is printed again during the job */
	struct kvb_dmesg_new nw;
	char *real = fixture("dmesg-notime-6.18-boot-excerpt.txt");
	char *before = kvb_xasprintf("%seth0: link up\n", real);
	char *after = kvb_xasprintf("%seth0: link up\nWARNING: CPU: 1 PID: 7 at mm/slub.c:1\neth0: link up\n", real);
	kvb_dmesg_new_lines(before, after, &nw);
	CHECK_STR(nw.from, "WARNING: CPU: 1 PID: 7 at mm/slub.c:1\neth0: link up\n");
	CHECK(!nw.start_lost && nw.dropped_old == 0);
	free(before);
	free(after);
	free(real);
}

static void test_dmesg__a_wrapped_log_is_joined_where_it_overlaps_or_refused(void)
{
	struct kvb_dmesg_new nw;
	/* the ring dropped a and b; the start's c d are still there: the job's lines are e f */
	kvb_dmesg_new_lines("a\nb\nc\nd\n", "c\nd\ne\nf\n", &nw);
	CHECK_STR(nw.from, "e\nf\n");
	CHECK(nw.dropped_old == 2 && !nw.start_lost);
	/* repeated lines: the longest overlap is the join (x x was the start's end) */
	kvb_dmesg_new_lines("a\nx\nx\n", "x\nx\nWARNING\nx\n", &nw);
	CHECK_STR(nw.from, "WARNING\nx\n");
	/* none of the start is left: all of the stop's log is the job's, and some may be lost */
	kvb_dmesg_new_lines("a\nb\n", "e\nf\n", &nw);
	CHECK(nw.start_lost);
	CHECK_STR(nw.from, "e\nf\n");
	/* an empty log at the start */
	kvb_dmesg_new_lines("", "e\n", &nw);
	CHECK_STR(nw.from, "e\n");
	CHECK(!nw.start_lost);
}

#define TESTS                                                                                                          \
	T(test_kmsg__records_between_the_markers_none_lost)                                                           \
	T(test_kmsg__a_reader_that_started_over_after_epipe_names_what_was_overwritten)                               \
	T(test_kmsg__real_records_continuations_and_a_seq_jump)                                                       \
	T(test_dmesg__no_timestamps_and_the_start_line_repeats)                                                       \
	T(test_dmesg__a_wrapped_log_is_joined_where_it_overlaps_or_refused)
#include "test_main.h"
