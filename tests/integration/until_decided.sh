# `kvbench run --until-decided` on the local platform (every job shares one boot, so the runs are the
# units): each round runs the agenda's iterations again (rounds add runs, they do not split the
# iterations), the rule is stored with the run, a look is logged after every round, the run's first
# line says the planned rounds and the spare ones apart, an interrupted run resumed goes on with the
# stored rule, and the run ends either decided (the rest of the plan skipped with the reason) or with
# its rounds spent. Which of the two depends on the machine's noise, so both are checked for
# consistency; what the plan holds and that runs are added does not.
. "$(dirname "$0")/lib.sh"
cat >"$T/a.yaml" <<'YAML'
config: {iterations: 2}
workloads:
  - {name: sched_pipe, params: {loops: 2000}}
variants:
  - {name: 1cpu, cpus: "0"}
  - {name: 2cpus, cpus: "0-1"}
YAML
db=$T/u.db
# round 1 is 4 jobs (2 iterations a variant): --max-jobs 6 stops the run in round 2
"$KVB" run "$T/a.yaml" -p local -d "$db" --until-decided --max-rounds 3 --metric sched_pipe/usecs_per_op \
  --max-jobs 6 >"$T/out1" 2>"$T/err1"; rc=$?
first=$(q "$db" "select outcome from run_decide")
if [ "$rc" -eq 0 ] && [ "$first" = decided ]; then
  # decided at the first look (after round 1's 4 jobs), before --max-jobs 6 could interrupt:
  # nothing is left to resume, and that run's own log and table are checked below
  check "decided at the first look: exits 0" true
else
  check "interrupted run exits 7 (rc $rc)" test "$rc" -eq 7
fi
check "rule stored with the run, rounds that add runs" test "$(sqlite3 "$db" "select max_rounds || ' ' || margin || ' ' || metrics_json || ' ' || add_rounds from run_decide")" = '3 0.01 ["sched_pipe/usecs_per_op"] 1'
check "3 rounds planned, and 3 spare for rounds the host disturbs" test "$(q "$db" "select rounds from run")" = "6"
# the old plan split the 2 iterations over the 3 rounds: round 1 had none, and 2 runs a variant at most
check "every round holds the agenda's 2 iterations a variant" \
  test "$(q "$db" "select group_concat(n, ' ') from (select count(*) n from job group by round order by round)")" = "4 4 4 4 4 4"
check "round 2 numbers them on (3 4)" \
  test "$(q "$db" "select group_concat(iteration, ' ') from (select distinct iteration from job where round = 2 order by 1)")" = "3 4"
check "the first line says the planned rounds, the spare ones apart" \
  grep -q "12 jobs to run (planned: 12 jobs), 2 variants, up to 3 rounds of the agenda's iterations each, a look after each + 3 spare rounds (12 jobs" "$T/err1"
check "a look after round 1" grep -q "round 1 of at most 3: sched_pipe/usecs_per_op 2cpus vs 1cpu: " "$T/err1"
if [ "$first" = decided ]; then
  cp "$T/out1" "$T/out2"; cp "$T/err1" "$T/err2"
else
  "$KVB" run --resume -d "$db" >"$T/out2" 2>"$T/err2"; rc=$?
  check "resume exits 0 (rc $rc)" test "$rc" -eq 0
  check "resume says the rounds as planned" grep -q "up to 3 rounds of the agenda's iterations each" "$T/err2"
fi
outcome=$(q "$db" "select outcome from run_decide")
round=$(q "$db" "select decided_round from run_decide")
check "outcome stored ($outcome after round $round)" sh -c "[ '$outcome' = decided ] || [ '$outcome' = budget ]"
check "resumed run logs its looks" grep -q "round $round of at most 3: sched_pipe/usecs_per_op" "$T/err2"
skipped=$(q "$db" "select count(*) from job where status = 'skipped' and error like 'not needed: decided after round $round%'")
left=$(q "$db" "select count(*) from job where status not in ('ok', 'skipped')")
check "no job left pending" test "$left" = "0"
check "2 runs a variant a round, up to the last look ($round)" \
  test "$(q "$db" "select count(*) from results where metric = 'usecs_per_op' and variant = '1cpu'")" = "$((2 * round))"
if [ "$outcome" = decided ]; then
  check "decided: later rounds skipped with the reason ($skipped)" test "$skipped" = "$(q "$db" "select count(*) from job where round > $round")"
  # jobs skipped as not needed are no longer planned: they do not make the run or a variant incomplete
  check "decided: the run and both variants are ok" \
    test "$(q "$db" "select status from run") $(q "$db" "select group_concat(status, ' ') from variant")" = "ok ok ok"
else
  # the spare rounds stand in for disturbed ones only (on this host no job is judged disturbed: local)
  check "budget: every round ran, the spares skipped" sh -c "[ '$round' = 3 ] && [ '$skipped' = '$(q "$db" "select count(*) from job where round > 3")' ] && grep -q -- '--max-rounds 3 spent' '$T/err2'"
fi
check "diff table printed at the end" grep -q "usecs_per_op" "$T/out2"

# The same knob twice (A/A) with a 50 % margin: 2 runs a side cannot show "same" at the first look
# (tested at ~1e-6), more runs can; the rule adds rounds of 2 runs until it does (or 6 rounds: 12 runs)
cat >"$T/aa.yaml" <<'YAML'
config: {iterations: 2}
workloads:
  - {name: sched_pipe, params: {loops: 5000}}
variants:
  - {name: a, cpus: "0"}
  - {name: b, cpus: "0"}
YAML
"$KVB" run "$T/aa.yaml" -p local -d "$T/aa.db" --until-decided --max-rounds 6 --margin 50 \
  --metric sched_pipe/usecs_per_op >"$T/out3" 2>"$T/err3"; rc=$?
check "A/A run exits 0 (rc $rc)" test "$rc" -eq 0
check "A/A: undecided at the first look" grep -q "round 1 of at most 6: sched_pipe/usecs_per_op b vs a: undecided" "$T/err3"
aa_out=$(q "$T/aa.db" "select outcome from run_decide")
aa_round=$(q "$T/aa.db" "select decided_round from run_decide")
aa_runs=$(q "$T/aa.db" "select count(*) from results where metric = 'usecs_per_op' and variant = 'b'")
check "A/A: runs added beyond the agenda's 2 ($aa_runs, $aa_out after round $aa_round)" \
  sh -c "[ '$aa_runs' -gt 2 ] && [ '$aa_runs' = $((2 * aa_round)) ]"
if [ "$aa_out" = decided ]; then
  check "A/A: stopped when decided: same, the later rounds skipped" sh -c \
    "grep -q 'round $aa_round of at most 6: sched_pipe/usecs_per_op b vs a: same' '$T/err3' &&
     [ '$(q "$T/aa.db" "select count(*) from job where round > $aa_round and status <> 'skipped'")' = 0 ]"
else
  check "A/A: the host too noisy to show it within 6 rounds: all 12 runs" test "$aa_runs" = 12
fi

# --dry-run shows the same rounds, the spare ones marked
"$KVB" run "$T/a.yaml" -p local -d "$T/x.db" --until-decided --max-rounds 2 --max-disturbed 1 --dry-run >"$T/dry" 2>/dev/null
check "--dry-run: 2 rounds of 4 jobs and a spare one, marked" sh -c "[ \"\$(grep -c 'round [12] ' '$T/dry')\" = 8 ] && [ \"\$(grep -c 'round 3 .*#[56]  (spare round)' '$T/dry')\" = 4 ]"
"$KVB" run "$T/a.yaml" -p local -d "$T/x.db" --until-decided --rounds 2 >/dev/null 2>&1; rc=$?
check "--until-decided with --rounds is a usage error" test "$rc" -eq 2
"$KVB" run "$T/a.yaml" -p local -d "$T/x.db" --until-decided --max-time 5d >/dev/null 2>&1; rc=$?
check "--max-time 5d is a usage error" test "$rc" -eq 2
finish
