#!/usr/bin/env bash
# Duet runs (execution_order: duet, engine/duet.h) on two boards of this host (-p local -p local),
# real hackbench:
#  1. refused with one board, and with three variants, naming the agenda and what to do;
#  2. a duet: each round runs the two variants on different boards, the boards swap variants
#     every round, job k+1 of either side starts only after job k of both ended (the lockstep,
#     read from the stored job times), and `diff` judges the per-round pairs (unit "pair",
#     "(paired)" in the table, the JSON valid against the schema);
#  3. one side's jobs all fail (a sysfs knob this host lacks): the other side finishes, nothing hangs;
#  4. --max-jobs stops a duet between jobs and --resume finishes it with every pair;
#  5. --until-decided looks once both sides finished a round (the paired test) and stops there.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
SCHEMA=$SRC/results-schema/kvbench-json.schema.json
L=$SRC/platforms/local
mk() { # mk FILE VARIANTS-YAML
  cat >"$1" <<YAML
config: {iterations: 8, rounds: 4, execution_order: duet, max_retries: 0}
workloads:
  - {name: hackbench, params: {groups: 1, fds: 5, loops: 50}}
variants:
$2
YAML
}
mk "$T/a.yaml" '  - {name: one, cpus: "0"}
  - {name: all, cpus: "0-1"}'

# 1. refusals
"$KVB" run "$T/a.yaml" -p "$L" -d "$T/r.db" --no-diff >/dev/null 2>"$T/err"; rc=$?
check "one board refused (rc $rc)" test "$rc" -ne 0
check "the refusal names the agenda and says to give the platform twice" \
  grep -q "a.yaml: execution_order duet needs two boards.*-p local -p local" "$T/err"
mk "$T/three.yaml" '  - {name: one, cpus: "0"}
  - {name: all, cpus: "0-1"}
  - {name: again, cpus: "1"}'
"$KVB" run "$T/three.yaml" -p "$L" -p "$L" -d "$T/r.db" --no-diff >/dev/null 2>"$T/err"; rc=$?
check "three variants refused (rc $rc)" test "$rc" -ne 0
check "the refusal counts the variants" grep -q "three.yaml: execution_order duet runs two variants side by side; this run has 3" "$T/err"

# 2. a duet of two runtime variants
db=$T/d.db
timeout 600 "$KVB" run "$T/a.yaml" -p "$L" -p "$L" -d "$db" --no-diff >/dev/null 2>"$T/err"; rc=$?
check "duet run exits 0 (rc $rc)" test "$rc" -eq 0 || sed 's/^/  /' "$T/err" >&2
check "run stored as a duet" test "$(q "$db" "select exec_order from run")" = duet
check "16 jobs ok" test "$(q "$db" "select count(*) from job where status = 'ok'")" -eq 16
# per round: the two variants on two different boards
check "each round's variants ran on different boards" test "$(q "$db" "select count(*) from (select j.round,
  count(distinct c.value) nb from job j join classifier c on c.job_id = j.id and c.key = 'board'
  group by j.round) where nb <> 2")" -eq 0
# the board that ran 'one' swaps every round
boards=$(q "$db" "select group_concat(b, ',') from (select distinct j.round, c.value b from job j
  join variant v on v.id = j.variant_id join classifier c on c.job_id = j.id and c.key = 'board'
  where v.name = 'one' order by j.round)" | tr -d '"')
check "variant one's board alternates round by round ($boards)" test "$boards" = "local,local#2,local,local#2"
# lockstep: rank the jobs of each (variant, round) by seq; job k+1 of either side starts after job k of both ended
late=$(q "$db" "with r as (select j.variant_id, j.round, j.start_ns, j.end_ns,
  row_number() over (partition by j.variant_id, j.round order by j.seq) k from job j)
  select count(*) from r a join r b on a.round = b.round and b.k = a.k + 1 where b.start_ns < a.end_ns")
check "no job starts before both jobs of the previous step ended ($late early)" test "$late" -eq 0
"$KVB" diff -d "$db" --format json >"$T/diff.json" 2>"$T/err"
check "diff json: unit pair, 4 pairs" "$PY" -c '
import json, sys
v = json.load(open(sys.argv[1]))["groups"][0]["variants"][1]
sys.exit(not (v["unit"] == "pair" and v["pairs"] == 4 and "paired_diff_ci95_lo" in v))' "$T/diff.json"
check "diff json matches \$defs/diff" "$PY" "$SRC/tests/integration/json_schema_check.py" "$SCHEMA" diff "$T/diff.json"
"$KVB" diff -d "$db" >"$T/diff.txt" 2>&1
check "the table says the verdict is paired" grep -q "(paired)" "$T/diff.txt"
check "the legend says what a pair is" grep -q "the runs are duets" "$T/diff.txt"

# 3. every job of one side fails: the other side is not held up
mk "$T/bad.yaml" '  - {name: one, cpus: "0"}
  - {name: nocpu, sysfs: {/sys/kernel/kvbench_no_such_knob: 1}}'
timeout 300 "$KVB" run "$T/bad.yaml" -p "$L" -p "$L" -d "$T/bad.db" --no-diff --keep-going >/dev/null 2>"$T/err"; rc=$?
check "a failing side does not hang the duet (rc $rc)" test "$rc" -ne 124
check "the good side ran all its jobs" test "$(q "$T/bad.db" "select count(*) from job j join variant v on v.id = j.variant_id where v.name = 'one' and j.status = 'ok'")" -eq 8
check "the failing side's jobs are failed, not ok" test "$(q "$T/bad.db" "select count(*) from job j join variant v on v.id = j.variant_id where v.name = 'nocpu' and j.status = 'ok'")" -eq 0

# 4. interrupted between jobs, then resumed
db=$T/i.db
timeout 300 "$KVB" run "$T/a.yaml" -p "$L" -p "$L" -d "$db" --max-jobs 5 --no-diff >/dev/null 2>"$T/err"; rc=$?
check "--max-jobs stops the duet (rc $rc)" test "$rc" -ne 0 -a "$rc" -ne 124
n1=$(q "$db" "select count(*) from job where status = 'ok'")
check "some jobs done, not all ($n1)" test "$n1" -ge 5 -a "$n1" -lt 16
# the stored run names one platform: --resume alone is refused and says how to give the second board
timeout 60 "$KVB" run --resume -d "$db" --no-diff >/dev/null 2>"$T/err"; rc=$?
check "resume without the second board refused (rc $rc)" test "$rc" -ne 0 -a "$rc" -ne 124
check "its message shows the resume command" grep -q -- "--resume -p local -p local" "$T/err"
# --resume -p X -p X gives the second board again
timeout 600 "$KVB" run --resume -d "$db" -p "$L" -p "$L" --no-diff >/dev/null 2>"$T/err"; rc=$?
check "resume finishes the duet (rc $rc)" test "$rc" -eq 0 || sed 's/^/  /' "$T/err" >&2
check "16 jobs ok after resume" test "$(q "$db" "select count(*) from job where status = 'ok'")" -eq 16
"$KVB" diff -d "$db" --format json >"$T/diff2.json" 2>/dev/null
check "resumed duet still pairs 4 rounds" "$PY" -c '
import json, sys
v = json.load(open(sys.argv[1]))["groups"][0]["variants"][1]
sys.exit(not (v["unit"] == "pair" and v["pairs"] == 4))' "$T/diff2.json"

# 5. --until-decided looks after each round both sides finished, and stops the duet at its budget
timeout 600 "$KVB" run "$T/a.yaml" -p "$L" -p "$L" -d "$T/u.db" --until-decided --max-rounds 2 --metric hackbench/time \
  --no-diff >/dev/null 2>"$T/err"; rc=$?
check "until-decided duet ends (rc $rc)" test "$rc" -ne 124
check "a look after round 1 and one after round 2" test "$(grep -c "round [12] of at most 2: hackbench/time all vs one" "$T/err")" -eq 2
check "no job of a later round ran" test "$(q "$T/u.db" "select count(*) from job where round > 2 and status = 'ok'")" -eq 0
finish
