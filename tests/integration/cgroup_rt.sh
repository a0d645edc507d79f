#!/usr/bin/env bash
# cgroup_depth on a kernel with RT group scheduling (CONFIG_RT_GROUP_SCHED, as Android's
# /dev/cpuctl kernels have), with this machine's real kernel: a mount namespace with
# Android's layout (cgroup2 at /sys/fs/cgroup without cpu, the v1 cpu controller at
# DIR/cpuctl). A v1 cpu group starts with cpu.rt_runtime_us 0, where no SCHED_FIFO task
# may run (Documentation/scheduler/sched-rt-group.rst): before, cyclictest and SCHED_FIFO
# rt-app failed at every depth >= 1 ("Unable to change scheduling policy!"). kvbench gives
# each group it creates the budget its parent's other groups leave free and reads it back;
# with none left (a group of the test holds it all) the sweep is refused before the run
# with the budgets, and a workload without RT tasks still runs.
. "$(dirname "$0")/lib.sh"
KVB=$(cd "$(dirname "$KVB")" && pwd)/$(basename "$KVB")
if ! unshare -m true 2>/dev/null; then
  echo "SKIP: no mount namespaces here (unshare -m)"; echo "0 passed, 0 failed"; exit 0
fi
cat >"$T/rt.yaml" <<'YAML'
workloads:
  - name: cyclictest
    params: {duration_s: 1, threads: 1, interval_us: 1000, histogram_us: 20000}
    sweep: {cgroup_depth: [0, 2]}
  - name: rt-app
    params: {duration_s: 1, calibration: 100, tasks: [{name: fifo, period_us: 10000, run_us: 1000, policy: SCHED_FIFO, priority: 10}]}
    runtime_params: {cgroup_depth: 1}
YAML
cat >"$T/hb.yaml" <<'YAML'
workloads:
  - {name: sched_pipe, params: {loops: 1000}, runtime_params: {cgroup_depth: 2}}
YAML
hog=kvb-rt-hog-$$
unshare -m bash -c '
  T=$1 KVB=$2 hog=$3
  mount --make-rprivate /
  umount -R /sys/fs/cgroup 2>/dev/null || umount -l /sys/fs/cgroup 2>/dev/null || true
  mount -t cgroup2 none /sys/fs/cgroup
  mkdir -p "$T/cpuctl"
  mount -t cgroup -o cpu none "$T/cpuctl" || { echo NOV1 >"$T/skip"; exit 0; }
  [ -e "$T/cpuctl/cpu.rt_runtime_us" ] || { echo NORT >"$T/skip"; exit 0; }
  "$KVB" run "$T/rt.yaml" -p local -d "$T/rt.db" --rounds 1 --no-diff >/dev/null 2>"$T/rt.err"; echo $? >"$T/rt.rc"
  # a group that holds all the RT budget the root has free: none left for kvbench
  mkdir "$T/cpuctl/$hog"
  used=0
  for d in "$T/cpuctl"/*/; do [ "${d%/}" = "$T/cpuctl/$hog" ] || used=$((used + $(cat "$d/cpu.rt_runtime_us"))); done
  echo $(( $(cat "$T/cpuctl/cpu.rt_runtime_us") - used )) >"$T/cpuctl/$hog/cpu.rt_runtime_us"
  "$KVB" run "$T/rt.yaml" -p local -d "$T/full.db" --rounds 1 --no-diff >/dev/null 2>"$T/full.err"; echo $? >"$T/full.rc"
  "$KVB" run "$T/hb.yaml" -p local -d "$T/hb.db" --rounds 1 --no-diff >/dev/null 2>"$T/hb.err"; echo $? >"$T/hb.rc"
  rmdir "$T/cpuctl/$hog"
  ls -d "$T"/cpuctl/kvbench-* >"$T/left" 2>/dev/null
' ns "$T" "$KVB" "$hog"
if [ -e "$T/skip" ]; then
  echo "SKIP: $(cat "$T/skip"): no v1 cpu controller with RT group scheduling on this kernel" >&2
  echo "0 passed, 0 failed"; exit 0
fi
db=$T/rt.db
check "RT jobs at cgroup_depth 0, 1 and 2 all run (rc $(cat "$T/rt.rc"))" test "$(cat "$T/rt.rc"):$(q "$db" "select group_concat(distinct status) from job")" = "0:ok"
check "cyclictest ran 2 deep, in the leaf" test "$(q "$db" "select cgroup from job where spec_id like 'cyclictest;cgroup_depth=2'")" = "$T/cpuctl/kvbench-run1/l2"
check "each group kvbench made got an RT budget, read back (ok)" test \
  "$(q "$db" "select count(*) from witness w join job j on j.id = w.job_id where j.spec_id like 'cyclictest;cgroup_depth=2' and w.subject like '%cpu.rt_runtime_us' and w.verdict = 'ok' and cast(w.observed as int) > 0")" = 2
check "level 2 got all of level 1's budget" test \
  "$(q "$db" "select count(distinct observed) from witness w join job j on j.id = w.job_id where j.spec_id like 'cyclictest;cgroup_depth=2' and w.subject like '%cpu.rt_runtime_us'")" = 1
check "rt-app's SCHED_FIFO task ran 1 deep" test "$(q "$db" "select status || '|' || cgroup from job where workload = 'rt-app'")" = "ok|$T/cpuctl/kvbench-run1"
check "no RT budget left: the sweep is refused before the run (rc $(cat "$T/full.rc"))" test "$(cat "$T/full.rc")" = 3
check "the refusal names the jobs and the budgets" grep -q "jobs 'cyclictest;cgroup_depth=2' (cyclictest, cgroup_depth 2), 'rt-app' (rt-app, cgroup_depth 1) run real-time tasks in cgroups kvbench creates, but this kernel has RT group scheduling and no RT budget is left for a new group: $T/cpuctl/cpu.rt_runtime_us is [0-9]* of [0-9]* us and its [0-9]* other group(s) hold [0-9]* us of it (0 us free)" "$T/full.err"
check "nothing ran" test ! -e "$T/full.db" -o "$(q "$T/full.db" "select count(*) from job where status <> 'pending'" 2>/dev/null)" = 0
check "a workload without RT tasks still runs 2 deep (rc $(cat "$T/hb.rc"))" test "$(cat "$T/hb.rc"):$(q "$T/hb.db" "select status from job")" = "0:ok"
check "and says its groups have no RT budget" test "$(q "$T/hb.db" "select count(*) from witness where verdict = 'ok' and detail like 'no RT budget left for%'")" = 2
check "the groups are removed" test ! -s "$T/left"
[ "$fail" -eq 0 ] || cat "$T"/*.err >&2
finish
