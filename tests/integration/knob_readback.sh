#!/usr/bin/env bash
# Knobs are read back (docs/design.md#witnesses, engine/readback.h), against kernels that really clamp:
#  1. this machine's kernel, in a private network namespace (nothing host-wide is written):
#     net.ipv4.icmp_ratelimit is in ms and kept in jiffies, so 1 reads back 4 at HZ=250
#     (proc_dointvec_ms_jiffies); the job fails naming asked and found, or with
#     `readback: record` runs with the value found as its classifier;
#  2. this machine's kernel, a cgroup v1 cpu group the test creates: cpu.shares is clamped
#     to [2, 262144] (kernel/sched/core.c), so 1 reads back 2;
#  3. WA3 #897 on a cpufreq tree in a mount namespace whose "kernel" is cpufreq_sim
#     (tests/sim: the cpufreq core's limits, applied before any open of scaling_max_freq goes
#     on): cpufreq.big.max_freq 2800000 above cpuinfo_max_freq 2362000 reads 2362000; a
#     governor a "daemon" rewrites while the benchmark runs is a `changed` witness, an event of
#     the job and a footnote in diff; a min written before a lower max is read again once every
#     knob is written (WA3 #1200's sysfile_values: the kernel lowers the min); a board tuned
#     before the run keeps its schedutil
#     rate_limit_us although a job switched governors (the kernel frees a governor's tunables
#     when it stops and starts the next one with defaults: LISA PR #411), also after a
#     userspace frequency job.
. "$(dirname "$0")/lib.sh"
KVB=$(cd "$(dirname "$KVB")" && pwd)/$(basename "$KVB")
SIM=${KVB_BUILD_DIR:-build}/tests/sim/cpufreq_sim
SIM=$(cd "$(dirname "$SIM")" && pwd)/$(basename "$SIM")
if ! unshare -m -n true 2>/dev/null; then
  echo "SKIP: no mount/network namespaces here (unshare -m -n)"; echo "0 passed, 0 failed"; exit 0
fi
wl='workloads: [{name: sched_pipe, params: {loops: 1000}}]'

# --- 1. a ms sysctl rounded to jiffies, in a network namespace of our own
printf '%s\nconfig: {runtime_params: {sysctl: {net.ipv4.icmp_ratelimit: 1}}}\n' "$wl" >"$T/icmp.yaml"
printf '%s\nconfig: {runtime_params: {sysctl: {net.ipv4.icmp_ratelimit: 1, net.ipv4.icmp_echo_ignore_all: 0}, readback: {sysctl.net.ipv4.icmp_ratelimit: record}}}\n' \
  "$wl" >"$T/icmp-rec.yaml"
unshare -n bash -c '
  T=$1 KVB=$2 f=/proc/sys/net/ipv4/icmp_ratelimit
  echo 1 >$f; cat $f >"$T/icmp.kernel"; echo 1000 >$f      # what this kernel keeps of 1 ms
  "$KVB" run "$T/icmp.yaml" -p local -d "$T/icmp.db" --rounds 1 --no-diff >/dev/null 2>"$T/icmp.err"; echo $? >"$T/icmp.rc"
  cat $f >"$T/icmp.after"
  "$KVB" run "$T/icmp-rec.yaml" -p local -d "$T/icmp-rec.db" --rounds 1 --no-diff >/dev/null 2>"$T/icmp-rec.err"; echo $? >"$T/icmp-rec.rc"
  cat $f >"$T/icmp-rec.after"
' ns "$T" "$KVB"
k=$(cat "$T/icmp.kernel")
if [ "$k" = 1 ]; then
  echo "SKIP icmp_ratelimit: this kernel keeps 1 ms as 1 (HZ=1000)" >&2
else
  db=$T/icmp.db
  check "icmp_ratelimit 1 (kernel keeps $k): the run fails (rc $(cat "$T/icmp.rc"))" test "$(cat "$T/icmp.rc")" = 1
  check "the job's error names asked and found" sh -c "$(declare -f q); KVB='$KVB' q '$db' 'select error from job' | grep -qF 'runtime knobs: sysctl.net.ipv4.icmp_ratelimit: asked 1, kernel has $k (/proc/sys/net/ipv4/icmp_ratelimit)'"
  check "a failed witness: expected 1, observed $k" test "$(q "$db" "select kind||'|'||expected||'|'||observed||'|'||verdict from witness where kind<>'host'")" = "knob|1|$k|failed"
  check "an event of the job says so" test "$(q "$db" "select count(*) from event where job_id is not null and message like '%asked 1, kernel has $k%'")" -ge 1
  check "the old value is back" test "$(cat "$T/icmp.after")" = 1000
  db=$T/icmp-rec.db
  check "readback: record: the run is ok (rc $(cat "$T/icmp-rec.rc"))" test "$(cat "$T/icmp-rec.rc")" = 0
  check "the classifier is the value found" test "$(q "$db" "select distinct json_extract(classifiers, '\$.\"sysctl.net.ipv4.icmp_ratelimit\"') from results")" = "$k"
  check "a recorded witness, an ok one for the knob that agreed" test \
    "$(q "$db" "select group_concat(verdict, '|') from (select verdict from witness where kind<>'host' order by subject)")" = "ok|recorded"
  check "a recorded event of the job" test "$(q "$db" "select count(*) from event where job_id is not null and message like '%recorded%readback: record: the job''s classifier sysctl.net.ipv4.icmp_ratelimit is $k%'")" = 1
  check "put back after the lenient run too" test "$(cat "$T/icmp-rec.after")" = 1000
fi

# --- 2. a cgroup v1 file the kernel clamps (cpu.shares >= 2); the group is the test's own
g=kvb-readback-$$
unshare -m bash -c '
  T=$1 KVB=$2 g=$3
  mount --make-rprivate /
  mkdir -p "$T/cpuctl"
  mount -t cgroup -o cpu none "$T/cpuctl" 2>/dev/null || { echo NOV1 >"$T/nov1"; exit 0; }
  mkdir "$T/cpuctl/$g" || exit 0
  printf "%s\nconfig: {runtime_params: {sysfs: {%s: 1}}}\n" "workloads: [{name: sched_pipe, params: {loops: 1000}}]" "$T/cpuctl/$g/cpu.shares" >"$T/shares.yaml"
  "$KVB" run "$T/shares.yaml" -p local -d "$T/shares.db" --rounds 1 --no-diff >/dev/null 2>"$T/shares.err"; echo $? >"$T/shares.rc"
  cat "$T/cpuctl/$g/cpu.shares" >"$T/shares.after"
  rmdir "$T/cpuctl/$g"
' ns "$T" "$KVB" "$g"
if [ -e "$T/nov1" ]; then
  echo "SKIP cpu.shares: no cgroup v1 cpu controller here" >&2
else
  db=$T/shares.db
  check "cpu.shares 1 (clamped to 2): the run fails (rc $(cat "$T/shares.rc"))" test "$(cat "$T/shares.rc")" = 1
  check "the error names asked and found" sh -c "$(declare -f q); KVB='$KVB' q '$db' 'select error from job' | grep -qF 'cpu.shares: asked 1, kernel has 2'"
  check "its old value is back" test "$(cat "$T/shares.after")" = 1024
fi

# --- 3. cpufreq: WA3 #897 and a governor rewritten during the job
mkdir -p "$T/plat" "$T/bin"
cat >"$T/plat/platform.yaml" <<'YAML'
name: two-clusters
connection: {type: local}
topology: {clusters: [{name: little, cpus: "0-1"}, {name: big, cpus: "2-3"}]}
YAML
printf '%s\nvariants: [{name: fast, cpufreq: {big: {max_freq: 2800000}}}]\n' "$wl" >"$T/clamp.yaml"
printf '%s\nconfig: {runtime_params: {readback: {cpufreq: record}}}\nvariants: [{name: fast, governor: performance, cpufreq: {big: {max_freq: 2800000}}}]\n' \
  "$wl" >"$T/clamp-rec.yaml"
printf '%s\nvariants: [{name: perf, governor: performance}]\n' "$wl" >"$T/daemon.yaml"
printf '%s\nvariants: [{name: fixed, cpufreq: {little: {governor: userspace, frequency: 1000000}}}]\n' "$wl" >"$T/speed.yaml"
# WA3 #1200's sysfile_values, min above the max written after it: the kernel lowers the min to the max
p0=/sys/devices/system/cpu/cpufreq/policy0
printf '%s\nconfig: {runtime_params: {sysfs: {%s/scaling_min_freq: 1800000, %s/scaling_max_freq: 1000000}}}\n' "$wl" $p0 $p0 >"$T/minmax.yaml"
# a daemon that rewrites policy0's governor while the benchmark runs (it runs perf by name)
cat >"$T/bin/perf" <<EOF
#!/bin/sh
printf powersave >/sys/devices/system/cpu/cpufreq/policy0/scaling_governor
exec $(command -v perf) "\$@"
EOF
chmod +x "$T/bin/perf"
unshare -m bash -c '
  set -e
  T=$1 KVB=$2 SIM=$3
  mount --make-rprivate /
  c=/sys/devices/system/cpu/cpufreq
  mount -t tmpfs none "$c"
  for p in 0 2; do
    mkdir -p "$c/policy$p/schedutil"
    echo schedutil >"$c/policy$p/scaling_governor"
    echo "<unsupported>" >"$c/policy$p/scaling_setspeed"
    echo 1000 >"$c/policy$p/schedutil/rate_limit_us"   # tuned before the run (the default is 10000)
    echo 500000 >"$c/policy$p/cpuinfo_min_freq"; echo 500000 >"$c/policy$p/scaling_min_freq"
  done
  echo "0 1" >"$c/policy0/affected_cpus"; echo "0 1" >"$c/policy0/related_cpus"
  echo "2 3" >"$c/policy2/affected_cpus"; echo "2 3" >"$c/policy2/related_cpus"
  echo 1844000 >"$c/policy0/cpuinfo_max_freq"; echo 1844000 >"$c/policy0/scaling_max_freq"
  echo 2362000 >"$c/policy2/cpuinfo_max_freq"; echo 2362000 >"$c/policy2/scaling_max_freq"
  mkfifo "$T/ready"
  "$SIM" "$T/ready" --tunable schedutil:rate_limit_us=10000 "$c/policy0" "$c/policy2" & sim=$!
  read -r r <"$T/ready"
  echo "$r" >"$T/sim.state"
  set +e
  "$KVB" run "$T/clamp.yaml" -p "$T/plat/platform.yaml" -d "$T/clamp.db" --rounds 1 --no-diff >/dev/null 2>"$T/clamp.err"; echo $? >"$T/clamp.rc"
  cat "$c/policy2/scaling_max_freq" >"$T/clamp.after"
  "$KVB" run "$T/clamp-rec.yaml" -p "$T/plat/platform.yaml" -d "$T/clamp-rec.db" --rounds 1 --no-diff >/dev/null 2>"$T/clamp-rec.err"; echo $? >"$T/clamp-rec.rc"
  "$KVB" diff -d "$T/clamp-rec.db" >"$T/clamp-rec.diff" 2>&1
  PATH="$T/bin:$PATH" "$KVB" run "$T/daemon.yaml" -p "$T/plat/platform.yaml" -d "$T/daemon.db" --rounds 1 --no-diff >/dev/null 2>"$T/daemon.err"; echo $? >"$T/daemon.rc"
  "$KVB" run "$T/minmax.yaml" -p "$T/plat/platform.yaml" -d "$T/minmax.db" --rounds 1 --no-diff >/dev/null 2>"$T/minmax.err"; echo $? >"$T/minmax.rc"
  echo $(cat "$c/policy0/scaling_min_freq") $(cat "$c/policy0/scaling_max_freq") >"$T/minmax.after"
  cat "$c/policy0/scaling_governor" >"$T/daemon.after"
  echo $(cat "$c/policy0/schedutil/rate_limit_us") $(cat "$c/policy2/schedutil/rate_limit_us") >"$T/daemon.tunables" 2>&1
  "$KVB" diff -d "$T/daemon.db" >"$T/daemon.diff" 2>&1
  "$KVB" run "$T/speed.yaml" -p "$T/plat/platform.yaml" -d "$T/speed.db" --rounds 1 --no-diff >/dev/null 2>"$T/speed.err"; echo $? >"$T/speed.rc"
  echo $(cat "$c/policy0/scaling_governor") $(cat "$c/policy0/scaling_setspeed") $(cat "$c/policy0/schedutil/rate_limit_us") >"$T/speed.after" 2>&1
  kill $sim
' ns "$T" "$KVB" "$SIM"
if [ "$(cat "$T/sim.state" 2>/dev/null)" != ready ]; then
  echo "SKIP cpufreq: cpufreq_sim could not start (fanotify permission events need root and CONFIG_FANOTIFY_ACCESS_PERMISSIONS)" >&2
else
  db=$T/clamp.db
  check "max_freq above cpuinfo_max_freq: the run fails (rc $(cat "$T/clamp.rc"))" test "$(cat "$T/clamp.rc")" = 1
  check "WA3 #897 as kvbench says it: asked 2800000, kernel has 2362000" sh -c "$(declare -f q); KVB='$KVB' q '$db' 'select error from job' | grep -qF 'cpufreq.big.max_freq: asked 2800000, kernel has 2362000 (/sys/devices/system/cpu/cpufreq/policy2/scaling_max_freq)'"
  check "a failed witness of the job" test "$(q "$db" "select count(*) from witness where job_id is not null and verdict='failed' and subject='/sys/devices/system/cpu/cpufreq/policy2/scaling_max_freq' and expected='2800000' and observed='2362000'")" = 1
  check "not retried: one attempt" test "$(q "$db" "select attempts from job")" = 1
  check "the policy's limit is as before" test "$(cat "$T/clamp.after")" = 2362000
  check "nothing left to restore" test "$(q "$db" "select count(*) from knob_saved")" = 0
  db=$T/clamp-rec.db
  check "readback: {cpufreq: record}: the run is ok (rc $(cat "$T/clamp-rec.rc"))" test "$(cat "$T/clamp-rec.rc")" = 0
  check "the job ran under max_freq 2362000, its classifier" test "$(q "$db" "select distinct json_extract(classifiers, '\$.\"cpufreq.big.max_freq\"') from results")" = 2362000
  check "ok witnesses for the governor on both policies, one recorded" test \
    "$(q "$db" "select group_concat(verdict || ':' || subject, ' ') from (select * from witness where kind<>'host' order by verdict, subject)")" = \
    "ok:/sys/devices/system/cpu/cpufreq/policy0/scaling_governor ok:/sys/devices/system/cpu/cpufreq/policy2/scaling_governor recorded:/sys/devices/system/cpu/cpufreq/policy2/scaling_max_freq"
  check "diff footnotes the cell with the value found" grep -qF "cpufreq.big.max_freq: asked 2800000, kernel has 2362000" "$T/clamp-rec.diff"
  db=$T/daemon.db
  check "a governor rewritten during the job: the job is kept (rc $(cat "$T/daemon.rc"))" test "$(cat "$T/daemon.rc")" = 0
  check "a changed witness: performance before, powersave after" test \
    "$(q "$db" "select expected||'>'||observed from witness where verdict='changed' and subject='/sys/devices/system/cpu/cpufreq/policy0/scaling_governor'")" = "performance>powersave"
  check "an event of the job" test "$(q "$db" "select count(*) from event where job_id is not null and message like '%governor changed during the job: performance before, powersave after%'")" = 1
  check "diff footnotes it" grep -qF "governor changed during the job" "$T/daemon.diff"
  check "the governor put back" test "$(cat "$T/daemon.after")" = schedutil
  check "schedutil's rate_limit_us as tuned before the run on both policies (not the default 10000)" test \
    "$(cat "$T/daemon.tunables")" = "1000 1000"
  db=$T/minmax.db
  check "min above a max written after it: the run fails (rc $(cat "$T/minmax.rc"))" test "$(cat "$T/minmax.rc")" = 1
  check "the min read right after its write agreed; once the max was written it did not" test \
    "$(q "$db" "select group_concat(verdict || ':' || expected || '>' || observed, ' ') from (select * from witness where subject like '%scaling_min_freq' order by id)")" = "ok:1800000>1800000 failed:1800000>1000000"
  check "the error says when" sh -c "$(declare -f q); KVB='$KVB' q '$db' 'select error from job' | grep -qF 'asked 1800000, kernel has 1000000 once every knob is written'"
  check "both limits as before the job" test "$(cat "$T/minmax.after")" = "500000 1844000"
  db=$T/speed.db
  check "userspace at 1000000 kHz: the run is ok (rc $(cat "$T/speed.rc"))" test "$(cat "$T/speed.rc")" = 0
  check "scaling_setspeed read back as written" test "$(q "$db" "select verdict||':'||observed from witness where subject like '%policy0/scaling_setspeed'")" = "ok:1000000"
  check "after it: schedutil, <unsupported>, rate_limit_us 1000" test "$(cat "$T/speed.after")" = "schedutil <unsupported> 1000"
  check "no warning" test "$(q "$db" "select count(*) from event where level <> 'info'")" = 0
fi
if ! ls -d /sys/class/thermal/thermal_zone* >/dev/null 2>&1 && [ -e "$T/icmp-rec.db" ]; then
  check "no thermal zones here: no thermal witness" test "$(q "$T/icmp-rec.db" "select count(*) from witness where kind='thermal'")" = 0
fi
[ "$fail" -eq 0 ] || cat "$T"/*.err >&2
finish
