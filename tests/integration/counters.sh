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
# (KVB_SEEN_TRIES x 20 ms at most: a build without the sampler, e.g. to see the test fail, sets it low)
cat >"$T/lib-wrap.sh" <<'SH'
put() { mkdir -p "$(dirname "$1")"; printf '%s\n' "$2" >"$1.new" && mv -f "$1.new" "$1"; }
seen() {
  n=0
  until cat $1 2>/dev/null | grep -qxF -- "$2"; do
    n=$((n + 1)); [ $n -gt "${KVB_SEEN_TRIES:-30000}" ] && { echo "never sampled: $2" >&2; return 1; }
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

# 3. cpufreq stats/reset written during the job (as kernel-manager apps do; FK Kernel Manager
# #103): before the reset the board ran 300 ticks at 500 MHz, after it 300 at 500 and 100 at
# 1000, then 300 more at 500: 900 at 500 MHz, 100 at 1 GHz, mean 550 MHz. The rows at the end
# (600, 100) are below the start's at 500 MHz (10000): before, that row counted 0 and the job was
# stored as 1000 MHz, 100 % at 1 GHz.
rm -rf "$R"
tis() { put "$cpu/cpu$1/cpufreq/stats/time_in_state" "$2"; }
tis 0 $'500000 10000\n1000000 20'
cat >"$T/states.sh" <<'SH'
tis() { put "$cpu/cpu$1/cpufreq/stats/time_in_state" "$2"; }
S="$W/run-*/cpufreq-tis.txt"
tis 0 $'500000 10300\n1000000 20'; seen "$S" "500000 10300"
tis 0 $'500000 0\n1000000 0'       # what a write to stats/reset does
tis 0 $'500000 300\n1000000 100'; seen "$S" "500000 300"
tis 0 $'500000 600\n1000000 100'
SH
platform "{cpufreq: {type: cpufreq}}" 'topology: {clusters: [{name: little, cpus: "0-1"}]}'
run reset cpufreq
check "reset: job ok ($(status reset))" test "$(status reset)" = "0:ok"
check "freq_mean 550 MHz, not 1000 (got $(val reset freq_mean 1))" test "$(val reset freq_mean 1)" = 550
check "90 % at 500 MHz" test "$(val reset freq_residency "json_extract(classifiers,'\$.freq_mhz')='500'")" = 90
check "a changed counter witness says time_in_state restarted" test "$(cnt reset "witness where kind='counter' and subject='little time_in_state' and verdict='changed' and detail like '%restarted between the readings at uptime % and uptime %rows went back to 0: stats/reset%'")" = 1
check "and an event of the job" test "$(cnt reset "event where job_id is not null and message like '%time_in_state restarted%'")" = 1

# 4. The big cluster hotplugged off and back within the job: the kernel frees its cpufreq stats
# with the policy and recreates them when a CPU comes back (cpufreq-stats.rst; collectd #1823).
# Big ran 100 ticks at 1 GHz and 200 at 2 GHz, went out (stats gone, online 0-1), came back with
# a new table (150 at 500 MHz, 300 at 1 GHz, 400 at 2 GHz), then 200 more at 1 GHz and 400 at 2:
# 150/600/1000 ticks, mean 1528.57 MHz. Before: every row but 500 MHz was below its start value,
# stored as 500 MHz. The online list is 0-3 at both ends.
rm -rf "$R"
put "$cpu/online" "0-3"
tis 0 $'500000 100\n1000000 100'
tis 2 $'500000 100\n1000000 5000\n2000000 5000'
cat >"$T/states.sh" <<'SH'
tis() { put "$cpu/cpu$1/cpufreq/stats/time_in_state" "$2"; }
S="$W/run-*/cpufreq-tis.txt"
tis 0 $'500000 200\n1000000 100'; tis 2 $'500000 100\n1000000 5100\n2000000 5200'; seen "$S" "2000000 5200"
put "$cpu/online" "0-1"; rm -f "$cpu/cpu2/cpufreq/stats/time_in_state"; seen "$S" "online 0-1"
tis 2 $'500000 150\n1000000 300\n2000000 400'; put "$cpu/online" "0-3"; seen "$S" "2000000 400"
tis 2 $'500000 150\n1000000 500\n2000000 800'; tis 0 $'500000 300\n1000000 100'
SH
platform "{cpufreq: {type: cpufreq}}" 'topology: {clusters: [{name: little, cpus: "0-1"}, {name: big, cpus: "2-3"}]}'
run replug cpufreq
check "replug: job ok ($(status replug))" test "$(status replug)" = "0:ok"
check "big freq_mean 1528.57 MHz, not 500 (got $(val replug freq_mean "json_extract(classifiers,'\$.cluster')='big'"))" test "$(val replug freq_mean "json_extract(classifiers,'\$.cluster')='big'")" = 1528.57
check "little kept: 500 MHz" test "$(val replug freq_mean "json_extract(classifiers,'\$.cluster')='little'")" = 500
check "big's restart is a changed witness naming the offline cluster" test "$(cnt replug "witness where subject='big time_in_state' and verdict='changed' and detail like '%the cluster was offline between them: its stats were freed%'")" = 1
check "the online list sampled: a hotplug witness though both ends say 0-3" test "$(cnt replug "witness where kind='hotplug' and verdict='changed' and expected='0-3' and observed='0-1' and detail like '%back to 0-3%'")" = 1

# 5. hwmon energy counters that go back during the job (a reset: hwmon declares no wrap point).
# BIG is reset and ends below its start; LITTLE is reset and climbs back above its start by the
# end, which only a sample sees. Before: the instrument failed (all channels lost, the job
# instrument-failed); now both are refused with a witness and SYS is kept (1 J).
rm -rf "$R"
hw=$R/sys/class/hwmon/hwmon0
for l in 1:SYS 2:BIG 3:LITTLE; do put "$hw/energy${l%%:*}_label" "${l#*:}"; done
put "$hw/energy1_input" 1000000; put "$hw/energy2_input" 5000000; put "$hw/energy3_input" 7000000
cat >"$T/states.sh" <<'SH'
hw=$R/sys/class/hwmon/hwmon0 S="$W/run-*/hw-energy.txt"
put "$hw/energy1_input" 1500000; put "$hw/energy2_input" 5200000; put "$hw/energy3_input" 7100000
seen "$S" "hwmon0/energy3_input:7100000"
put "$hw/energy2_input" 100; put "$hw/energy3_input" 50; seen "$S" "hwmon0/energy3_input:50"
put "$hw/energy1_input" 2000000; put "$hw/energy2_input" 300000; put "$hw/energy3_input" 7500000
SH
platform "{hw: {type: juno-hwmon, interval_ms: 100}}"
run hwmon hw
check "hwmon: job ok, not instrument-failed ($(status hwmon))" test "$(status hwmon)" = "0:ok"
check "SYS kept: 1 J" test "$(val hwmon energy "json_extract(classifiers,'\$.chan_name')='SYS'")" = 1
check "BIG and LITTLE not stored" test "$(cnt hwmon "results where json_extract(classifiers,'\$.chan_name') in ('BIG','LITTLE')")" = 0
check "LITTLE refused: its reset was seen in a sample" test "$(cnt hwmon "witness where subject='hw channel LITTLE' and verdict='refused' and detail like '%went back from 7100000 to 50 uJ between the readings at uptime % and uptime %'")" = 1
check "BIG refused" test "$(cnt hwmon "witness where subject='hw channel BIG' and verdict='refused'")" = 1

# 6. A RAPL counter that wraps in a job longer than one wrap period at max_power_w (zeus #91,
# likwid #646): max_energy_range_uj 1 J, max_power_w 0.1 W, a 10 s period; the job takes more
# than 11 s (the wrapper waits after its last state) and the counter moves 40 x 5 mJ, wrapping
# once. Sampled every 100 ms, each wrap is undone between two reads: 0.2 J. Before: refused (a
# second wrap could have hidden in the job).
rm -rf "$R"
z=$R/sys/class/powercap/intel-rapl:0
put "$z/name" package-0; put "$z/max_energy_range_uj" 1000000; put "$z/energy_uj" 900000
cat >"$T/states.sh" <<'SH'
z=$R/sys/class/powercap/intel-rapl:0 e=900000
for k in $(seq 40); do
  e=$(((e + 5000) % 1000000)); put "$z/energy_uj" $e; seen "$W/run-*/cpu-powercap.txt" "intel-rapl:0/energy_uj:$e"
done
sleep 11 # a job longer than the 10 s wrap period, not a synchronisation
SH
platform "{cpu: {type: rapl, interval_ms: 100, max_power_w: 0.1}}"
run rapl cpu
check "rapl: job ok ($(status rapl))" test "$(status rapl)" = "0:ok"
check "package-0 energy 0.2 J, not refused (got '$(val rapl energy 1)')" test "$(val rapl energy 1)" = 0.2
check "its witness: wrapped once" test "$(cnt rapl "witness where subject='cpu channel package-0' and verdict='ok' and detail like 'wrapped once at max_energy_range_uj: counted 200000 uJ'")" = 1

# 7. The model instrument (an energy estimate from /proc/stat busy time x time_in_state residency x
# the energy_model) with the same stats/reset as case 3: cpu0 is busy 300 ticks (3 s at USER_HZ
# 100) while the cluster runs 900 ticks at 500 MHz (100 mW) and 100 at 1 GHz (500 mW): 140 mW,
# 0.42 J. Before (the two end readings only): the 500 MHz row ended below its start and counted 0,
# the job weighted all at 1 GHz: 1.5 J.
rm -rf "$R"
put "$R/proc/stat" "cpu0 1000 0 0 1000 0 0 0 0"
tis 0 $'500000 10000\n1000000 20'
cat >"$T/states.sh" <<'SH'
tis() { put "$cpu/cpu$1/cpufreq/stats/time_in_state" "$2"; }
S="$W/run-*/model-model.txt"
put "$R/proc/stat" "cpu0 1100 0 0 1000 0 0 0 0"; tis 0 $'500000 10300\n1000000 20'; seen "$S" "500000 10300"
tis 0 $'500000 0\n1000000 0'       # stats/reset
put "$R/proc/stat" "cpu0 1200 0 0 1000 0 0 0 0"; tis 0 $'500000 300\n1000000 100'; seen "$S" "500000 300"
put "$R/proc/stat" "cpu0 1300 0 0 1000 0 0 0 0"; tis 0 $'500000 600\n1000000 100'
SH
platform "{model: {type: model, interval_ms: 100}}" \
  $'topology: {clusters: [{name: little, cpus: "0-1"}]}\nenergy_model: {little: {500000: 100, 1000000: 500}}'
run model model
little="json_extract(classifiers,'\$.chan_name')='little'"
check "model: job ok ($(status model))" test "$(status model)" = "0:ok"
check "little energy 0.42 J, not 1.5 (got $(val model energy "$little"))" test "$(val model energy "$little")" = 0.42
check "a changed counter witness says time_in_state restarted" test "$(cnt model "witness where kind='counter' and subject='little time_in_state' and verdict='changed' and detail like '%rows went back to 0: stats/reset%the energy estimate''s frequency weights count it from the restart%'")" = 1

# 8. The model with the big cluster hotplugged off and back within the job, as case 4: its stats
# freed and recreated, cpu2's /proc/stat line missing from a sample. cpu2 is busy 300 ticks (3 s);
# big's residency over the readings is 150/600/1000 ticks at 0.5/1/2 GHz (200/600/1800 mW):
# 1251.43 mW, 3.75 J. Before: every row but 500 MHz ended below its start: all at 200 mW, 0.6 J.
rm -rf "$R"
put "$cpu/online" "0-3"
put "$R/proc/stat" $'cpu0 1000 0 0 1000 0 0 0 0\ncpu2 1000 0 0 1000 0 0 0 0'
tis 0 $'500000 100\n1000000 100'
tis 2 $'500000 100\n1000000 5000\n2000000 5000'
cat >"$T/states.sh" <<'SH'
tis() { put "$cpu/cpu$1/cpufreq/stats/time_in_state" "$2"; }
S="$W/run-*/model-model.txt"
put "$R/proc/stat" $'cpu0 1000 0 0 1000 0 0 0 0\ncpu2 1100 0 0 1000 0 0 0 0'
tis 2 $'500000 100\n1000000 5100\n2000000 5200'; seen "$S" "2000000 5200"
put "$cpu/online" "0-1"; rm -f "$cpu/cpu2/cpufreq/stats/time_in_state"
put "$R/proc/stat" "cpu0 1000 0 0 1001 0 0 0 0"; seen "$S" "cpu0 1000 0 0 1001 0 0 0 0"
tis 2 $'500000 150\n1000000 300\n2000000 400'; put "$cpu/online" "0-3"
put "$R/proc/stat" $'cpu0 1000 0 0 1002 0 0 0 0\ncpu2 1100 0 0 1000 0 0 0 0'; seen "$S" "2000000 400"
tis 2 $'500000 150\n1000000 500\n2000000 800'
put "$R/proc/stat" $'cpu0 1000 0 0 1003 0 0 0 0\ncpu2 1300 0 0 1000 0 0 0 0'
SH
platform "{model: {type: model, interval_ms: 100}}" \
  $'topology: {clusters: [{name: little, cpus: "0-1"}, {name: big, cpus: "2-3"}]}\nenergy_model: {little: {500000: 100, 1000000: 500}, big: {500000: 200, 1000000: 600, 2000000: 1800}}'
run model_replug model
big="json_extract(classifiers,'\$.chan_name')='big'"
check "model replug: job ok ($(status model_replug))" test "$(status model_replug)" = "0:ok"
check "big energy 3.75 J, not 0.6 (got $(val model_replug energy "$big"))" test "$(val model_replug energy "$big")" = 3.75
check "big's restart is a changed counter witness naming the offline cluster" test "$(cnt model_replug "witness where kind='counter' and subject='big time_in_state' and verdict='changed' and detail like '%the cluster was offline between them%'")" = 1
check "cpu2 missing from a sample: a changed hotplug witness" test "$(cnt model_replug "witness where kind='hotplug' and subject='cpu2 /proc/stat' and verdict='changed' and detail like '%its busy time in the energy estimate is of the intervals it was online%'")" = 1
check "the online list sampled: a hotplug witness though both ends say 0-3" test "$(cnt model_replug "witness where kind='hotplug' and subject='model' and expected='0-3' and observed='0-1'")" = 1

[ "$fail" -eq 0 ] || cat "$T"/*.err >&2
finish
