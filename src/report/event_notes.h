/*
 * Footnotes for diff tables: events (warnings, errors) recorded while a job
 * ran (event.job_id, 0006_events_cgroup.sql) are numbered [1], [2], ... and
 * the cells whose samples came from such jobs carry the numbers, so a table
 * never shows a number without what went wrong while it was measured.
 * Events of the same level and message share one number, whatever the job:
 * a meter missing on every job is one footnote naming its jobs, not one per
 * job (docs/design.md#witnesses).
 */
#ifndef KVB_EVENT_NOTES_H
#define KVB_EVENT_NOTES_H

#include "report/format.h"
#include "results/groups.h"
#include "store/store.h"

#include <stdio.h>

struct kvb_event_note {
	char *workload, *variant, *level, *message;
	int64_t job_id;
	cJSON *cls;  /* the job's classifiers (object key -> string) */
	size_t note; /* its footnote's number, 1-based: shared by events of one level and message */
};

struct kvb_event_notes {
	struct kvb_event_note *v;
	size_t n;
	size_t nnotes;   /* footnotes: distinct (level, message), numbered in order of first event */
	const char *by;  /* the diff's --by classifier (not owned), or NULL */
};

/* Loads the job events of the given runs, oldest first. A DB without event.job_id gives none. */
int kvb_event_notes_load(struct kvb_store *s, const int64_t *runs, size_t nruns, struct kvb_event_notes *en,
			 struct kvb_error *err);
/* Writes " [1,3]" (the notes of group g's jobs of variant) or "" into buf; returns buf. */
const char *kvb_event_notes_mark(const struct kvb_event_notes *en, const struct kvb_group *g, const char *variant,
				 char *buf, size_t n);
/*
 * Prints a line a footnote after a table (markdown: a list): "[N] level: variant, workload,
 * job J: message" for one job's event, "[N] level, K jobs (variant jobs J-J, ...; workloads):
 * message" for one shared by K jobs.
 */
void kvb_event_notes_print(const struct kvb_event_notes *en, const struct kvb_format *fmt, FILE *out);
void kvb_event_notes_release(struct kvb_event_notes *en);

#endif
