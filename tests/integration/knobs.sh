# Runtime knobs on the local target: cgroup nesting created and removed, affinity applied,
# sysctl written and restored, and a failing job retried with every attempt kept.
. "$(dirname "$0")/lib.sh"
SIM=${KVB_BUILD_DIR:-build}/tests/sim/probe_sim
db=$T/k.db
cat >"$T/a.yaml" <<'YAML'
workloads:
  - name: sched_pipe
    params: {loops: 2000}
    sweep: {cgroup_depth: [0, 1, 3]}
variants:
  - name: pinned
    cpus: "0"
YAML
"$KVB" run "$T/a.yaml" -p local -d "$db" --rounds 1 2>"$T/err" >"$T/out"; rc=$?
check "cgroup sweep runs (rc $rc)" test "$rc" -eq 0; [ "$rc" -eq 0 ] || cat "$T/err" >&2
check "three depths stored" test "$(q "$db" "select count(distinct json_extract(classifiers,'$.cgroup_depth')) from results")" = "3"
check "cgroups removed after the run" sh -c "! ls -d /sys/fs/cgroup/cpu/kvbench-* /sys/fs/cgroup/kvbench-* 2>/dev/null | grep -q ."
"$KVB" diff -d "$db" --by cgroup_depth --metric usecs_per_op >"$T/by"
check "--by cgroup_depth gives root/level columns" sh -c "grep -q ' root ' '$T/by' && grep -q ' level1 ' '$T/by' && grep -q ' level3 ' '$T/by'"
# a workload that always fails: bad hackbench parameter via huge fds fails at runtime -> retries kept
cat >"$T/f.yaml" <<'YAML'
config: {max_retries: 2}
workloads:
  - {name: hackbench, params: {groups: 1, fds: 2, loops: 10}, runtime_params: {cpus: "999"}}
YAML
"$KVB" run "$T/f.yaml" -p local -d "$T/f.db" --rounds 1 --keep-going 2>"$T/ferr" >/dev/null; rc=$? # past the preflight, which refuses CPU 999
check "failed job makes exit 1" test "$rc" -eq 1
# the cpus knob is checked before the workload (engine/affinity.h): a knob the board cannot
# apply fails the same way every time, so it is not retried (retries: it_faults_ssh)
check "1 attempt (knob failures are not retried)" test "$(q "$T/f.db" "select attempts from job")" = "1"
check "and one attempt row, not two" test "$(q "$T/f.db" "select count(*) from job_attempt")" = "1"
check "job failed with taskset's reason" sh -c "q() { \"$KVB\" query -d \"$T/f.db\" -f csv \"\$1\" | tail -n +2; }; q 'select error from job' | grep -qi 'taskset'"
# sysctl written during the job and restored after
old=$(cat /proc/sys/kernel/sched_rr_timeslice_ms)
cat >"$T/s.yaml" <<YAML
workloads:
  - {name: hackbench, params: {groups: 1, fds: 2, loops: 10}, runtime_params: {sysctl: {kernel.sched_rr_timeslice_ms: 50}}}
YAML
"$KVB" run "$T/s.yaml" -p local -d "$T/s.db" --rounds 1 2>"$T/serr" >/dev/null; rc=$?
check "sysctl job runs (rc $rc)" test "$rc" -eq 0
check "sysctl restored to $old" test "$(cat /proc/sys/kernel/sched_rr_timeslice_ms)" = "$old"
check "runtime stored with the job" test "$(q "$T/s.db" "select json_extract(runtime_json, '$.sysctl.\"kernel.sched_rr_timeslice_ms\"') from job")" = "50"
# a run killed while a knob is changed: the next resume puts the board back first
cat >"$T/k.yaml" <<YAML
config: {iterations: 3}
workloads:
  - {name: sched_pipe, params: {loops: 300000}, runtime_params: {sysctl: {kernel.sched_rr_timeslice_ms: 77}}}
YAML
"$KVB" run "$T/k.yaml" -p local -d "$T/kill.db" --rounds 1 --no-diff 2>/dev/null &
pid=$!
for i in $(seq 1200); do [ "$(cat /proc/sys/kernel/sched_rr_timeslice_ms)" = "77" ] && break; sleep 0.05; done
kill -9 "$pid"; wait "$pid" 2>/dev/null
check "the killed run left the sysctl changed" test "$(cat /proc/sys/kernel/sched_rr_timeslice_ms)" = "77"
check "its original is saved in the DB" test "$(q "$T/kill.db" "select original from knob_saved")" = "$old"
"$KVB" run --resume -d "$T/kill.db" --no-diff 2>"$T/kerr"; rc=$?
check "resume completes (rc $rc)" test "$rc" -eq 0
check "resume said it restored the knob" grep -q "restoring /proc/sys/kernel/sched_rr_timeslice_ms to '$old'" "$T/kerr"
check "sysctl back to $old after resume" test "$(cat /proc/sys/kernel/sched_rr_timeslice_ms)" = "$old"
check "no saved knob left" test "$(q "$T/kill.db" "select count(*) from knob_saved")" = "0"
# two processes cannot run the same DB at once. The first run holds its job at the start of
# a meter that records only once $T/go exists (ready_timeout_ms), so it cannot end before
# the second run has tried: no race with the machine's load.
mkdir -p "$T/gate"
cat >"$T/gate/platform.yaml" <<YAML
name: gate
connection: {type: local}
instruments:
  gate: {type: csv-command, ready_timeout_ms: 600000,
         command: [sh, -c, 'while [ ! -e "\$1" ]; do sleep 0.05; done; exec "\$0" csv --duration 120', "$SIM", "$T/go"]}
YAML
cat >"$T/short.yaml" <<YAML
workloads:
  - {name: hackbench, params: {groups: 1, fds: 2, loops: 10}}
YAML
"$KVB" run "$T/short.yaml" -p "$T/gate" -d "$T/lock.db" --rounds 1 --no-diff 2>"$T/l1err" &
pid=$!
for i in $(seq 1200); do [ "$(cat "$T/lock.db.lock" 2>/dev/null)" = "$pid" ] && break; sleep 0.05; done
"$KVB" run --resume -d "$T/lock.db" --no-diff 2>"$T/lerr"; rc=$?
check "a second run of the same DB is refused (rc $rc)" test "$rc" -eq 5
check "and names the holder" grep -q "another kvbench (pid $pid) is running" "$T/lerr"
touch "$T/go"
wait "$pid"
check "the first run completes" test "$(q "$T/lock.db" "select status from run")" = "ok"
[ "$(q "$T/lock.db" "select status from run")" = "ok" ] || cat "$T/l1err" >&2
# a knob the board lacks fails its job once, not max_retries times, with the knob named
cat >"$T/g.yaml" <<YAML
workloads:
  - {name: hackbench, params: {groups: 1, fds: 2, loops: 10}, runtime_params: {sysctl: {kernel.no_such_knob: 1}}}
YAML
# on local (no kernel flashed) the preflight finds it before anything runs: exit 3, no results
"$KVB" run "$T/g.yaml" -p local -d "$T/g.db" --rounds 1 --no-diff 2>"$T/gerr"; rc=$?
check "the preflight refuses a missing knob (rc $rc)" test "$rc" -eq 3
check "and names it" grep -q "runtime knob sysctl.kernel.no_such_knob: /proc/sys/kernel/no_such_knob does not exist" "$T/gerr"
check "and writes no results database" test ! -e "$T/g.db"
# run anyway (--keep-going), as on a board whose flashed kernel the preflight cannot see
"$KVB" run "$T/g.yaml" -p local -d "$T/g.db" --rounds 1 --no-diff --keep-going 2>/dev/null; rc=$?
check "missing knob fails the run (rc $rc)" test "$rc" -eq 1
check "no retries for a missing knob" test "$(q "$T/g.db" "select attempts from job")" = "1"
check "the error names the knob" test "$(q "$T/g.db" "select count(*) from job where error like 'runtime knobs: runtime knob /proc/sys/kernel/no_such_knob%'")" = "1"
finish
