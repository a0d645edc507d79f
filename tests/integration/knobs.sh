# Runtime knobs on the local target: cgroup nesting created and removed, affinity applied,
# sysctl written and restored, and a failing job retried with every attempt kept.
. "$(dirname "$0")/lib.sh"
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
check "cgroup sweep runs (rc $rc)" test "$rc" -eq 0
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
"$KVB" run "$T/f.yaml" -p local -d "$T/f.db" --rounds 1 2>"$T/ferr" >/dev/null; rc=$?
check "failed job makes exit 1" test "$rc" -eq 1
check "3 attempts recorded" test "$(q "$T/f.db" "select count(*) from job_attempt")" = "3"
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
finish
