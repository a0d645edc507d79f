#!/usr/bin/env bash
# scripts/sim-board's kept boards (docs/boards.md), as a user drives them:
#  - hikey960-sim: started once, found by name by `kvbench run -p hikey960-sim` with an agenda of
#    our own; the run is interrupted as Ctrl-C does (SIGINT to its process group), the board is
#    stopped and started again (same ports, same platform file), and the printed
#    `kvbench run --resume` advice finishes the run; the util and cpufreq tables have a row per CPU
#    and per cluster whose values follow the load board_sim saw (the two-task sched_pipe runs on
#    the big cluster: every big CPU busier than every LITTLE one, the idle LITTLE cluster at its
#    lowest OPP, the big one above it), and scaling_cur_freq rises under a busy loop and falls
#    back after it;
#  - juno-sim: flashed with ssh-copy over a real sshd on loopback, each boot running its own
#    kernel, energy per hwmon channel (the loaded big cluster above the idle LITTLE one).
# No timing asserts: every wait is a condition polled up to a generous deadline.
. "$(dirname "$0")/lib.sh"
quiet_host
export KVB_BUILD_DIR=$(realpath "${KVB_BUILD_DIR:-build}")
export KVB_SIM_DIR=$T/sim XDG_CONFIG_HOME=$T/config
unset ANDROID_SERIAL ADB_SERVER_SOCKET
SB=$SRC/scripts/sim-board
trap '"$SB" stop all >/dev/null 2>&1; adb -P "$ANDROID_ADB_SERVER_PORT" kill-server >/dev/null 2>&1; rm -rf "$T"' EXIT
# until SECONDS CMD...: polls CMD every 0.2 s; false after SECONDS (a deadline, not a measurement)
until_ok() { local n=$(($1 * 5)); shift; while ((n-- > 0)); do "$@" && return 0; sleep 0.2; done; return 1; }
sq() { sqlite3 -cmd ".timeout 5000" "$1" "$2" 2>/dev/null; }

# ---- hikey960-sim ------------------------------------------------------------------------------
"$SB" start hikey960 >"$T/start.out" 2>"$T/start.err"; rc=$?
check "sim-board start hikey960 exits 0 (rc $rc)" test "$rc" -eq 0
[ "$rc" -eq 0 ] || { cat "$T/start.err" >&2; finish; exit 1; }
check "start shows its progress, step by step" sh -c "grep -q 'adbd_sim (the phone' '$T/start.err' && grep -q 'waiting for its sysfs  ok' '$T/start.err'"
check "status: running" sh -c "'$SB' status hikey960 | grep -q 'hikey960-sim: running'"
check "the platform is found by name" "$KVB" platform check hikey960-sim
# board_sim's files against real ones (tests/fixtures/field/sim-board/README)
F=$SRC/tests/fixtures/field/sim-board
R=$KVB_SIM_DIR/hikey960/root
check "proc/stat: the lines of an 8-CPU kernel's, in its order" \
  test "$(awk '{print $1}' "$R/proc/stat" | grep -v '^softirq$')" = "$(awk '{print $1}' "$F/proc-stat-8cpu")"
nf() { awk -v k="$2" '$1 == k { print NF }' "$1"; }
check "proc/stat: a current kernel's 10 fields per CPU line" sh -c "test $(nf "$R/proc/stat" cpu0) -eq $(nf "$F/proc-stat-fields" cpu0)"
check "proc/stat: the aggregate line starts 'cpu  ' (two spaces)" grep -q '^cpu  [0-9]' "$R/proc/stat"
tis=$R/sys/devices/system/cpu/cpu4/cpufreq/stats/time_in_state
fr() { ! grep -vqE '^[0-9]+ [0-9]+$' "$1" && sort -n -c "$1"; } # "FREQ_KHZ TIME" lines, ascending
check "time_in_state: 'FREQ_KHZ TIME' lines, ascending, as a real policy's (and the fixture passes the same check)" \
  sh -c "$(declare -f fr); fr '$tis' && fr '$F/time_in_state' && test \$(wc -l <'$tis') -eq 5"
plat=$XDG_CONFIG_HOME/kvbench/platforms/hikey960-sim/platform.yaml
sha_before=$(sha256sum <"$plat")
K=$KVB_SIM_DIR/hikey960/kernels
cat >"$T/mine.yaml" <<'YAML'
# a user's own agenda: two tasks passing a token (sched_pipe), 3 iterations
config: {iterations: 3}
workloads:
  - name: sched_pipe
    params: {loops: 20000}
YAML
db=$T/h.db
set -m # the run gets its own process group, as a terminal's foreground job has
"$KVB" run "$T/mine.yaml" -p hikey960-sim -d "$db" -V "a=$K/baseline-sim.gz,dtb=$K/board.dtb,initrd=$K/ramdisk" \
  -V "b=$K/pelt4-sim.gz,dtb=$K/board.dtb,initrd=$K/ramdisk" >"$T/run1.out" 2>"$T/run1.err" &
pid=$!
set +m
first_ok() { [ "$(sq "$db" "select count(*) from job where status = 'ok'")" -ge 1 ] 2>/dev/null; }
until_ok 900 first_ok
check "the run stores a first job" first_ok
kill -INT -- "-$pid" 2>/dev/null
wait "$pid"; rc=$?
check "Ctrl-C stops the run (rc $rc)" test "$rc" -ne 0
check "the run was cut short: not every job ran" test "$(sq "$db" "select count(*) from job where status in ('ok', 'warmup')")" -lt 8
advice=$(grep -o 'kvbench run --resume [0-9]* -d [^ `]*' "$T/run1.err" | head -1)
check "the interrupted run prints its resume advice" test -n "$advice"
[ -n "$advice" ] || tail -20 "$T/run1.err" >&2
"$SB" stop hikey960 2>"$T/stop.err"
check "status after stop: stopped" sh -c "! '$SB' status hikey960 >/dev/null"
"$SB" start hikey960 >/dev/null 2>"$T/start2.err"
check "started again: the same platform file (same ports)" test "$(sha256sum <"$plat")" = "$sha_before"
# the advice, word for word (kvbench is this build's binary)
read -r -a words <<<"${advice#kvbench }"
"$KVB" "${words[@]}" >"$T/run2.out" 2>"$T/run2.err"; rc=$?
check "the printed advice resumes the run to the end (rc $rc)" test "$rc" -eq 0
[ "$rc" -eq 0 ] || tail -30 "$T/run2.err" >&2
check "every planned job ok after the resume (6 measured)" test "$(sq "$db" "select count(*) from job where status = 'ok'")" -eq 6
check "one run in the DB" test "$(sq "$db" "select count(*) from run")" -eq 1
"$KVB" diff -d "$db" --metric util_mean >"$T/util.txt" 2>&1
"$KVB" diff -d "$db" --metric freq_mean >"$T/freq.txt" 2>&1
for c in 0 1 2 3 4 5 6 7; do
  check "util table: a row for cpu=$c" grep -q "util_mean (%) *| cpu=$c " "$T/util.txt"
done
check "frequency table: a row per cluster" sh -c "grep -q 'cluster=little' '$T/freq.txt' && grep -q 'cluster=big' '$T/freq.txt'"
um() { sq "$db" "select avg(value) from results where metric = 'util_mean' and json_extract(classifiers, '\$.cpu') = '$1'"; }
busiest_little=$(for c in 0 1 2 3; do um $c; done | sort -g | tail -1)
idlest_big=$(for c in 4 5 6 7; do um $c; done | sort -g | head -1)
echo "util_mean: LITTLE max $busiest_little %, big min $idlest_big %" >&2
check "every big CPU busier than every LITTLE one ($idlest_big > $busiest_little + 5)" \
  python3 -c "import sys; sys.exit(not float(sys.argv[1]) > float(sys.argv[2]) + 5)" "$idlest_big" "$busiest_little"
fm() { sq "$db" "select round(avg(value), 1) from results where metric = 'freq_mean' and json_extract(classifiers, '\$.cluster') = '$1'"; }
# the LITTLE cluster idles at its lowest OPP (533 MHz) on a quiet host; kvbench's own commands on a loaded host
# (an ASan CI: 557.8) lift its time-weighted mean a little: it stays well below the big cluster's and below its
# own next OPP (999 MHz)
check "the idle LITTLE cluster stays near its lowest OPP, 533 MHz ($(fm little)), below big's ($(fm big))" \
  python3 -c "import sys; l, b = map(float, sys.argv[1:]); sys.exit(not (533 <= l < 999 and l < b))" "$(fm little)" "$(fm big)"
check "the loaded big cluster runs above its lowest OPP, 903 MHz ($(fm big))" \
  python3 -c "import sys; sys.exit(not float(sys.argv[1]) > 903)" "$(fm big)"
check "the ACME probe measured every job" test "$(sq "$db" "select count(distinct job_id) from results where metric = 'power_mean'")" -ge 6
# scaling_cur_freq follows a busy loop on the board (a command carrying the board's mark)
cur=$KVB_SIM_DIR/hikey960/root/sys/devices/system/cpu/cpu4/cpufreq/scaling_cur_freq
ADBD_SIM_DIR=$KVB_SIM_DIR/hikey960/root/.adbd_sim sh -c 'while :; do :; done' &
loop=$!
check "scaling_cur_freq of a busy big cluster reaches 2362000 kHz" until_ok 120 sh -c "test \"\$(cat '$cur')\" = 2362000"
kill "$loop"
check "and falls back to 903000 kHz once idle" until_ok 120 sh -c "test \"\$(cat '$cur')\" = 903000"

# ---- juno-sim ----------------------------------------------------------------------------------
"$SB" start juno >/dev/null 2>"$T/jstart.err"; rc=$?
check "sim-board start juno exits 0 (rc $rc)" test "$rc" -eq 0
[ "$rc" -eq 0 ] || cat "$T/jstart.err" >&2
J=$KVB_SIM_DIR/juno/kernels
jdb=$T/j.db
"$KVB" run "$T/mine.yaml" -p juno-sim -d "$jdb" -V "base=$J/baseline-sim.gz,dtb=$J/juno-r2.dtb" \
  -V "patched=$J/patched-sim.gz,dtb=$J/juno-r2.dtb" >"$T/jrun.out" 2>"$T/jrun.err"; rc=$?
check "a run on juno-sim exits 0 (rc $rc)" test "$rc" -eq 0
[ "$rc" -eq 0 ] || tail -30 "$T/jrun.err" >&2
check "ssh-copy flashed each variant: every boot ran its own kernel" test \
  "$(sq "$jdb" "select count(*) from boot b join variant v on v.id = b.variant_id where b.status = 'ok' and b.running_release = '6.6.0-juno-' || replace(v.name, 'base', 'baseline')")" -eq 2
check "the last kernel copied is in the board's boot directory" cmp -s <(zcat "$J/patched-sim.gz") <(zcat "$KVB_SIM_DIR/juno/boot/Image")
for ch in big little gpu sys; do
  check "hwmon energy of channel $ch in every job" test "$(sq "$jdb" "select count(*) from results where metric = 'energy' and json_extract(classifiers, '\$.chan_name') = '$ch' and value > 0")" -eq 6
done
pw() { sq "$jdb" "select avg(value) from results where metric = 'power_mean' and json_extract(classifiers, '\$.chan_name') = '$1'"; }
check "the loaded big cluster draws more than the idle LITTLE one ($(pw big) > $(pw little) mW)" \
  python3 -c "import sys; sys.exit(not float(sys.argv[1]) > float(sys.argv[2]))" "$(pw big)" "$(pw little)"
check "hwmon: scpi_sensors with a Juno r2's four energy labels, in its order" test \
  "$(cat "$KVB_SIM_DIR/juno/root/sys/class/hwmon/hwmon0/name"; cat "$KVB_SIM_DIR"/juno/root/sys/class/hwmon/hwmon0/energy*_label)" = \
  "$(awk '{print $1; exit}' "$F/juno-r2-hwmon-energy.txt"; awk '{print $2}' "$F/juno-r2-hwmon-energy.txt")"
check "juno util table: a row per CPU (6)" test "$(sq "$jdb" "select count(distinct json_extract(classifiers, '\$.cpu')) from results where metric = 'util_mean'")" -eq 6
"$SB" stop all 2>/dev/null
check "status after stop all: both stopped" sh -c "! '$SB' status >/dev/null"
finish
