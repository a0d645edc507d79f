/*
 * Implements the kvbench side of bench/ssh-exec: times the ssh target's exec
 * and push against a platform file (normally the sshd fixture's).
 *
 *   ssh_exec_bench PLATFORM exec N          runs `true` N times on one target; prints mean ns per command
 *   ssh_exec_bench PLATFORM push LOCAL REMOTE [N]
 *                                          pushes LOCAL N times (default 1); prints the best time in ns
 *
 * KVB_BENCH_DEBUG=1 in the environment turns on debug logging (negotiated algorithms ...).
 * Connecting is not timed (one handshake per target, like a ControlMaster).
 * Exit status 0, or 1 with the error on stderr.
 */
#include "config/platform.h"
#include "engine/catalog.h"
#include "core/log.h"
#include "core/util.h"
#include "target/target.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(void)
{
	fprintf(stderr, "usage: ssh_exec_bench PLATFORM exec N | PLATFORM push LOCAL REMOTE [N]\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct kvb_platform p;
	struct kvb_diag d;
	struct kvb_target t;
	struct kvb_error err = { 0 };
	struct kvb_exec_result r;
	int rc = 0, n;
	if (argc < 4)
		return usage();
	if (getenv("KVB_BENCH_DEBUG"))
		kvb_log_level = KVB_LOG_DEBUG;
	kvb_diag_init(&d, NULL);
	if (kvb_platform_load(&p, argv[1], &kvb_catalog, &d)) {
		for (size_t i = 0; i < d.msgs.n; i++)
			fprintf(stderr, "%s\n", d.msgs.v[i]);
		return 1;
	}
	kvb_diag_release(&d);
	if (kvb_target_open(&t, &p, &err)) {
		fprintf(stderr, "ssh_exec_bench: %s\n", err.msg);
		kvb_platform_release(&p);
		return 1;
	}
	kvb_exec_result_init(&r);
	if (!strcmp(argv[2], "exec")) {
		const char *cmd[] = { "true", NULL };
		uint64_t t0;
		n = atoi(argv[3]);
		t0 = kvb_mono_ns();
		for (int i = 0; i < n && !rc; i++) {
			rc = kvb_target_exec(&t, cmd, 10000, &r, &err);
			if (!rc && r.exit_code)
				rc = kvb_error_set(&err, KVB_ETARGET, "`true` exited %d", r.exit_code);
		}
		if (!rc)
			printf("%llu\n", (unsigned long long)((kvb_mono_ns() - t0) / (uint64_t)(n > 0 ? n : 1)));
	} else if (!strcmp(argv[2], "push") && argc >= 5) {
		uint64_t best = UINT64_MAX;
		n = argc > 5 ? atoi(argv[5]) : 1;
		for (int i = 0; i < n && !rc; i++) {
			uint64_t t0 = kvb_mono_ns(), dt;
			rc = kvb_target_push(&t, argv[3], argv[4], &err);
			dt = kvb_mono_ns() - t0;
			best = dt < best ? dt : best;
		}
		if (!rc)
			printf("%llu\n", (unsigned long long)best);
	} else {
		rc = usage();
	}
	if (rc && rc != 2)
		fprintf(stderr, "ssh_exec_bench: %s\n", err.msg);
	kvb_exec_result_release(&r);
	kvb_target_close(&t);
	kvb_platform_release(&p);
	return rc ? 1 : 0;
}
