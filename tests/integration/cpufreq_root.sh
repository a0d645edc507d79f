#!/usr/bin/env bash
# cpufreq and sysfs knobs on a board whose /sys is a fake tree under the platform's sysfs_root
# (docs/design.md#layers-and-rooms): policy0 (CPUs 0-1 online) and policy2 (CPUs 2-3 all offline: empty
# affected_cpus, a scaling_governor that cannot be read, as the kernel's). The listing, every write,
# its read-back and the restore go under the root; messages name the board's path without it.
# cpufreq_ns.sh proves the same on the real /sys path (a mount namespace); this one needs no
# privilege, and fails where a reader ignores sysfs_root (the host has no cpufreq policies and no
# /sys/kernel/kvb_knob).
. "$(dirname "$0")/lib.sh"
R=$T/tree
c=$R/sys/devices/system/cpu/cpufreq
mkdir -p "$c/policy0" "$c/policy2/scaling_governor" "$R/sys/kernel"
echo schedutil >"$c/policy0/scaling_governor"; echo "0 1" >"$c/policy0/affected_cpus"; echo "0 1" >"$c/policy0/related_cpus"
: >"$c/policy2/affected_cpus"; echo "2 3" >"$c/policy2/related_cpus"
echo 0 >"$R/sys/kernel/kvb_knob"
mkdir -p "$T/plat"
cat >"$T/plat/platform.yaml" <<YAML
name: fake-tree
connection: {type: local}
sysfs_root: $R
topology: {clusters: [{name: little, cpus: "0-1"}, {name: big, cpus: "2-3"}]}
YAML
# the workload sees the tree as the knobs left it: the values land in an artifact
cat >"$T/gov.yaml" <<YAML
workloads: [{name: sched_pipe, params: {loops: 1000}}]
variants: [{name: perf, governor: performance, sysfs: {/sys/kernel/kvb_knob: 7}}]
YAML
cat >"$T/big.yaml" <<'YAML'
workloads: [{name: sched_pipe, params: {loops: 1000}}]
variants: [{name: bigfast, cpufreq: {big: {governor: performance}}}]
YAML
"$KVB" run "$T/gov.yaml" -p "$T/plat/platform.yaml" -d "$T/gov.db" --rounds 1 --no-diff >/dev/null 2>"$T/gov.err"; grc=$?
"$KVB" run "$T/big.yaml" -p "$T/plat/platform.yaml" -d "$T/big.db" --rounds 1 --no-diff >/dev/null 2>"$T/big.err"; brc=$?
check "governor and a sysfs knob under sysfs_root: run ok (rc $grc)" test "$grc" = 0
check "policy0's governor written under the root and read back" test \
  "$(q "$T/gov.db" "select expected || '=' || observed || ':' || verdict from witness where kind='knob' and subject='$c/policy0/scaling_governor'")" = "performance=performance:ok"
check "the sysfs knob written under the root and read back" test \
  "$(q "$T/gov.db" "select expected || '=' || observed || ':' || verdict from witness where kind='knob' and subject='$R/sys/kernel/kvb_knob'")" = "7=7:ok"
check "no knob written outside the root" test \
  "$(q "$T/gov.db" "select count(*) from witness where kind='knob' and subject not like '$R/%'")" = 0
check "the offline policy skipped with an event naming the board's path" test \
  "$(q "$T/gov.db" "select count(*) from event where level='warning' and job_id is not null and message like '%skipping /sys/devices/system/cpu/cpufreq/policy2:%offline%'")" = 1
check "policy0's governor put back" test "$(cat "$c/policy0/scaling_governor")" = schedutil
check "the sysfs knob put back" test "$(cat "$R/sys/kernel/kvb_knob")" = 0
check "no knob left saved" test "$(q "$T/gov.db" "select count(*) from knob_saved")" = 0
check "per-cluster knob on the offline cluster: run fails (rc $brc)" test "$brc" = 1
check "and names the offline policy by the board's path" sh -c "$(declare -f q); KVB='$KVB' q '$T/big.db' 'select error from job' | grep -q \"cluster 'big' (2-3): every CPU of /sys/devices/system/cpu/cpufreq/policy2 is offline\""
[ "$fail" -eq 0 ] || cat "$T/gov.err" "$T/big.err" >&2
finish
