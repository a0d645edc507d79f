# Resume: a 40-job run killed with SIGKILL at random points and resumed each time stores
# every planned job exactly once; an interrupted run (--max-jobs) resumes too.
. "$(dirname "$0")/lib.sh"
cat >"$T/a.yaml" <<'YAML'
config: {iterations: 10}
workloads:
  - {name: hackbench, params: {groups: 1, fds: 2, loops: 20}}
  - {name: sched_messaging, params: {groups: 1, loops: 5}}
variants: [{name: a}, {name: b}]
YAML
db=$T/r.db
"$KVB" run "$T/a.yaml" -p local -d "$db" --max-jobs 7 --no-diff 2>/dev/null; rc=$?
check "interrupted run exits 7" test "$rc" -eq 7
check "7 jobs stored" test "$(q "$db" "select count(*) from job where status='ok'")" = "7"
check "run marked interrupted" test "$(q "$db" "select status from run")" = "interrupted"
kills=0
RANDOM=42
for i in $(seq 1 10); do
  "$KVB" run --resume -d "$db" --no-diff 2>/dev/null &
  pid=$!
  sleep "0.$((RANDOM % 9 + 1))"
  kill -9 "$pid" 2>/dev/null && kills=$((kills + 1))
  wait "$pid" 2>/dev/null
done
"$KVB" run --resume -d "$db" --no-diff 2>/dev/null
while [ "$(q "$db" "select status from run")" != "ok" ]; do
  "$KVB" run --resume -d "$db" --no-diff 2>/dev/null || break
done
echo "killed $kills times" >&2
check "40 jobs planned once" test "$(q "$db" "select count(*) from job")" = "40"
check "every job ok" test "$(q "$db" "select count(*) from job where status='ok'")" = "40"
check "one metric set per job" test "$(q "$db" "select count(*) from metric")" = "40"
check "no duplicate seq" test "$(q "$db" "select count(distinct seq) from job")" = "40"
check "integrity_check ok" test "$(sqlite3 "$db" 'pragma integrity_check')" = "ok"
check "run finished ok" test "$(q "$db" "select status from run")" = "ok"
"$KVB" run --resume -d "$db" >"$T/out" 2>"$T/err"; rc=$?
check "resuming a finished run: nothing left to run, exit 0 (rc $rc)" test "$rc" -eq 0
check "says so" grep -q "run 1 finished (status ok): nothing left to run" "$T/out"
check "and runs nothing" test "$(q "$db" "select count(*) from job")" = "40"
# resume keeps the rounds the run was planned with (not the platform's default)
"$KVB" run "$T/a.yaml" -p local -d "$T/r5.db" --rounds 5 --max-jobs 3 --no-diff 2>/dev/null
"$KVB" run --resume -d "$T/r5.db" --no-diff 2>/dev/null; rc=$?
check "resumed 5-round run completes (rc $rc)" test "$rc" -eq 0
check "jobs spread over 5 rounds" test "$(q "$T/r5.db" "select count(distinct round) from job where status='ok'")" = "5"
# a platform given as a path (not in the platform search path under its name): --resume finds it without -p
mkdir -p "$T/plat/mine"
sed 's/^name: local$/name: mine-by-path/' "$SRC/platforms/local/platform.yaml" >"$T/plat/mine/platform.yaml"
(cd "$T" && "$KVB" run "$T/a.yaml" -p plat/mine/platform.yaml -d "$T/rp.db" --max-jobs 2 --no-diff 2>/dev/null)
"$KVB" run --resume -d "$T/rp.db" --no-diff 2>"$T/rp.err"; rc=$?
check "resume without -p of a run whose platform was a path (rc $rc)" test "$rc" -eq 0
check "every job of it ok" test "$(q "$T/rp.db" "select count(*) from job where status='ok'")" = "40"
finish
