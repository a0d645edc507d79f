#!/usr/bin/env bash
# The cpufreq instrument with a cluster hotplugged out (WA3 PR #148, sbc-bench #138): the
# kernel keeps an inactive policy's directory but answers every read with EBUSY
# (drivers/cpufreq/cpufreq.c show()). A fake /sys (the instrument's root:) whose big cluster
# is played offline by cpufreq_sim --offline: every open there fails with a real EBUSY from
# the VFS ("cat: ...: Device or resource busy"). The big cluster is skipped with a refused
# witness and an event; the little cluster's metrics are kept (its time_in_state advances
# while the benchmark runs: the job runs `perf` through a wrapper first on PATH). With
# /sys/devices/system/cpu/online the offline cluster is known without reading it, and a
# cluster whose first CPU is out but another is in (WA3 #1217) is read through that one.
. "$(dirname "$0")/lib.sh"
KVB=$(cd "$(dirname "$KVB")" && pwd)/$(basename "$KVB")
SIM=${KVB_BUILD_DIR:-build}/tests/sim/cpufreq_sim
SIM=$(cd "$(dirname "$SIM")" && pwd)/$(basename "$SIM")
R=$T/fake
cpu=$R/sys/devices/system/cpu
mkdir -p "$T/bin" "$T/p"
tis() { mkdir -p "$cpu/cpu$1/cpufreq/stats"; printf '%s' "$2" >"$cpu/cpu$1/cpufreq/stats/time_in_state"; }
# little: 100 + 200 ticks more at 500 / 1000 MHz during the job (mean 833.33 MHz); cpu3 (big): 50 at 2 GHz
cat >"$T/bin/perf" <<EOF
#!/bin/sh
printf '500000 200\n1000000 400\n' >"$cpu/cpu0/cpufreq/stats/time_in_state"
[ -d "$cpu/cpu3/cpufreq" ] && printf '1000000 5\n2000000 57\n' >"$cpu/cpu3/cpufreq/stats/time_in_state"
exec $(command -v perf) "\$@"
EOF
chmod +x "$T/bin/perf"
cat >"$T/p/platform.yaml" <<YAML
name: two-clusters
connection: {type: local}
topology: {clusters: [{name: little, cpus: "0-1"}, {name: big, cpus: "2-3"}]}
sysfs_root: "$R"
instruments: {cpufreq: {type: cpufreq}}
YAML
printf 'config: {instruments: [cpufreq]}\nworkloads: [{name: sched_pipe, params: {loops: 1000}}]\n' >"$T/a.yaml"
run() {
  PATH="$T/bin:$PATH" "$KVB" run "$T/a.yaml" -p "$T/p/platform.yaml" -d "$T/$1.db" --rounds 1 --no-diff >/dev/null 2>"$T/$1.err"
  echo $? >"$T/$1.rc"
}
mean() { q "$1" "select round(value, 2) from results where metric='freq_mean' and json_extract(classifiers, '\$.cluster')='$2'"; }

# 1. EBUSY from the kernel's inactive policy, no online file to say so first
rm -rf "$R"; tis 0 $'500000 100\n1000000 200\n'; tis 2 $'1000000 5\n2000000 7\n'
mkfifo "$T/ready"
"$SIM" "$T/ready" --offline "$cpu/cpu2/cpufreq/stats" & sim=$!
read -r state <"$T/ready"
if [ "$state" != ready ]; then
  echo "SKIP EBUSY: cpufreq_sim cannot return EBUSY here ($state: FAN_DENY_ERRNO needs Linux 6.14)" >&2
  wait $sim
else
  check "the offline policy answers EBUSY" sh -c "cat '$cpu/cpu2/cpufreq/stats/time_in_state' 2>&1 | grep -q 'Device or resource busy'"
  run busy
  kill $sim; wait $sim 2>/dev/null
  db=$T/busy.db
  check "job ok, not instrument-failed (rc $(cat "$T/busy.rc"))" test "$(cat "$T/busy.rc"):$(q "$db" "select status from job")" = "0:ok"
  check "little's freq_mean kept: 833.33 MHz" test "$(mean "$db" little)" = 833.33
  check "no metric for big" test "$(q "$db" "select count(*) from results where json_extract(classifiers, '\$.cluster')='big'")" = 0
  check "a refused witness names the cluster and EBUSY" test "$(q "$db" "select count(*) from witness where kind='cpufreq' and subject='big' and verdict='refused' and detail like '%(CPUs 2-3) is offline at the start of the job%Device or resource busy%'")" = 1
  check "an event of the job" test "$(q "$db" "select count(*) from event where job_id is not null and message like '%cluster ''big''%offline%'")" = 1
fi

# 2. /sys/devices/system/cpu/online says big is out: skipped without reading it
rm -rf "$R"; tis 0 $'500000 100\n1000000 200\n'; mkdir -p "$cpu/cpu2/cpufreq/stats/time_in_state"  # unreadable
echo 0-1 >"$cpu/online"
run online
db=$T/online.db
check "online 0-1: job ok (rc $(cat "$T/online.rc"))" test "$(cat "$T/online.rc"):$(q "$db" "select status from job")" = "0:ok"
check "little kept" test "$(mean "$db" little)" = 833.33
check "big refused by the online list" test "$(q "$db" "select count(*) from witness where subject='big' and verdict='refused' and detail like '%/sys/devices/system/cpu/online is 0-1%'")" = 1

# 3. WA3 #1217: big's first CPU is out, CPU 3 is in: the policy is read through CPU 3
rm -rf "$R"; tis 0 $'500000 100\n1000000 200\n'; tis 3 $'1000000 5\n2000000 7\n'   # no cpu2/cpufreq
echo 0-1,3 >"$cpu/online"
run first_out
db=$T/first_out.db
check "first CPU out: job ok (rc $(cat "$T/first_out.rc"))" test "$(cat "$T/first_out.rc"):$(q "$db" "select status from job")" = "0:ok"
check "big's freq_mean from CPU 3: 2000 MHz" test "$(mean "$db" big)" = 2000
check "no witness refused" test "$(q "$db" "select count(*) from witness where verdict<>'ok' and kind<>'host'")" = 0
[ "$fail" -eq 0 ] || cat "$T"/*.err >&2
finish
