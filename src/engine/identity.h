/*
 * Identity of the running kernel after a boot: `uname -r`, `uname -v` (on a
 * board without uname, /proc/sys/kernel/osrelease and version) and
 * /proc/cmdline, checked against the variant so a flash that silently failed
 * cannot produce a "kernel A vs kernel A" table (issue: wltests only warned).
 */
#ifndef KVB_IDENTITY_H
#define KVB_IDENTITY_H

#include "config/agenda.h"
#include "target/target.h"

struct kvb_identity {
	char *release;  /* uname -r */
	char *version;  /* uname -v */
	char *cmdline;  /* /proc/cmdline */
};

/*
 * Reads the identity into id (always, for the record) and fails with
 * "flashed X but running Y" when the variant's expected release/version
 * (from its image, when known) differs, or when a word of the variant's
 * cmdline is missing from /proc/cmdline. Both strings of a message print
 * with their control characters escaped ("6.1.0-x\r"), so two strings that
 * differ never print the same.
 */
int kvb_identity_check(struct kvb_target *t, const struct kvb_variant *v, struct kvb_identity *id,
		       struct kvb_error *err);
/* Same check against explicit expectations (NULL = not checked). */
int kvb_identity_compare(const struct kvb_identity *id, const char *exp_release, const char *exp_version,
			 const char *cmdline, struct kvb_error *err);
void kvb_identity_release(struct kvb_identity *id);

#endif
