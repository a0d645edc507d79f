# `kvbench run --until-decided` on the local platform: the rule is stored with the run, a look is
# logged after every round, an interrupted run resumed goes on with the stored rule, and the run
# ends either decided (the rest of the plan skipped with the reason) or with its rounds spent.
# Which of the two depends on the machine's noise, so both are checked for consistency.
. "$(dirname "$0")/lib.sh"
cat >"$T/a.yaml" <<'YAML'
config: {iterations: 6}
workloads:
  - {name: sched_pipe, params: {loops: 2000}}
variants:
  - {name: 1cpu, cpus: "0"}
  - {name: 2cpus, cpus: "0-1"}
YAML
db=$T/u.db
"$KVB" run "$T/a.yaml" -p local -d "$db" --until-decided --max-rounds 3 --metric sched_pipe/usecs_per_op \
  --max-jobs 5 >"$T/out1" 2>"$T/err1"; rc=$?
first=$(q "$db" "select outcome from run_decide")
if [ "$rc" -eq 0 ] && [ "$first" = decided ]; then
  # decided at the first look (after round 1's 4 jobs), before --max-jobs 5 could interrupt:
  # nothing is left to resume, and that run's own log and table are checked below
  check "decided at the first look: exits 0" true
else
  check "interrupted run exits 7 (rc $rc)" test "$rc" -eq 7
fi
check "rule stored with the run" test "$(sqlite3 "$db" "select max_rounds || ' ' || margin || ' ' || metrics_json from run_decide")" = '3 0.01 ["sched_pipe/usecs_per_op"]'
check "3 rounds planned, and 3 spare for rounds the host disturbs" test "$(q "$db" "select rounds from run")" = "6"
check "a look after round 1" grep -q "round 1 of at most 3: sched_pipe/usecs_per_op 2cpus vs 1cpu: " "$T/err1"
if [ "$first" = decided ]; then
  cp "$T/out1" "$T/out2"; cp "$T/err1" "$T/err2"
else
  "$KVB" run --resume -d "$db" >"$T/out2" 2>"$T/err2"; rc=$?
  check "resume exits 0 (rc $rc)" test "$rc" -eq 0
fi
outcome=$(q "$db" "select outcome from run_decide")
round=$(q "$db" "select decided_round from run_decide")
check "outcome stored ($outcome after round $round)" sh -c "[ '$outcome' = decided ] || [ '$outcome' = budget ]"
check "resumed run logs its looks" grep -q "round $round of at most 3: sched_pipe/usecs_per_op" "$T/err2"
skipped=$(q "$db" "select count(*) from job where status = 'skipped' and error like 'not needed: decided after round $round%'")
left=$(q "$db" "select count(*) from job where status not in ('ok', 'skipped')")
check "no job left pending" test "$left" = "0"
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
"$KVB" run "$T/a.yaml" -p local -d "$T/x.db" --until-decided --rounds 2 >/dev/null 2>&1; rc=$?
check "--until-decided with --rounds is a usage error" test "$rc" -eq 2
"$KVB" run "$T/a.yaml" -p local -d "$T/x.db" --until-decided --max-time 5d >/dev/null 2>&1; rc=$?
check "--max-time 5d is a usage error" test "$rc" -eq 2
finish
