#!/usr/bin/env bash
# cgroup_depth on Android's cgroup layout, reproduced with real kernel cgroups in a private
# mount namespace (unshare -m): cgroup2 at /sys/fs/cgroup WITHOUT the cpu controller and the
# v1 cpu controller mounted elsewhere (Android: /dev/cpuctl; here DIR/cpuctl, the same mount
# line shape, tests/fixtures/field/mounts/PROVENANCE). kvbench must nest under the v1 cpu
# hierarchy, check /proc/PID/cgroup of the workload and store the leaf with the job; with no
# hierarchy that has cpu, every cgroup_depth job fails with the reason and an event row.
. "$(dirname "$0")/lib.sh"
KVB=$(cd "$(dirname "$KVB")" && pwd)/$(basename "$KVB")
if ! unshare -m true 2>/dev/null; then
  echo "SKIP: no mount namespaces here (unshare -m)"; echo "0 passed, 0 failed"; exit 0
fi
cat >"$T/a.yaml" <<'YAML'
workloads:
  - name: sched_pipe
    params: {loops: 2000}
    sweep: {cgroup_depth: [0, 2]}
YAML
# $1: "android" (cgroup2 without cpu + v1 cpu at DIR/cpuctl) or "v2nocpu" (cgroup2 without cpu only)
in_ns() {
  unshare -m bash -c '
    set -e
    mode=$1 T=$2 KVB=$3
    mount --make-rprivate /
    umount -R /sys/fs/cgroup 2>/dev/null || umount -l /sys/fs/cgroup 2>/dev/null || true
    mount -t cgroup2 none /sys/fs/cgroup
    if [ "$mode" = android ]; then
      mkdir -p "$T/cpuctl"
      mount -t cgroup -o cpu none "$T/cpuctl" || { echo NOV1 >"$T/nov1"; exit 0; }
    fi
    grep -E " cgroup2? " /proc/mounts >"$T/mounts-$mode"
    cat /sys/fs/cgroup/cgroup.controllers >"$T/controllers-$mode"
    set +e
    "$KVB" run "$T/a.yaml" -p local -d "$T/$mode.db" --rounds 1 --no-diff >"$T/out-$mode" 2>"$T/err-$mode"
    echo $? >"$T/rc-$mode"
  ' ns "$1" "$T" "$KVB"
}

in_ns android
if [ -e "$T/nov1" ]; then
  echo "SKIP android layout: this kernel has no free v1 cpu controller (cgroup2 owns it)" >&2
elif grep -qw cpu "$T/controllers-android"; then
  echo "SKIP android layout: cgroup2 offers cpu here" >&2
else
  db=$T/android.db
  check "android layout: run ok (rc $(cat "$T/rc-android"))" test "$(cat "$T/rc-android")" = 0
  check "android layout: cgroup2 at /sys/fs/cgroup has no cpu" sh -c "! grep -qw cpu '$T/controllers-android'"
  check "android layout: depth 2 ran in the v1 cpu hierarchy's leaf" test \
    "$(q "$db" "select cgroup from job j join classifier c on c.job_id=j.id and c.metric_id is null where c.key='cgroup_depth' and c.value='2'")" = "$T/cpuctl/kvbench-run1/l2"
  check "android layout: depth 0 ran in its root" test \
    "$(q "$db" "select cgroup from job j join classifier c on c.job_id=j.id and c.metric_id is null where c.key='cgroup_depth' and c.value='0'")" = "$T/cpuctl"
  check "android layout: no warning" test "$(q "$db" "select count(*) from event where level<>'info'")" = 0
  check "android layout: cgroups removed" sh -c "! ls -d '$T'/cpuctl/kvbench-* 2>/dev/null | grep -q ."
fi

in_ns v2nocpu
if grep -qw cpu "$T/controllers-v2nocpu"; then
  echo "SKIP no-cpu layout: cgroup2 offers cpu here" >&2
else
  db=$T/v2nocpu.db
  check "no cpu controller: run fails (rc $(cat "$T/rc-v2nocpu"))" test "$(cat "$T/rc-v2nocpu")" = 1
  check "no cpu controller: depth 2 job failed, none ok" test \
    "$(q "$db" "select group_concat(distinct status) from job")" = failed
  check "no cpu controller: the reason names the missing controller" sh -c \
    "$(declare -f q); KVB='$KVB' q '$db' \"select error from job limit 1\" | grep -q 'no cgroup hierarchy with the cpu controller'"
  check "no cpu controller: the reason lists the cgroup mounts" sh -c \
    "$(declare -f q); KVB='$KVB' q '$db' \"select error from job limit 1\" | grep -q '/sys/fs/cgroup (cgroup2)'"
  check "no cpu controller: the warnings are events of the job" test \
    "$(q "$db" "select count(*) from event where level='warning' and job_id is not null and message like '%cpu controller%'")" -ge 1
fi
finish
