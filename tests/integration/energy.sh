#!/usr/bin/env bash
# Energy end to end through the kvbench binary: a platform with a simulated meter
# (tests/sim/probe_sim as a csv-command instrument) and util; samples stored with each
# job, the energy view, export samples, import energy, and a bad meter marking jobs
# instrument-failed while their workload metrics are kept.
. "$(dirname "$0")/lib.sh"
SIM=${KVB_BUILD_DIR:-build}/tests/sim/probe_sim
mkdir -p "$T/good" "$T/bad"
cat >"$T/good/platform.yaml" <<YAML
name: good
connection: {type: local}
workdir: $T/work
instruments:
  meter: {type: csv-command, command: ["$SIM", csv, --power, "const:1.5", --channels, "2", --done, "$T/done"],
          sums: {total_power: [ch0, ch1]}, ready_timeout_ms: 20000}
YAML
sed -e 's/^name: good/name: bad/' -e 's/--channels, "2"/--channels, "2", --rate, "10", --duration, "2", --bad, nan/' \
  "$T/good/platform.yaml" >"$T/bad/platform.yaml"
cat >"$T/agenda.yaml" <<YAML
config: {iterations: 2, instruments: [util]}
workloads:
  - name: hackbench
    params: {groups: 2, fds: 10, loops: 100}
YAML
db=$T/e.db
"$KVB" run "$T/agenda.yaml" -p "$T/good" -d "$db" >"$T/out" 2>"$T/err"; rc=$?
check "run with a meter exits 0" test "$rc" -eq 0
[ "$rc" -eq 0 ] || cat "$T/err" >&2
check "both jobs ok" test "$(q "$db" "select count(*) from job where status='ok'")" = "2"
check "two channels per job in the energy view" test "$(q "$db" "select count(*) from energy where chan_name in ('ch0','ch1')")" = "4"
check "samples kept for each channel" test "$(q "$db" "select min(n_samples) > 0 from energy")" = "1"
check "constant 1.5 W gives power_mean 1500 mW" test "$(q "$db" "select distinct value from results where metric='power_mean' and json_extract(classifiers,'$.chan_name')='ch0'")" = "1500"
check "energy = 1.5 W x the job window (within 2 ms)" test "$(q "$db" "select count(*) from energy where chan_name='ch0' and abs(energy_j - 1.5 * (t_last_ns - t_first_ns) / 1e9) < 0.003")" = "2"
check "platform sum total_power = ch0 + ch1" test "$(q "$db" "select count(*) from results r where metric='energy' and json_extract(classifiers,'$.chan_name')='total_power' and abs(value - 3 * (select value from results x where x.job_id = r.job_id and x.metric='energy' and json_extract(x.classifiers,'$.chan_name')='ch0')) < 1e-9")" = "2"
check "util metrics per cpu" test "$(q "$db" "select count(*) > 0 from results where metric='util_mean' and json_extract(classifiers,'$.cpu') = '0'")" = "1"
check "blobs at most 8 bytes a sample" test "$(q "$db" "select sum(stored_bytes) <= 8 * sum(n_samples) from energy")" = "1"
check "raw meter output kept as an artifact" test "$(q "$db" "select count(*) from artifact where kind='energy-raw' and bytes > 0")" = "2"
"$KVB" diff -d "$db" --metric power_mean >"$T/power"
check "power table names its channels" sh -c "grep -q 'chan_name=ch0' '$T/power' && grep -q 'chan_name=total_power' '$T/power'"
check "power table is in mW" grep -q 'power_mean (mW)' "$T/power"
printf 'variant,workload,metric,value,units,lower_is_better,chan_name,estimated\na,w,power_mean,100,mW,1,big,true\nb,w,power_mean,120,mW,1,big,true\n' >"$T/est.csv"
"$KVB" import csv "$T/est.csv" -d "$T/est.db" >/dev/null
"$KVB" diff -d "$T/est.db" >"$T/est"
check "model estimates are marked estimated in the table" grep -q 'power_mean (mW) estimated' "$T/est"
"$KVB" diff -d "$T/est.db" --format json >"$T/est.json"
check "and in json" grep -Eq '"estimated":[[:space:]]*true' "$T/est.json"
job=$(q "$db" "select min(job_id) from energy")
n=$(q "$db" "select n_samples from energy where job_id=$job and chan_name='ch1'")
"$KVB" export samples --job "$job" --channel ch1 -d "$db" >"$T/s.csv"; rc=$?
check "export samples exits 0" test "$rc" -eq 0
check "export has one row per stored sample" test "$(($(wc -l <"$T/s.csv") - 1))" = "$n"
check "exported values are ch1's 3 W in mW" test "$(tail -n +2 "$T/s.csv" | cut -d, -f2-4 | sort -u)" = "ch1,3000,mW"
"$SIM" csv --power step:1:2:5 -o "$T/probe.csv"
"$KVB" import energy "$T/probe.csv" --job "$job" -d "$db" >"$T/imp" 2>&1; rc=$?
check "import energy exits 0" test "$rc" -eq 0
check "imported step 1 W -> 2 W at 5 s is 15 J" test "$(q "$db" "select round(energy_j, 9) from energy where job_id=$job and chan_name='ch0'")" = "15"
check "import replaced the channel's metric" test "$(q "$db" "select count(*) || ' ' || round(max(value), 9) from results where job_id=$job and metric='energy' and json_extract(classifiers,'$.chan_name')='ch0'")" = "1 15.0"
printf 'time,ch0\n0,1\n0.1,nan\n' >"$T/nan.csv"
"$KVB" import energy "$T/nan.csv" --job "$job" -d "$db" 2>"$T/ierr"; rc=$?
check "bad import exits 3 naming the line" sh -c "test $rc -eq 3 && grep -q 'nan.csv:3: column 2' '$T/ierr'"
# A real Arm energy probe capture as devlib writes it (tests/fixtures/field/aep/PROVENANCE): no time,
# 10 kHz, A/W/V columns; only BAT_power is a channel: 3.5e-6 J over the 9 samples.
"$KVB" import energy "$SRC/tests/fixtures/field/aep/devlib-energyprobe-samples.csv" --format devlib --rate 10000 \
  --job "$job" -d "$db" >/dev/null 2>"$T/aerr"; rc=$?
check "import energy --format devlib exits 0" test "$rc" -eq 0
check "devlib probe CSV: BAT_power only, 3.5e-6 J" test "$(q "$db" "select group_concat(chan_name) || ' ' || round(energy_j * 1e6, 6) from energy where job_id=$job and chan_name like 'BAT%'")" = "BAT_power 3.5"
"$KVB" import energy "$SRC/tests/fixtures/field/aep/devlib-energyprobe-samples.csv" --format devlib --job "$job" -d "$db" 2>"$T/rerr"; rc=$?
check "devlib CSV without --rate is a usage error" sh -c "test $rc -eq 2 && grep -q 'give --rate HZ' '$T/rerr'"
"$KVB" export samples --job 999 -d "$db" >/dev/null 2>&1; rc=$?
check "export of a job without samples exits 3" test "$rc" -eq 3
bdb=$T/b.db
"$KVB" run "$T/agenda.yaml" -p "$T/bad" -d "$bdb" >"$T/bout" 2>"$T/berr"; rc=$?
check "run with a bad meter exits 1" test "$rc" -eq 1
check "jobs are instrument-failed" test "$(q "$bdb" "select count(*) from job where status='instrument-failed'")" = "2"
check "the error names the meter output line" test "$(q "$bdb" "select count(*) from job where error like '%meter.out:12: column 2: ''nan'' is not a finite number%'")" = "2"
check "workload metrics are kept" test "$(q "$bdb" "select count(*) from results where metric='time'")" = "2"
check "no samples stored from the bad meter" test "$(q "$bdb" "select count(*) from energy")" = "0"
# A meter whose clock is elsewhere (2001): no sample falls in any job's window. The energy is refused with a
# witness and an event per job, never stored as 0 J / 0 mW; the job and its workload metrics are kept.
mkdir -p "$T/late"
cat >"$T/late/platform.yaml" <<YAML
name: late
connection: {type: local}
workdir: $T/work
instruments:
  meter: {type: csv-command, command: ["$SIM", csv, --t0-ns, "1000000000000000000", --rate, "10", --duration, "1",
          --done, "$T/done"], ready_timeout_ms: 20000}
YAML
ldb=$T/l.db
"$KVB" run "$T/agenda.yaml" -p "$T/late" -d "$ldb" >"$T/lout" 2>"$T/lerr"; rc=$?
check "run with a meter outside the window exits 0" test "$rc" -eq 0
check "its jobs are ok" test "$(q "$ldb" "select count(*) from job where status='ok'")" = "2"
check "no energy or power_mean stored (not 0 J)" test "$(q "$ldb" "select count(*) from results where metric in ('energy','power_mean')")" = "0"
check "a refused meter witness per job" test "$(q "$ldb" "select count(*) from witnesses where kind='meter' and subject='meter channel ch0' and verdict='refused' and observed like 'no sample in the % window'")" = "2"
check "an event per job names the coverage" test "$(q "$ldb" "select count(*) from event where job_id is not null and message like '%refused meter meter channel ch0: energy and power_mean not stored: no sample in the%'")" = "2"
check "the energy view keeps the channel without a value" test "$(q "$ldb" "select count(*) from energy where energy_j is null and power_mean_mw is null")" = "2"
"$KVB" show witnesses -d "$ldb" >"$T/lw"
check "show witnesses lists them" grep -q 'refused' "$T/lw"
# import energy --cut proves the file covers the job window: a capture 1 s long into a longer job is refused
ljob=$(q "$ldb" "select min(id) from job")
sqlite3 "$ldb" "update job set start_ns = 1000000000000000000, end_ns = 1000000000000000000 + 3000000000 where id = $ljob"
"$SIM" csv --t0-ns 1000000000000000000 --rate 100 --duration 1 -o "$T/short.csv"
"$KVB" import energy "$T/short.csv" --job "$ljob" --cut -d "$ldb" 2>"$T/serr"; rc=$?
check "import of a capture shorter than its job is refused (exit 3)" sh -c "test $rc -eq 3 && grep -q \"channel 'ch0' refused, nothing imported: ends 2.00 s before the job did\" '$T/serr'"
"$SIM" csv --t0-ns 1000000000000000000 --rate 100 --duration 3 -o "$T/full.csv"
"$KVB" import energy "$T/full.csv" --job "$ljob" --cut -d "$ldb" 2>"$T/ferr"; rc=$?
check "a capture covering the job imports" test "$rc" -eq 0
check "with an ok witness" test "$(q "$ldb" "select count(*) from witnesses where job_id=$ljob and subject='import channel ch0' and verdict='ok'")" = "1"
check "and its 4.5 J" test "$(q "$ldb" "select round(energy_j, 6) from energy where job_id=$ljob and chan_name='ch0' and energy_j is not null")" = "4.5"
printf 'name: x\nconnection: {type: local}\ninstruments:\n  m: {type: csv-command, comand: [x]}\n' >"$T/bad/platform.yaml"
"$KVB" run "$T/agenda.yaml" -p "$T/bad" -d "$T/c.db" >/dev/null 2>"$T/cerr"; rc=$?
check "misspelt instrument key exits 3 before running" sh -c "test $rc -eq 3 && grep -q 'comand' '$T/cerr'"
finish
