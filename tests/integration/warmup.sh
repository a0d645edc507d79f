#!/usr/bin/env bash
# Warm-up jobs (issue 27, docs/design.md#noise): `warmup: N` runs and stores the first N jobs of a
# spec after each boot with status warmup; diff, the results view and the until-decided
# looks leave them out, `show jobs` shows them, --resume rebuilds the same plan.
. "$(dirname "$0")/lib.sh"
cat >"$T/w.yaml" <<'YAML'
config: {iterations: 2, warmup: 1}
workloads:
  - {name: sched_pipe, params: {loops: 2000}}
  - {name: hackbench, warmup: 0, params: {groups: 1, loops: 10}}
variants:
  - {name: one, cpus: "0"}
  - {name: two, cpus: "0-1"}
YAML
"$KVB" run "$T/w.yaml" -p local -d "$T/w.db" --rounds 2 --dry-run >"$T/plan" 2>/dev/null
check "the plan shows a warm-up before sched_pipe's first job of every round" test "$(grep -c 'sched_pipe *warm-up' "$T/plan")" = "4"
check "hackbench (warmup: 0) has none" sh -c "! grep -q 'hackbench *warm-up' '$T/plan'"
check "the warm-up comes first in its round" test "$(sed -n 1p "$T/plan" | tr -s ' ')" = " 0 round 1 one sched_pipe warm-up"
"$KVB" run "$T/w.yaml" -p local -d "$T/w.db" --rounds 2 --max-jobs 3 --no-diff >/dev/null 2>&1
"$KVB" run --resume -d "$T/w.db" >"$T/out" 2>"$T/err"; rc=$?
check "interrupted and resumed: ok (rc $rc)" test "$rc" -eq 0
check "4 warm-up jobs stored with status warmup and iteration 0" test "$(q "$T/w.db" "select count(*) || ' ' || max(iteration) from job where status = 'warmup'")" = "4 0"
check "their metrics are kept" test "$(q "$T/w.db" "select count(*) from metric m join job j on j.id = m.job_id where j.status = 'warmup' and m.name = 'usecs_per_op'")" = "4"
check "the results view leaves them out" test "$(q "$T/w.db" "select count(*) from results r join job j on j.id = r.job_id where j.status = 'warmup'")" = "0"
check "diff compares the 2 measured runs of each variant" test "$(grep -c '| sched_pipe | usecs_per_op (us) *| \(one\|two\)\( \[[0-9,]*\]\)\? *| 2 |' "$T/out")" = "2"
"$KVB" show jobs -d "$T/w.db" >"$T/jobs"
check "show jobs lists them" test "$(grep -c '| warmup ' "$T/jobs")" = "4"
"$KVB" show runs -d "$T/w.db" >"$T/runs"
check "show runs: a warm-up is not a failed job" grep -q "| 12/12 " "$T/runs"
"$KVB" report -d "$T/w.db" --format markdown -o "$T/r.md" >/dev/null 2>&1
sed -n '/Failures/,/Events/p' "$T/r.md" >"$T/fail.md"
check "report: no warm-up among the failures" sh -c "grep -q 'no failed jobs' '$T/fail.md' && ! grep -q warmup '$T/fail.md'"

# warm-ups come on top of the iterations; one iteration on a board that does not reboot is one round
# (the default of 2 rounds put it in "round 2" after an empty round 1), and --rounds beyond it warns
cat >"$T/one.yaml" <<'YAML'
config: {iterations: 1, warmup: 2}
workloads:
  - {name: sched_pipe, params: {loops: 2000}}
variants:
  - {name: one, cpus: "0"}
  - {name: two, cpus: "0-1"}
YAML
"$KVB" run "$T/one.yaml" -p local -d "$T/one.db" --dry-run >"$T/plan1" 2>"$T/plan1.err"
check "iterations 1, warmup 2: two warm-ups and #1 per variant, all in round 1" \
  test "$(awk '{ print $3, $6 }' "$T/plan1" | sort | uniq -c | tr -s ' ' | tr '\n' ';')" = " 2 1 #1; 4 1 warm-up;"
"$KVB" run "$T/one.yaml" -p local -d "$T/one.db" --dry-run --rounds 3 >/dev/null 2>"$T/plan3.err"
check "--rounds 3 over one iteration warns that 2 rounds are empty" grep -q "2 of the 3 rounds have no jobs" "$T/plan3.err"
finish
