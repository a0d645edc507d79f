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
platform "{hw: {type: juno-hwmon}}"
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
platform "{cpu: {type: rapl, max_power_w: 0.1}}"
run rapl cpu
check "rapl: job ok ($(status rapl))" test "$(status rapl)" = "0:ok"
check "package-0 energy 0.2 J, not refused (got '$(val rapl energy 1)')" test "$(val rapl energy 1)" = 0.2
check "its witness: wrapped once" test "$(cnt rapl "witness where subject='cpu channel package-0' and verdict='ok' and detail like 'wrapped once at max_energy_range_uj: counted 200000 uJ'")" = 1

[ "$fail" -eq 0 ] || cat "$T"/*.err >&2
finish
