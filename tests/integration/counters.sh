#!/usr/bin/env bash
# Counters that reset, go back or vanish during a job (issue 40), at the real boundary: a fake
# /proc and /sys (the platform's sysfs_root:) whose counters the workload changes while the job
# runs. The workload is `perf bench` through a wrapper first on PATH that, before it execs the
# real perf, walks the counters through a list of states (states.sh), each written atomically
# (mv) and held until the instrument's sampler has read it (its line is in the sampler's file in
# the job's directory): no sleep decides what is seen, so a loaded host changes nothing.
. "$(dirname "$0")/lib.sh"
quiet_host # about the instruments, not the host witness (lib.sh)
KVB=$(cd "$(dirname "$KVB")" && pwd)/$(basename "$KVB")
R=$T/fake W=$T/work
cpu=$R/sys/devices/system/cpu
mkdir -p "$T/bin" "$T/p" "$W"
# put FILE CONTENT: the new content, atomically
put() { mkdir -p "$(dirname "$1")"; printf '%s\n' "$2" >"$1.new" && mv -f "$1.new" "$1"; }
# seen GLOB LINE: waits until a file of GLOB (a sampler's file in the job's directory) holds LINE
cat >"$T/lib-wrap.sh" <<'SH'
put() { mkdir -p "$(dirname "$1")"; printf '%s\n' "$2" >"$1.new" && mv -f "$1.new" "$1"; }
seen() {
  n=0
  until cat $1 2>/dev/null | grep -qxF -- "$2"; do
    n=$((n + 1)); [ $n -gt 30000 ] && { echo "never sampled: $2" >&2; return 1; }
    sleep 0.02
  done
}
SH
{
  echo '#!/bin/bash'
  echo ". '$T/lib-wrap.sh'"
  echo "R='$R' W='$W' cpu='$cpu'"
  echo ". '$T/states.sh'"
  echo "exec '$(command -v perf)' \"\$@\""
} >"$T/bin/perf"
chmod +x "$T/bin/perf"
platform() { # platform INSTRUMENTS-YAML [MORE-YAML]
  printf 'name: counters\nconnection: {type: local}\nworkdir: %s\nsysfs_root: "%s"\n%s\ninstruments: %s\n' \
    "$W" "$R" "${2:-}" "$1" >"$T/p/platform.yaml"
}
run() { # run NAME INSTRUMENT: one job of sched_pipe
  printf 'config: {instruments: [%s]}\nworkloads: [{name: sched_pipe, params: {loops: 1000}}]\n' "$2" >"$T/a.yaml"
  PATH="$T/bin:$PATH" "$KVB" run "$T/a.yaml" -p "$T/p/platform.yaml" -d "$T/$1.db" --rounds 1 --no-diff \
    >/dev/null 2>"$T/$1.err"
  echo $? >"$T/$1.rc"
}
status() { echo "$(cat "$T/$1.rc"):$(q "$T/$1.db" "select status from job")"; }
val() { q "$T/$1.db" "select round(value, 2) from results where metric='$2' and $3"; }
cnt() { q "$T/$1.db" "select count(*) from $2"; }

# 1. /proc/stat iowait going back on a NO_HZ kernel (sysstat #14, proc(5)): it goes back only while
# the CPU idles, so dropping those intervals dropped exactly the idle ones. cpu0 alternates 20
# busy ticks and 20 idle ticks whose iowait falls by 1: 50 % busy (before: 100 %).
rm -rf "$R"
put "$R/proc/stat" "cpu0 1000 0 0 1000 50 0 0 0"
cat >"$T/states.sh" <<'SH'
u=1000 i=1000 w=50
for k in 1 2 3 4; do
  u=$((u + 20)); put "$R/proc/stat" "cpu0 $u 0 0 $i $w 0 0 0"; seen "$W/run-*/util-stat.txt" "cpu0 $u 0 0 $i $w 0 0 0"
  i=$((i + 20)) w=$((w - 1)); put "$R/proc/stat" "cpu0 $u 0 0 $i $w 0 0 0"; seen "$W/run-*/util-stat.txt" "cpu0 $u 0 0 $i $w 0 0 0"
done
SH
platform "{util: {type: util, interval_ms: 100}}"
run iowait util
check "iowait: job ok ($(status iowait))" test "$(status iowait)" = "0:ok"
check "cpu0 util_mean 50 %, not 100 (got $(val iowait util_mean 1))" test "$(val iowait util_mean 1)" = 50
check "util_min 0: the idle intervals are kept" test "$(val iowait util_min 1)" = 0
check "a witness says iowait went back and was held" test "$(cnt iowait "witness where kind='counter' and subject='cpu0 iowait' and verdict='ok' and detail like '%below its previous value in 7 of 8 intervals%held there%'")" = 1

# 2. cpu1 taken offline and back within the job (item 2): its line is missing from a sample, then
# it comes back; /sys/devices/system/cpu/online says 0-1 at both ends, so the ends agree.
rm -rf "$R"
put "$cpu/online" "0-1"
put "$R/proc/stat" $'cpu0 1000 0 0 1000 0 0 0 0\ncpu1 1000 0 0 1000 0 0 0 0'
cat >"$T/states.sh" <<'SH'
put "$cpu/online" "0"; put "$R/proc/stat" "cpu0 1010 0 0 1010 0 0 0 0"; seen "$W/run-*/util-stat.txt" "cpu0 1010 0 0 1010 0 0 0 0"
put "$cpu/online" "0-1"; put "$R/proc/stat" $'cpu0 1020 0 0 1020 0 0 0 0\ncpu1 1001 0 0 3 0 0 0 0'
seen "$W/run-*/util-stat.txt" "cpu1 1001 0 0 3 0 0 0 0"
put "$R/proc/stat" $'cpu0 1030 0 0 1030 0 0 0 0\ncpu1 1011 0 0 13 0 0 0 0'; seen "$W/run-*/util-stat.txt" "cpu1 1011 0 0 13 0 0 0 0"
SH
platform "{util: {type: util, interval_ms: 100}}"
run hotplug util
check "hotplug: job ok ($(status hotplug))" test "$(status hotplug)" = "0:ok"
check "a changed hotplug witness for cpu1, missing from a sample" test "$(cnt hotplug "witness where kind='hotplug' and subject='cpu1 /proc/stat' and verdict='changed' and detail like 'cpu1 went offline during the job: its line was missing from % of the %'")" = 1
check "an event of the job says so" test "$(cnt hotplug "event where job_id is not null and message like '%cpu1 went offline during the job%'")" = 1
check "cpu1 util_mean from the interval it was back: 50 %" test "$(val hotplug util_mean "json_extract(classifiers,'\$.cpu')='1'")" = 50

[ "$fail" -eq 0 ] || cat "$T"/*.err >&2
finish
