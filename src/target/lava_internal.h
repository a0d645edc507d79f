/*
 * The LAVA target's own header, shared by target/lava.c, lava_definition.c and lava_follow.c and
 * by nothing else: the target's state and what one of these files calls in another.
 */
#ifndef KVB_TARGET_LAVA_INTERNAL_H
#define KVB_TARGET_LAVA_INTERNAL_H

#include "target/target.h"
#include "config/agenda.h"
#include "config/keys.h"
#include "config/platform.h"
#include "core/buf.h"
#include "core/log.h"
#include "core/quote.h"
#include "core/sha256.h"
#include "core/util.h"
#include "flash/flash.h"
#include "target/lava_api.h"
#include "target/lava_def.h"
#include "target/lava_markers.h"
#include "target/lava_serve.h"

/* A follow of a job may miss this many polls in a row (LAVA's web service under load) before kvbench gives up. */
#define FOLLOW_MISSES 5

/* How long closing a target waits for a job it cancelled to end, s. */
#define CLOSE_WAIT_S 120
#define MAX_OFFERS 8

struct lava_cmd {
	char *key;     /* mark it was recorded under */
	char *label;   /* LAVA test case name of its group */
	char *argv_sh; /* the command, shell-quoted */
	char *out, *err, *bad;
	int rc, done;
	unsigned repaired;
	int64_t begin_ns, end_ns;
	uint64_t timeout_ms; /* the command's own timeout, as the engine gave it */
};

struct lava_state {
	struct kvb_lava_api api;
	char *token;
	const struct kvb_platform *plat;
	const cJSON *conn, *lava;
	int offline, recording;
	char *key;
	struct lava_cmd *v;
	size_t n, cursor;
	char ended[768];   /* why the job ended before some commands ran, or "" */
	int serving;       /* joined the HTTP server (lava_serve.h) */
	/* the job of the unit */
	int64_t job_id;
	int in_flight;     /* submitted and not seen Finished */
	int cancelled;
	char nonce[KVB_LAVA_NONCE_LEN + 1], ftoken[33];
	char *offered[MAX_OFFERS]; /* URLs of its files on the server, withdrawn when it ends */
	size_t noffered;
	char *results_url; /* the results document its test shell fetches, or NULL */
	struct kvb_buf results;
	size_t log_lines;  /* lines of its log read */
	struct kvb_lava_reader rd;
	char vtype[64], vmsg[512]; /* its own verdict in its log (error_type, error_msg) */
	struct kvb_lava_job j;
	char *boot_image;  /* a boot image built for it (owned path), or NULL */
	char job_tag[128]; /* the device tag the job asks for: this board's, or a reattached job's */
};

/* What a unit's definition is made of: its variables and the local files to serve. */
struct def_parts {
	const char *vars[KVB_LV_N];
	char *owned[KVB_LV_N];
	char *files[MAX_OFFERS]; /* local paths (owned) */
	size_t nfiles;
};

/* lava_definition.c */
void kvb_lava_parts_release(struct def_parts *p);
char *kvb_lava_build_definition(struct lava_state *st, const struct kvb_batch_unit *u, unsigned port,
		       struct def_parts *parts, struct kvb_error *err);

/* lava_follow.c */
int kvb_lava_run(struct kvb_target *t, const struct kvb_batch_unit *u, struct kvb_batch_result *res,
	     struct kvb_error *err);
char *kvb_lava_describe(struct kvb_target *t, const struct kvb_batch_unit *u, struct kvb_error *err);
void kvb_lava_report(struct kvb_target *t, const char *key, const char *status, const cJSON *metrics);
void kvb_lava_span(struct kvb_target *t, const char *key, int64_t *begin_ns, int64_t *end_ns);
int kvb_lava_finish(struct kvb_target *t, const struct kvb_batch_unit *u, struct kvb_batch_result *res,
		struct kvb_error *err);
void kvb_lava_check(const struct kvb_platform *p, struct kvb_diag *d);

/* lava.c */
void kvb_lava_outputs_clear(struct lava_state *st);
void kvb_lava_sleep_ms(long ms);
void kvb_lava_withdraw_all(struct lava_state *st);
void kvb_lava_wait_finished(struct lava_state *st, int64_t id, long wait_s);
void kvb_lava_cancel_job(struct lava_state *st, int64_t id);
int kvb_lava_ensure_server(struct lava_state *st, long port, struct kvb_error *err);
char *kvb_lava_label_of(const char *key);

#endif
