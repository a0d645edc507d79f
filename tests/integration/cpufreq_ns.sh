#!/usr/bin/env bash
# cpufreq knobs on a board with an offline cluster, with a cpufreq tree built in a private
# mount namespace (tmpfs over /sys/devices/system/cpu/cpufreq; this VM has no cpufreq):
# policy0 (CPUs 0-1 online), policy2 (CPUs 2-3 all offline: empty affected_cpus, and its
# files refuse access as the kernel's do). `governor` must skip policy2 with an event,
# write policy0 and put it back; a per-cluster knob naming the offline cluster fails the job.
. "$(dirname "$0")/lib.sh"
KVB=$(cd "$(dirname "$KVB")" && pwd)/$(basename "$KVB")
if ! unshare -m true 2>/dev/null; then
  echo "SKIP: no mount namespaces here (unshare -m)"; echo "0 passed, 0 failed"; exit 0
fi
mkdir -p "$T/plat"
cat >"$T/plat/platform.yaml" <<'YAML'
name: two-clusters
connection: {type: local}
topology: {clusters: [{name: little, cpus: "0-1"}, {name: big, cpus: "2-3"}]}
YAML
cat >"$T/gov.yaml" <<'YAML'
workloads: [{name: sched_pipe, params: {loops: 1000}}]
variants: [{name: perf, governor: performance}]
YAML
cat >"$T/big.yaml" <<'YAML'
workloads: [{name: sched_pipe, params: {loops: 1000}}]
variants: [{name: bigfast, cpufreq: {big: {governor: performance}}}]
YAML
# WA3 spellings of the per-cluster knob (runtime_config.py's CLUSTER_governor): the same writes.
for c in little big a15; do
  printf 'workloads:\n  - name: sched_pipe\n    params: {loops: 1000}\n    runtime_parameters: {%s_governor: performance}\n' "$c" >"$T/wa3-$c.yaml"
done
unshare -m bash -c '
  set -e
  T=$1 KVB=$2
  mount --make-rprivate /
  c=/sys/devices/system/cpu/cpufreq
  mount -t tmpfs none "$c"
  mkdir -p "$c/policy0" "$c/policy2"
  echo schedutil >"$c/policy0/scaling_governor"; echo "0 1" >"$c/policy0/affected_cpus"; echo "0 1" >"$c/policy0/related_cpus"
  mkdir "$c/policy2/scaling_governor"  # an offline policy: reading or writing it fails
  : >"$c/policy2/affected_cpus"; echo "2 3" >"$c/policy2/related_cpus"
  set +e
  "$KVB" run "$T/gov.yaml" -p "$T/plat/platform.yaml" -d "$T/gov.db" --rounds 1 --no-diff >/dev/null 2>"$T/gov.err"; echo $? >"$T/gov.rc"
  cat "$c/policy0/scaling_governor" >"$T/gov.after"
  "$KVB" run "$T/big.yaml" -p "$T/plat/platform.yaml" -d "$T/big.db" --rounds 1 --no-diff >/dev/null 2>"$T/big.err"; echo $? >"$T/big.rc"
  for w in little big a15; do
    "$KVB" run "$T/wa3-$w.yaml" -p "$T/plat/platform.yaml" -d "$T/wa3-$w.db" --rounds 1 --no-diff >/dev/null 2>"$T/wa3-$w.err"; echo $? >"$T/wa3-$w.rc"
  done
  cat "$c/policy0/scaling_governor" >"$T/wa3.after"
' ns "$T" "$KVB"
check "governor with an offline policy: run ok (rc $(cat "$T/gov.rc"))" test "$(cat "$T/gov.rc")" = 0
check "the offline policy was skipped with an event of the job" test \
  "$(q "$T/gov.db" "select count(*) from event where level='warning' and job_id is not null and message like '%skipping /sys/devices/system/cpu/cpufreq/policy2%offline%'")" = 1
check "policy0's governor put back" test "$(cat "$T/gov.after")" = schedutil
check "no knob left saved" test "$(q "$T/gov.db" "select count(*) from knob_saved")" = 0
check "per-cluster knob on the offline cluster: run fails (rc $(cat "$T/big.rc"))" test "$(cat "$T/big.rc")" = 1
check "and says which cluster is offline" sh -c "$(declare -f q); KVB='$KVB' q '$T/big.db' 'select error from job' | grep -q \"cluster 'big' (2-3): every CPU of /sys/devices/system/cpu/cpufreq/policy2 is offline\""
check "WA3 little_governor: run ok (rc $(cat "$T/wa3-little.rc"))" test "$(cat "$T/wa3-little.rc")" = 0
check "stored as the per-cluster knob" test "$(q "$T/wa3-little.db" "select json_extract(runtime_json, '$.cpufreq.little.governor') from job")" = performance
check "policy0's governor put back after it" test "$(cat "$T/wa3.after")" = schedutil
check "WA3 big_governor on the offline cluster fails the job like cpufreq.big (rc $(cat "$T/wa3-big.rc"))" sh -c "$(declare -f q); test \"\$(cat '$T/wa3-big.rc')\" = 1 && KVB='$KVB' q '$T/wa3-big.db' 'select error from job' | grep -q \"cluster 'big' (2-3): every CPU\""
check "WA3 a15_governor: a cluster the platform lacks stops the run before it starts (rc $(cat "$T/wa3-a15.rc"))" sh -c "test \"\$(cat '$T/wa3-a15.rc')\" = 3 && grep -q \"WA3 'a15_governor'): 'a15' names no cluster (name or core type) in topology.clusters of platform 'two-clusters' (known: little, big)\" '$T/wa3-a15.err'"
[ "$fail" -eq 0 ] || cat "$T/gov.err" "$T/big.err" "$T/wa3-"*.err >&2
finish
