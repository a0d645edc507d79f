#!/usr/bin/env bash
# The thermal witness (engine/thermal.h) on a fake sysfs tree (the platform's sysfs_root), laid
# out as Linux Documentation/driver-api/thermal/sysfs-api.rst's example (acpitz with a
# Processor and a Fan cooling device) plus a cpufreq policy; capping starts while the
# benchmark runs (a wrapper the job runs as `perf`, found first on PATH, raises the
# Processor's cur_state, drops policy0's scaling_max_freq and the zone's temperature
# rises): `changed` witnesses, events of the job, footnotes in diff and the report; with
# thermal.refuse_capped or a thermal.max_temp_mc under the temperature the job fails and
# stores no metric. Two CPUs hotplugged out during the job are a `changed` hotplug witness.
. "$(dirname "$0")/lib.sh"
R=$T/fake
mkdir -p "$T/bin" "$T/p"
tree() {
  rm -rf "$R"
  mkdir -p "$R/sys/class/thermal/thermal_zone1" "$R/sys/class/thermal/cooling_device0" \
    "$R/sys/class/thermal/cooling_device3" "$R/sys/devices/system/cpu/cpufreq/policy0"
  echo acpitz >"$R/sys/class/thermal/thermal_zone1/type"
  echo 37000 >"$R/sys/class/thermal/thermal_zone1/temp"
  echo Processor >"$R/sys/class/thermal/cooling_device0/type"
  echo 0 >"$R/sys/class/thermal/cooling_device0/cur_state"
  echo 8 >"$R/sys/class/thermal/cooling_device0/max_state"
  echo Fan >"$R/sys/class/thermal/cooling_device3/type"
  echo 0 >"$R/sys/class/thermal/cooling_device3/cur_state"
  echo 2 >"$R/sys/class/thermal/cooling_device3/max_state"
  echo 2362000 >"$R/sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq"
  echo 2362000 >"$R/sys/devices/system/cpu/cpufreq/policy0/cpuinfo_max_freq"
  echo 0-3 >"$R/sys/devices/system/cpu/online"
}
cat >"$T/bin/perf" <<EOF
#!/bin/sh
# the board heats up while the benchmark runs: the thermal governor caps policy0
echo 81000 >"$R/sys/class/thermal/thermal_zone1/temp"
echo 3 >"$R/sys/class/thermal/cooling_device0/cur_state"
echo 1800000 >"$R/sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq"
echo 0-1 >"$R/sys/devices/system/cpu/online"   # and a hotplug daemon takes two CPUs out
exec $(command -v perf) "\$@"
EOF
chmod +x "$T/bin/perf"
plat() { printf 'name: hot\nconnection: {type: local}\nsysfs_root: "%s"\nthermal: {%s}\n' "$R" "$1" >"$T/p/platform.yaml"; }
printf 'workloads: [{name: sched_pipe, params: {loops: 1000}}]\n' >"$T/a.yaml"
run() { # run NAME: the agenda on the fresh tree, perf wrapped
  tree
  PATH="$T/bin:$PATH" "$KVB" run "$T/a.yaml" -p "$T/p/platform.yaml" -d "$T/$1.db" --rounds 1 --no-diff >/dev/null 2>"$T/$1.err"
  echo $? >"$T/$1.rc"
}

plat ""
run capped
db=$T/capped.db
check "capping during the job: the job is kept (rc $(cat "$T/capped.rc"))" test "$(cat "$T/capped.rc")" = 0
check "the zone's temperature before and after, subject its type" test \
  "$(q "$db" "select expected||'>'||observed||'|'||verdict from witness where kind='thermal' and subject='acpitz'")" = "37000>81000|ok"
check "the Processor cooling device: changed" test \
  "$(q "$db" "select expected||'>'||observed||'|'||verdict from witness where kind='thermal' and subject='Processor'")" = "0>3|changed"
check "policy0's scaling_max_freq: changed" test \
  "$(q "$db" "select expected||'>'||observed||'|'||verdict from witness where kind='thermal' and subject='policy0 scaling_max_freq'")" = "2362000>1800000|changed"
check "CPUs hotplugged during the job: a changed hotplug witness" test \
  "$(q "$db" "select expected||'>'||observed||'|'||verdict from witness where kind='hotplug'")" = "0-3>0-1|changed"
check "no row for the idle fan" test "$(q "$db" "select count(*) from witness where subject='Fan'")" = 0
check "two events of the job name the capping" test \
  "$(q "$db" "select count(*) from event where job_id is not null and message like '%capping began%'")" = 2
"$KVB" diff -d "$db" >"$T/capped.diff" 2>&1
check "diff footnotes the cells" grep -q "cooling_device0 (Processor): cur_state 0 before the job, 3 after, of max_state 8: capping began" "$T/capped.diff"
"$KVB" report -d "$db" --format markdown -o "$T/capped.md" >/dev/null 2>&1
check "the report shows it" grep -q "policy0: scaling_max_freq 2362000 kHz before the job, 1800000 after" "$T/capped.md"
check "the metrics are stored" test "$(q "$db" "select count(*) from metric")" -gt 0

plat "refuse_capped: true"
run refused
db=$T/refused.db
check "refuse_capped: the run fails (rc $(cat "$T/refused.rc"))" test "$(cat "$T/refused.rc")" = 1
check "the job's error says why" sh -c "$(declare -f q); KVB='$KVB' q '$db' 'select error from job' | grep -q 'thermal: cooling_device0 (Processor): cur_state 0 before the job, 3 after'"
check "failed witnesses for the cooling device and the cap" test "$(q "$db" "select count(*) from witness where verdict='failed'")" = 2
check "no metric stored for it" test "$(q "$db" "select count(*) from metric")" = 0

plat "max_temp_mc: 80000"
run hot
db=$T/hot.db
check "max_temp_mc 80000 under 81000: the run fails (rc $(cat "$T/hot.rc"))" test "$(cat "$T/hot.rc")" = 1
check "the error names the zone and the limit" sh -c "$(declare -f q); KVB='$KVB' q '$db' 'select error from job' | grep -q 'thermal_zone1: 37000 mC before the job, 81000 mC after: above thermal.max_temp_mc 80000'"

# a board without thermal zones or policies records nothing
mkdir -p "$T/empty/sys"
printf 'name: cold\nconnection: {type: local}\nsysfs_root: "%s"\nthermal: {}\n' "$T/empty" >"$T/p/platform.yaml"
"$KVB" run "$T/a.yaml" -p "$T/p/platform.yaml" -d "$T/none.db" --rounds 1 --no-diff >/dev/null 2>"$T/none.err"; rc=$?
check "no thermal zones: ok (rc $rc), no thermal witness, no warning" test "$rc:$(q "$T/none.db" "select count(*) from witness where kind='thermal'"):$(q "$T/none.db" "select count(*) from event where level<>'info'")" = "0:0:0"
[ "$fail" -eq 0 ] || cat "$T"/*.err >&2
finish
