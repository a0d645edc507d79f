#!/usr/bin/env bash
# The schbench workload on the local board, through the engine: the job runs a `schbench` found
# first on PATH that writes a real capture (tests/fixtures/field/schbench, from schbench 24e32b8
# on the QEMU board) to stderr, as schbench does, and exits as schbench did.
#   1. the final report's numbers are stored (not an interim one's), in the declared units;
#   2. exit 1 after a whole report ("Failed to parse /proc/N/schedstat", a gone worker thread):
#      the job is ok and the run says why in a warning event;
#   3. any other exit fails the job, and nothing is stored for it;
#   4. the argv kvbench gives schbench: -m -t -r -w and -i past the runtime (one report).
. "$(dirname "$0")/lib.sh"
F=$KVB_SOURCE_DIR/tests/fixtures/field/schbench
mkdir -p "$T/bin"
fake() { # fake CAPTURE EXIT
  cat >"$T/bin/schbench" <<SH
#!/bin/sh
printf '%s\n' "\$*" >"$T/argv"
cat "$1" >&2
exit $2
SH
  chmod +x "$T/bin/schbench"
}
printf 'name: here\nconnection: {type: local}\n' >"$T/platform.yaml"
printf 'workloads:\n  - name: schbench\n    params: {message_threads: 2, threads: 2, runtime: 10, warmuptime: 2}\n' >"$T/a.yaml"
run() { PATH="$T/bin:$PATH" "$KVB" run "$T/a.yaml" -p "$T/platform.yaml" -d "$T/$1.db" --rounds 1 --no-diff >/dev/null 2>"$T/$1.err"; }

fake "$F/qemu-m2-t2-r10-i5.stderr" 1
run interim; rc=$?
check "exit 1 after a whole report: the run is ok (rc $rc)" test "$rc" = 0
check "the final report's wakeup p90 (an interim one said 12400)" \
  test "$(q "$T/interim.db" "select value||' '||units from results where metric='wakeup_p90'")" = "12784.0 us"
check "its average rps, higher is better" \
  test "$(q "$T/interim.db" "select value||' '||units||' '||lower_is_better from results where metric='average_rps'")" = "20.8 req/s 0"
check "fourteen metrics for the job" test "$(q "$T/interim.db" "select count(*) from results")" = 14
check "the exit is a warning event naming the schedstat failure" \
  grep -q "Failed to parse /proc/170/schedstat" <<<"$(q "$T/interim.db" "select message from event where level='warning'")"
check "the argv: -m 2 -t 2 -r 10 -w 2 -i 11" test "$(cat "$T/argv")" = "-m 2 -t 2 -r 10 -w 2 -i 11"

fake "$F/qemu-m1-t2-r10.stderr" 3
run failed; rc=$?
check "any other exit fails the job (rc $rc)" test "$rc" = 1
check "the failed job stored no metric" test "$(q "$T/failed.db" "select count(*) from metric")" = 0
check "its error names schbench and the exit" \
  grep -q "schbench failed (exit status 3)" <<<"$(q "$T/failed.db" "select error from job")"
finish
