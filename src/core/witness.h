/*
 * Witnesses (docs/design.md#witnesses): what kvbench checked to believe a number it stores.
 *
 * A backend that writes a knob, reads a meter, samples on the board or prepares a
 * workload adds one witness per check to the job's list (struct kvb_metrics.witnesses):
 * what it checked (kind, subject), what it expected or asked, what the board showed,
 * and the verdict. The engine stores the list with the job, in the job's transaction,
 * whatever the job's status (a failed job keeps the witness that failed it), and turns
 * every verdict other than ok into an event of the job, so `diff` footnotes the cells
 * whose jobs had one. A new backend declares its witness; one without is a review question.
 *
 * Verdicts, from agreeing to refusing:
 *   ok        the board agreed with what kvbench believed;
 *   recorded  it did not, and the knob is lenient (`readback: record`): the value found is
 *             what the job's classifier says, not the value asked;
 *   changed   it agreed at the start and changed during the job (a daemon rewrote a knob,
 *             thermal capping began): the value is kept, the job is footnoted;
 *   disturbed the job ran while something outside the board's control interfered (the host
 *             was loaded, for boards on this host): kept, footnoted, not counted by
 *             --until-decided;
 *   refused   the number was not stored (too little meter coverage): never a 0 in its place;
 *   failed    the job failed because of this disagreement (its error says why).
 */
#ifndef KVB_WITNESS_H
#define KVB_WITNESS_H

#include <stddef.h>
#include <stdint.h>

enum kvb_witness_verdict {
	KVB_WIT_OK = 0,
	KVB_WIT_RECORDED,
	KVB_WIT_CHANGED,
	KVB_WIT_DISTURBED,
	KVB_WIT_REFUSED,
	KVB_WIT_FAILED,
};

struct kvb_witness {
	char *kind;      /* what kind of check: "knob", "meter", "thermal", "kmsg", "sampler", "pload", "host" ... */
	char *subject;   /* what was checked: a sysfs path, a meter channel, a thermal zone ... */
	char *expected;  /* what kvbench asked or believed, as text (NULL: nothing to compare) */
	char *observed;  /* what the board showed, as text (NULL: could not be read) */
	char *detail;    /* one line for a human: why the verdict (NULL when ok needs none) */
	enum kvb_witness_verdict verdict;
	int64_t t_ns;    /* when it was checked (CLOCK_REALTIME ns) */
};

/* A growable list of witnesses; zeroed = empty. Owns every string. Not thread-safe. */
struct kvb_witnesses {
	struct kvb_witness *v;
	size_t n, alloc;
};

void kvb_witnesses_init(struct kvb_witnesses *w);
void kvb_witnesses_release(struct kvb_witnesses *w);

/*
 * Appends a witness (strings copied; expected/observed may be NULL; detail is a printf
 * format, NULL for none). t_ns is now. Returns the new entry (valid until the next add).
 */
struct kvb_witness *kvb_witness_add(struct kvb_witnesses *w, const char *kind, const char *subject, const char *expected,
				    const char *observed, enum kvb_witness_verdict verdict, const char *detail_fmt, ...)
	__attribute__((format(printf, 7, 8)));

/* Moves every witness of src to the end of dst (src is left empty). */
void kvb_witnesses_move(struct kvb_witnesses *dst, struct kvb_witnesses *src);

/* "ok", "recorded", "changed", "disturbed", "refused", "failed" (the stored text). */
const char *kvb_witness_verdict_name(enum kvb_witness_verdict v);

/* Number of witnesses with verdict v. */
size_t kvb_witnesses_count(const struct kvb_witnesses *w, enum kvb_witness_verdict v);

/*
 * One line for an event or an error: "<kind> <subject>: <detail>" or, without a detail,
 * "<kind> <subject>: expected <e>, found <o> (<verdict>)". Owned by the caller.
 */
char *kvb_witness_describe(const struct kvb_witness *w);

#endif
