/*
 * What the profile instrument refuses (kvb_profile_judge, instrument/profile_judge.c), on reports
 * shaped as perf prints them in the field: kernel samples left as addresses when
 * kernel.kptr_restrict = 2 hides /proc/kallsyms even from root (vincentmli/bpfire#8), perf's
 * lost-chunk and lost-percentage warnings (python/cpython#150395, flamegraph-rs/flamegraph#349).
 */
#include "core/profile.h"
#include "instrument/profile_judge.h"

#include "test.h"

#include <stdlib.h>

static const char report[] = "# Total Lost Samples: 0\n"
			     "#\n"
			     "# Samples: 4  of event 'cpu-clock:I'\n"
			     "# Event count (approx.): 400012\n"
			     "#\n"
			     "# Overhead|     Samples|Shared Object      |Symbol\n"
			     " 50.00%  | 2          |[kernel.kallsyms]  |[k] pipe_read\n"
			     " 25.00%  | 1          |[kernel.kallsyms]  |[k] __schedule\n"
			     " 25.00%  | 1          |libc.so.6          |[.] read\n";

/* with kptr_restrict = 2 perf prints kernel samples as addresses in [unknown] */
static const char hidden[] = "# Total Lost Samples: 0\n"
			     "# Samples: 4  of event 'cpu-clock:I'\n"
			     "# Event count (approx.): 400012\n"
			     "# Overhead|     Samples|Shared Object      |Symbol\n"
			     " 50.00%  | 2          |[unknown]          |[k] 0xffffffff8a2c1f30\n"
			     " 25.00%  | 1          |[unknown]          |[k] 0xffffffff8a0f7a11\n"
			     " 25.00%  | 1          |libc.so.6          |[.] read\n";

static struct kvb_profile *parse(const char *t)
{
	char why[256];
	struct kvb_profile *p = kvb_perf_report_parse(t, why, sizeof(why));
	if (!p)
		fprintf(stderr, "%s\n", why);
	else
		p->period = 100003;
	return p;
}

static void test_profile_judge__keeps_a_whole_profile(void)
{
	struct kvb_profile *p = parse(report);
	struct kvb_profile_limits lim = { "profile", 0.1, 99, "0" };
	struct kvb_witnesses w;
	struct kvb_error err;
	kvb_witnesses_init(&w);
	CHECK(p && kvb_profile_judge(p, &lim, 1, &w, &err) == KVB_OK);
	CHECK(w.n == 4 && kvb_witnesses_count(&w, KVB_WIT_OK) == 4);
	/* the clock's witness says so on a board whose clock is time */
	kvb_witnesses_release(&w);
	kvb_witnesses_init(&w);
	CHECK(p && kvb_profile_judge(p, &lim, 0, &w, &err) == KVB_OK);
	CHECK(w.n && w.v[0].detail && strstr(w.v[0].detail, "not instructions"));
	kvb_witnesses_release(&w);
	kvb_profile_free(p);
}

static void test_profile_judge__refuses_hidden_kernel_symbols(void)
{
	struct kvb_profile *p = parse(hidden);
	struct kvb_profile_limits lim = { "profile", 0.1, 99, "2" };
	struct kvb_witnesses w;
	struct kvb_error err;
	kvb_witnesses_init(&w);
	CHECK(p && p->kernel_samples == 3 && p->kernel_resolved == 0);
	CHECK(p && kvb_profile_judge(p, &lim, 1, &w, &err) == KVB_ETARGET);
	CHECK_CONTAINS(err.msg, "kptr_restrict hides /proc/kallsyms");
	CHECK(kvb_witnesses_count(&w, KVB_WIT_REFUSED) == 1);
	kvb_witnesses_release(&w);
	kvb_profile_free(p);
}

static void test_profile_judge__refuses_lost_samples_and_a_changed_period(void)
{
	struct kvb_profile *p = parse(report);
	struct kvb_profile_limits lim = { "profile", 0.1, 99, "" };
	struct kvb_witnesses w;
	struct kvb_error err;
	kvb_witnesses_init(&w);
	/* python/cpython#150395: "Processed 631 events and lost 1 chunks!" */
	p->lost_chunks = kvb_perf_lost_chunks("Warning:\nProcessed 631 events and lost 1 chunks!\n\nCheck IO/CPU overload!\n");
	CHECK(p->lost_chunks == 1);
	CHECK(kvb_profile_judge(p, &lim, 1, &w, &err) == KVB_ETARGET);
	CHECK_CONTAINS(err.msg, "perf lost samples");
	/* flamegraph-rs/flamegraph#349: "Processed 714213 samples and lost 15,96%!" */
	p->lost_chunks = 0;
	p->lost_pct = kvb_perf_lost_pct("Warning:\nProcessed 714213 samples and lost 15,96%!\n");
	CHECK(p->lost_pct > 15.95 && p->lost_pct < 15.97);
	CHECK(kvb_profile_judge(p, &lim, 1, &w, &err) == KVB_ETARGET);
	/* asked every 5000 ns, perf kept the kernel's 10000 ns floor: the count is not samples x period */
	p->lost_pct = 0;
	p->period = 5000;
	CHECK(kvb_profile_judge(p, &lim, 1, &w, &err) == KVB_ETARGET);
	CHECK_CONTAINS(err.msg, "did not sample every 5000 ns");
	kvb_witnesses_release(&w);
	kvb_profile_free(p);
}

#define TESTS                                                                                                          \
	T(test_profile_judge__keeps_a_whole_profile)                                                                   \
	T(test_profile_judge__refuses_hidden_kernel_symbols)                                                           \
	T(test_profile_judge__refuses_lost_samples_and_a_changed_period)
#include "test_main.h"
