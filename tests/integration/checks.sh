# Checks that check (issue 26 item 8), on this host (platform `local` kinds):
#  - `platform check` probes the instruments: a meter command that does not exist (a path, or a
#    name not in $PATH) and a cpufreq root that is missing are problems (exit 3), not "valid";
#    a good meter and util are listed as found and the platform is valid;
#  - `agenda check -p` checks `cpus` against the board's online CPUs (every job would fail);
#  - a short job on a meter that has written nothing fails with an error naming ready_timeout_ms.
. "$(dirname "$0")/lib.sh"
SIM=${KVB_BUILD_DIR:-build}/tests/sim/probe_sim
mkdir -p "$T/bad" "$T/good" "$T/slow"
cat >"$T/bad/platform.yaml" <<YAML
name: bad
connection: {type: local}
workdir: $T/work
sysfs_root: $T/no-such-root
instruments:
  meter: {type: csv-command, command: [/nonexistent/bin/meter, --csv]}
  meter2: {type: monsoon, command: [no-such-meter-kvbench, -r], rate_hz: 500}
  freq: {type: cpufreq}
YAML
"$KVB" platform check "$T/bad" >"$T/o1" 2>&1; rc=$?
check "platform check with a missing meter and cpufreq root exits 3 (rc $rc)" test "$rc" -eq 3
check "it does not say valid" sh -c "! grep -q ': valid' '$T/o1'"
check "a meter command path that is not there is a problem" grep -q "^problem: $T/bad/platform.yaml:6:3: instrument 'meter': meter command '/nonexistent/bin/meter' is not an executable file on this host" "$T/o1"
check "a meter command name not in PATH is a problem" grep -q "^problem: $T/bad/platform.yaml:7:3: instrument 'meter2': meter command 'no-such-meter-kvbench' is not found in \$PATH on this host" "$T/o1"
check "a missing cpufreq root is a problem naming the file and the root" grep -q "^problem: $T/bad/platform.yaml:8:3: instrument 'freq': $T/no-such-root/sys/devices/system/cpu/cpu0/cpufreq/stats/time_in_state is not a readable file on the board (its root '$T/no-such-root' is not a directory there)" "$T/o1"
check "the problems are counted" grep -q "platform.yaml: 3 problems" "$T/o1"

# the field's case (NixOS #56102, munin #1173, OpenWrt packages #19222: kernels without
# CONFIG_CPU_FREQ_STAT, or intel_pstate, have no cpufreq/stats/time_in_state): on this host's
# kernel when it has none, the cpufreq instrument is a problem before any job, not a job failure
if [ ! -e /sys/devices/system/cpu/cpu0/cpufreq/stats/time_in_state ]; then
  mkdir -p "$T/nofreq"
  printf 'name: nofreq\nconnection: {type: local}\ninstruments:\n  freq: {type: cpufreq}\n' >"$T/nofreq/platform.yaml"
  "$KVB" platform check "$T/nofreq" >"$T/o0" 2>&1; rc=$?
  check "this host has no time_in_state: platform check says so (rc $rc)" sh -c "test $rc -eq 3 && grep -q \"^problem: .*platform.yaml:4:3: instrument 'freq': /sys/devices/system/cpu/cpu0/cpufreq/stats/time_in_state is not a readable file on the board\" '$T/o0'"
fi

# LISA PR #157 ("run-time check for required dependencies (i.e. iio-capture)"): an ACME meter
# without iio-capture on this host is a problem before any job
if ! command -v iio-capture >/dev/null; then
  mkdir -p "$T/acme"
  printf 'name: acme\nconnection: {type: local}\ninstruments:\n  acme: {type: acme, host: baylibre-acme.local, channels: {total: "iio:device0"}}\n' >"$T/acme/platform.yaml"
  "$KVB" platform check "$T/acme" >"$T/oa" 2>&1; rc=$?
  check "no iio-capture on this host: platform check says so (rc $rc)" sh -c "test $rc -eq 3 && grep -q \"^problem: .*platform.yaml:4:3: instrument 'acme': meter command 'iio-capture' is not found in \\\$PATH on this host\" '$T/oa'"
fi

cat >"$T/good/platform.yaml" <<YAML
name: good
connection: {type: local}
workdir: $T/work
instruments:
  meter: {type: csv-command, command: ["$SIM", csv, --channels, "1"]}
  util: {type: util}
YAML
"$KVB" platform check "$T/good" >"$T/o2" 2>&1; rc=$?
check "platform check of a good meter and util exits 0 (rc $rc)" test "$rc" -eq 0
check "the meter command is found" grep -q "instrument 'meter': meter command .*probe_sim: " "$T/o2"
check "util's /proc/stat is readable on the board" grep -q "instrument 'util': /proc/stat: readable on the board" "$T/o2"
check "and the platform is valid" grep -q "platform.yaml: valid" "$T/o2"

# issue 41: a topology of 6 CPUs on a board of 2 (its present CPUs, read under sysfs_root as
# for a simulated board) is a problem at the cluster's line, counted; the same topology on a
# board of 8 is valid
for n in 2 8; do
  mkdir -p "$T/cpus$n/root/sys/devices/system/cpu"
  echo "0-$((n - 1))" >"$T/cpus$n/root/sys/devices/system/cpu/present"
  printf 'name: cpus%s\nconnection: {type: local}\nsysfs_root: %s\ntopology:\n  clusters:\n    - {name: all, cpus: "0-5"}\n' \
    "$n" "$T/cpus$n/root" >"$T/cpus$n/platform.yaml"
  "$KVB" platform check "$T/cpus$n" >"$T/oc$n" 2>&1; echo $? >"$T/rc$n"
done
check "a 0-5 topology on a 2-CPU board: exit 3 ($(cat "$T/rc2"))" test "$(cat "$T/rc2")" -eq 3
check "  the problem names the cluster's line and the board's CPUs" grep -qxF "problem: $T/cpus2/platform.yaml:6:19: topology.clusters[0].cpus: CPUs 2-5 are not on the board (the board's $T/cpus2/root/sys/devices/system/cpu/present: CPUs 0-1)" "$T/oc2"
check "  and is counted" grep -qxF "$T/cpus2/platform.yaml: 1 problem" "$T/oc2"
check "the same topology on an 8-CPU board is valid ($(cat "$T/rc8"))" sh -c "test $(cat "$T/rc8") -eq 0 && grep -q 'platform.yaml: valid' '$T/oc8'"

# cpus against the board's online CPUs: CPU 1023 is on no host this runs on. "0,1023" replays
# util-linux #1701 ("taskset -c 0-2 true" works on a 2-CPU machine: sched_setaffinity keeps the
# online CPUs of the mask and drops the rest silently), the case the runtime check fails per job
printf 'workloads:\n  - name: hackbench\n    params: {groups: 1, loops: 10}\n    runtime_params: {cpus: "0,1023"}\n' >"$T/c.yaml"
"$KVB" agenda check "$T/c.yaml" -p "$T/good" >/dev/null 2>"$T/e3"; rc=$?
check "agenda check -p: a cpus knob naming an offline CPU exits 3 (rc $rc)" test "$rc" -eq 3
check "it names the job, the CPU and the online ones" grep -q "preflight: job 'hackbench': runtime knob cpus '0,1023': CPU 1023 is not online on the board (online: $(cat /sys/devices/system/cpu/online))" "$T/e3"
"$KVB" run "$T/c.yaml" -p "$T/good" -d "$T/c.db" >/dev/null 2>&1; rc=$?
check "run refuses it before anything runs (rc $rc)" sh -c "test $rc -eq 3 && test \"\$(sqlite3 '$T/c.db' 'select count(*) from job' 2>/dev/null || echo 0)\" = 0"
printf 'workloads:\n  - name: hackbench\n    params: {groups: 1, loops: 10}\n    runtime_params: {cpus: "0"}\n' >"$T/c0.yaml"
"$KVB" agenda check "$T/c0.yaml" -p "$T/good" >/dev/null 2>"$T/e4"; rc=$?
check "cpus 0 passes (rc $rc)" test "$rc" -eq 0

# a meter that has written nothing when a short job ends: the error says ready_timeout_ms
cat >"$T/slow/platform.yaml" <<YAML
name: slow
connection: {type: local}
workdir: $T/work
instruments:
  meter: {type: csv-command, command: [sleep, "600"]}
YAML
printf 'config: {max_retries: 0}\nworkloads:\n  - name: hackbench\n    params: {groups: 1, fds: 2, loops: 5}\n' >"$T/s.yaml"
"$KVB" run "$T/s.yaml" -p "$T/slow" -d "$T/s.db" >/dev/null 2>&1; rc=$?
check "short job on a silent meter: run exits 1 (rc $rc)" test "$rc" -eq 1
check "the job's error names no samples and ready_timeout_ms" test "$(q "$T/s.db" "select count(*) from job where status = 'instrument-failed' and error like '%no samples (empty file)%' and error like '%set the instrument''s ready_timeout_ms%'")" = "1"
finish
