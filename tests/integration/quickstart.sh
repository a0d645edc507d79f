#!/usr/bin/env bash
# The quick-start agenda end to end on the local platform: table printed, DB complete.
. "$(dirname "$0")/lib.sh"
db=$T/q.db
"$KVB" run "$SRC/agendas/quickstart-local.yaml" -p local -d "$db" >"$T/out" 2>"$T/err"
rc=$?
check "run exits 0" test "$rc" -eq 0
check "table shows both variants" sh -c "grep -q '| 1cpu ' '$T/out' && grep -q '| 2cpus ' '$T/out'"
check "table has hackbench and pipe rows" sh -c "grep -q 'time (s)' '$T/out' && grep -q 'usecs_per_op (us)' '$T/out'"
planned=$("$KVB" agenda check "$SRC/agendas/quickstart-local.yaml" | head -1 | sed 's/.* \([0-9]*\) jobs.*/\1/')
check "one job row per planned job ($planned)" test "$(q "$db" "select count(*) from job")" = "$planned"
check "every job ok" test "$(q "$db" "select count(*) from job where status='ok'")" = "$planned"
# hackbench gives 1 metric, sched_pipe 3; 5 iterations x 2 variants
check "results count matches metrics" test "$(q "$db" "select count(*) from results")" = "40"
n_printed=$(grep -E '^\| (hackbench|sched_pipe) ' "$T/out" | awk -F'|' '{s += $5} END {print s}')
check "n in the table sums to the stored metrics" test "$n_printed" = "$(q "$db" "select count(*) from results")"
check "classifiers carry variant and iteration" test "$(q "$db" "select count(*) from results where json_extract(classifiers,'$.variant') = variant and json_extract(classifiers,'$.iteration') = cast(iteration as text)")" = "40"
check "hackbench params are classifiers" test "$(q "$db" "select json_extract(classifiers,'$.groups') from results where workload='hackbench' limit 1")" = "4"
check "raw output kept as artifact" test "$(q "$db" "select count(*) from artifact where kind='raw-output' and bytes > 0")" = "$planned"
check "2 rounds alternate variants" test "$(q "$db" "select group_concat(v.name || j.round, ' ') from (select variant_id, round, min(seq) s from job group by variant_id, round order by s) j join variant v on v.id = j.variant_id")" = "1cpu1 2cpus1 1cpu2 2cpus2"
"$KVB" query -d "$db" "delete from run" >/dev/null 2>"$T/qerr"; rc=$?
check "query refuses a write (exit 3)" test "$rc" -eq 3
check "query explains read-only" grep -q "read-only" "$T/qerr"
check "nothing deleted" test "$(q "$db" "select count(*) from run")" = "1"
"$KVB" diff -d "$db" --format json >"$T/json"
check "json has p-values" grep -q '"welch_p"' "$T/json"
view=$(q "$db" "select printf('%.6f', perc_diff) from comparison where metric='time' and variant='2cpus'")
json=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("%.6f" % [v["diff_pct"] for g in d["groups"] if g["metric"]=="time" for v in g["variants"] if v["variant"]=="2cpus"][0])' "$T/json")
check "comparison view perc_diff = diff's ($view)" test "$view" = "$json"
"$KVB" diff -d "$db" --baseline 2cpus --layout wide >"$T/wide"
check "wide layout with baseline first" sh -c "grep -q '2cpus mean ± cov' '$T/wide' && grep -q '1cpu %change' '$T/wide'"
"$KVB" diff -d "$db" --baseline nosuch >/dev/null 2>"$T/derr"; rc=$?
check "unknown baseline is a usage error (exit 2)" test "$rc" -eq 2
check "unknown baseline lists variants" grep -q "variants: 1cpu, 2cpus" "$T/derr"
"$KVB" show jobs -d "$db" >"$T/jobs"
check "show jobs lists 20 jobs" test "$(grep -c '| ok ' "$T/jobs")" = "20"
"$KVB" export csv -d "$db" >"$T/e1.csv"
"$KVB" import csv "$T/e1.csv" -d "$T/i.db" >/dev/null
"$KVB" export csv -d "$T/i.db" >"$T/e2.csv"
check "csv export -> import -> export is lossless" cmp -s "$T/e1.csv" "$T/e2.csv"
check "csv has one row per metric" test "$(($(wc -l <"$T/e1.csv") - 1))" = "40"
# the same table in its raw form: the run's own table may carry footnote marks for its events
# (a job the host disturbed), which an import of the results alone does not have
"$KVB" diff -d "$db" --format csv >"$T/odiff"
"$KVB" diff -d "$T/i.db" --format csv >"$T/idiff"
check "imported run gives the same table" cmp -s "$T/odiff" "$T/idiff"
printf 'variant,workload,metric,value\na,hackbench,time,1.5\nb,hackbench,time,fast\nb,hackbench,time\n' >"$T/bad.csv"
"$KVB" import csv "$T/bad.csv" -d "$T/b.db" 2>"$T/berr"; rc=$?
check "bad csv exits 3" test "$rc" -eq 3
check "bad csv names line 3" grep -q 'bad.csv:3: value "fast" is not a finite number' "$T/berr"
check "bad csv names line 4" grep -q 'bad.csv:4: 3 fields, header has 4' "$T/berr"
check "nothing imported from a bad file" test "$(sqlite3 "$T/b.db" 'select count(*) from run')" = "0"
finish
