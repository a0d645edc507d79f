/*
 * What the profile instrument checks before it keeps a profile (instrument/profile.c,
 * docs/profile.md#witnesses): the clock, the period perf kept, lost samples, resolved kernel
 * symbols. Apart from the instrument so the unit tests judge real reports.
 */
#ifndef KVB_PROFILE_JUDGE_H
#define KVB_PROFILE_JUDGE_H

#include "core/profile.h"
#include "core/witness.h"
#include "core/error.h"

struct kvb_profile_limits {
	const char *name;          /* the instrument's instance name, in subjects */
	double max_lost_pct;       /* lost samples allowed, % of the samples kept */
	double min_resolved_pct;   /* kernel samples that must resolve to a symbol, % */
	const char *kptr_restrict; /* the board's kernel.kptr_restrict ("2"), "" or NULL when unknown */
};

/*
 * Adds the profile's witnesses (kind "profile") to w and returns KVB_OK when it can be kept, or
 * KVB_ETARGET with why (the refused witness's detail) when it cannot: perf's event count is not
 * samples x period (the period was not kept), samples or ring-buffer chunks were lost beyond
 * lim, or too few kernel samples resolved to a symbol. p->period and p->unit must be set;
 * instruction_clock says whether the board's clock counts instructions.
 */
int kvb_profile_judge(const struct kvb_profile *p, const struct kvb_profile_limits *lim, int instruction_clock,
		      struct kvb_witnesses *w, struct kvb_error *err);

#endif
