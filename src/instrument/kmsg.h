/*
 * The kernel log of a job, without loss or with the loss named (issue 25 item 5; the dmesg
 * instrument, dmesg.c). Two readers:
 *
 *  /dev/kmsg (Linux Documentation/ABI/testing/dev-kmsg): one record per read, a line
 *  "PRIO,SEQ,TS_USEC,FLAGS[,...];MESSAGE" followed by continuation lines " KEY=VALUE". SEQ
 *  numbers every record the kernel stored; a reader whose next record was overwritten gets
 *  EPIPE and then continues at the oldest record left. The job's records are those between
 *  a start and a stop marker kvbench writes into /dev/kmsg; a SEQ missing between them was
 *  overwritten before it was read (the ring buffer wrapped, WA3 #1114), and a marker not
 *  found means the log of the job is not whole. kvb_kmsg_slice() finds and checks them.
 *
 *  dmesg (the syslog interface, any board): the log read at start and at stop. No sequence
 *  numbers, perhaps no timestamps (CONFIG_PRINTK_TIME off, printk.time=0), so the lines of
 *  the job are found by content: when the start's log is a prefix of the stop's, the rest is
 *  the job's; when the ring buffer dropped old lines, the stop's log begins with a suffix of
 *  the start's (the longest such overlap is taken); when none of the start's log is left,
 *  the job's first lines may be lost too. kvb_dmesg_new_lines() does that. (Matching only
 *  the start's last line, as kvbench did, lost the job's lines whenever that line repeated
 *  during the job and the log had no timestamps.)
 */
#ifndef KVB_KMSG_H
#define KVB_KMSG_H

#include <stddef.h>
#include <stdint.h>

/* One /dev/kmsg record. */
struct kvb_kmsg_rec {
	int prio;          /* syslog facility * 8 + level */
	uint64_t seq;
	uint64_t ts_us;    /* microseconds since boot (the kernel's local clock) */
	char *msg;         /* owned; as /dev/kmsg escapes it (\xNN for non-printables) */
};

/* The records of a job: between its markers, each seq once, in seq order. */
struct kvb_kmsg_job {
	struct kvb_kmsg_rec *v;
	size_t n;
	size_t records_read;         /* record lines parsed (duplicates of a re-read included) */
	int have_start, have_stop;   /* the markers were found */
	uint64_t start_seq, stop_seq;
	uint64_t first_seq;          /* lowest seq read (the oldest record when the reader started) */
	uint64_t lost;               /* seqs between the markers that were not read */
	uint64_t lost_first, lost_last; /* the lowest and highest of them */
};

/*
 * Parses text (what a reader of /dev/kmsg wrote, possibly several passes after EPIPE, each
 * from the oldest record) and keeps the records strictly between the record whose message
 * is start_marker and the one whose message is stop_marker. Without the start marker nothing
 * is kept; without the stop marker everything after the start is. Lines that are not records
 * (continuations, a cut last line) are skipped. out is owned by the caller (release).
 */
void kvb_kmsg_slice(const char *text, const char *start_marker, const char *stop_marker, struct kvb_kmsg_job *out);
void kvb_kmsg_job_release(struct kvb_kmsg_job *j);

/* What changed in a dmesg log between two reads. */
struct kvb_dmesg_new {
	const char *from;     /* the first new line in `after` (its end when there is none) */
	size_t dropped_old;   /* lines of `before` the ring buffer no longer holds */
	int start_lost;       /* 1: none of `before` is left (wrapped past it or cleared): lines may be lost */
};
/* Finds the lines of after that came after before (see above). Both may be "". */
void kvb_dmesg_new_lines(const char *before, const char *after, struct kvb_dmesg_new *out);

/* 1 when a log line reports a kernel problem (WARNING, BUG, Oops, "cut here", Call Trace ...). */
int kvb_dmesg_is_warning(const char *line, size_t n);

#endif
