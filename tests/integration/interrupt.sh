#!/usr/bin/env bash
# Ctrl-C or SIGTERM during a job (a new user's report: the first Ctrl-C waited for the job's
# 600 s timeout, stored it as failed, and SIGTERM blamed the board and failed the variant):
# the running workload is killed at once, its job goes back to pending with an 'interrupted'
# attempt, no variant fails, the run exits 7, and --resume runs what is left. The job is long
# (minutes on an idle host) and the signal is sent once the DB says it is running, whatever the
# host's load.
. "$(dirname "$0")/lib.sh"
cat >"$T/l.yaml" <<'YAML'
config: {iterations: 1}
workloads: [{name: sched_pipe, params: {loops: 30000000}}]
variants:
  - {name: a, cpus: "0"}
  - {name: b, cpus: "0-1"}
YAML
interrupt() { # SIGNAL DB: runs the agenda, sends SIGNAL once a job runs; prints "rc seconds"
  "$KVB" run "$T/l.yaml" -p local -d "$2" --no-diff 2>"$2.err" &
  local pid=$! n=0
  until [ "$(q "$2" "select count(*) from job where status='running'" 2>/dev/null)" = 1 ] || [ $n -ge 1200 ]; do
    sleep 0.1; n=$((n + 1))
  done
  sleep 1
  local t0; t0=$(date +%s)
  kill -s "$1" "$pid"; wait "$pid"; local rc=$?
  echo "$rc $(( $(date +%s) - t0 ))"
}
for sig in INT TERM; do
  db=$T/$sig.db
  read -r rc secs < <(interrupt "$sig" "$db")
  check "SIG$sig during a job: exit 7 (rc $rc)" test "$rc" = 7
  check "SIG$sig: the run stopped within 60 s, not at the job's timeout (${secs} s)" test "$secs" -lt 60
  check "SIG$sig: the job is pending again, not failed" test "$(q "$db" "select group_concat(status, ' ') from (select status from job order by id)")" = "pending pending"
  check "SIG$sig: its attempt is kept as interrupted" test "$(q "$db" "select status from job_attempt")" = "interrupted"
  check "SIG$sig: no variant failed, no board blamed" sh -c "test \"\$(sqlite3 '$db' \"select group_concat(status, ' ') from variant\")\" = 'pending pending' && ! grep -q 'not answering\|stopped answering' '$db.err'"
  check "SIG$sig: the log says the job goes back to pending" grep -q "sched_pipe #1 interrupted (.*): back to pending for --resume" "$db.err"
done
# --resume runs the interrupted job. The stored agenda is the long one; the test shortens it in
# the DB (run.agenda_json, what --resume reads) only to spare the test's time.
sqlite3 "$T/INT.db" "update run set agenda_json = replace(agenda_json, '30000000', '2000')"
"$KVB" run --resume -d "$T/INT.db" --no-diff >/dev/null 2>"$T/r.err"; rc=$?
check "--resume after the interrupt: exit 0 (rc $rc)" test "$rc" = 0
check "every job ok, the interrupted one on its second attempt" test "$(q "$T/INT.db" "select group_concat(status || ':' || attempts, ' ') from (select * from job order by id)")" = "ok:2 ok:1"
# The run's last words on an intended stop (--max-jobs stops as Ctrl-C does, at a known point):
# the measured jobs counted apart from the warm-ups, the --resume line, and no "error" (a new
# user's try: "6 of 8 planned jobs ok ... error: run incomplete" after 2 warm-ups and 1 job of 4)
cat >"$T/w.yaml" <<'YAML'
config: {iterations: 2, warmup: 1}
workloads: [{name: sched_pipe, params: {loops: 2000}}]
variants:
  - {name: a, cpus: "0"}
  - {name: b, cpus: "0-1"}
YAML
"$KVB" run "$T/w.yaml" -p local -d "$T/w.db" --max-jobs 3 --no-diff >/dev/null 2>"$T/w.err"; rc=$?
check "--max-jobs 3 with warm-ups: exit 7 (rc $rc)" test "$rc" = 7
check "  the summary counts measured jobs and warm-ups apart" grep -q "run 1 finished: interrupted, 1 measured job(s) and 2 warm-up(s) run now" "$T/w.err"
check "  says it was interrupted, 1 of 4 measured jobs, and how to go on" grep -qF "run 1 interrupted: 1 of 4 measured job(s) done (warm-ups not counted); go on with \`kvbench run --resume 1 -d $T/w.db\`" "$T/w.err"
check "  and no error line" sh -c "! grep -q 'error' '$T/w.err'"
# --resume boots b's first round afresh: its warm-up runs again before b's job, as in every boot
"$KVB" run --resume -d "$T/w.db" --no-diff >/dev/null 2>"$T/w2.err"; rc=$?
check "--resume: exit 0 (rc $rc)" test "$rc" = 0
wq="select j.attempts || ':' || j.status from job j join variant v on v.id = j.variant_id where v.name = 'b' and j.round = 1 and j.iteration = 0"
check "  b's round-1 warm-up ran again after the resume ($(q "$T/w.db" "$wq"))" test "$(q "$T/w.db" "$wq")" = "2:warmup"
oq="select group_concat(j.iteration, ' ') from (select * from job order by end_ns) j join variant v on v.id = j.variant_id where v.name = 'b' and j.round = 1"
check "  and before b's job of that round ($(q "$T/w.db" "$oq"))" test "$(q "$T/w.db" "$oq")" = "0 1"
finish
