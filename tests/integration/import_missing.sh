# Imports take what WA writes (issue 26 item 6): WA writes `nan` into results.csv and `NaN`
# (Python's json.dump) into result.json for a metric it could not compute. Such a value is
# stored as missing: no metric row (so no reader can take it for 0) and an event of its job
# naming the file and line (or the JSON key path); the rest of the file imports.
# Real files: LISA's / trappy's WA results.csv with `FPS,nan` (tests/fixtures/field/
# wa-results-csv/PROVENANCE); the real WA3 output directory of tests/fixtures/field/wa3-output
# with one result.json rewritten by Python's json module as WA3 writes it (json.dump, indent 4)
# after two metrics became float('nan') and float('inf') (no public WA3 result.json with NaN
# was found; this is the writer WA3 uses, so the tokens are byte for byte WA3's).
. "$(dirname "$0")/lib.sh"
FIELD=$SRC/tests/fixtures/field
db=$T/m.db
for f in lisa-constrained lisa-unconstrained trappy-results; do
  "$KVB" import csv "$FIELD/wa-results-csv/$f.csv" --variant "$f" -d "$db" >"$T/o" 2>"$T/e"; rc=$?
  check "$f.csv with FPS,nan imports (rc $rc)" test "$rc" -eq 0
  check "$f.csv: its nan lines are warnings naming file and line" grep -q "$f.csv:[0-9]*: metric 'FPS' .* is 'nan'" "$T/e"
done
# hand-read (PROVENANCE): constrained.csv has 146 rows, FPS nan at lines 73 (power_allocator_1) and 144
# (power_allocator_4); every other row imports
check "constrained: 144 of 146 values stored" test "$(q "$db" "select count(*) from results where variant = 'lisa-constrained'")" = "144"
check "no metric row holds a nan (sqlite stores NaN as NULL)" test "$(q "$db" "select count(*) from metric where value is null or value <> value")" = "0"
check "one event per missing value, on its job, naming file:line" test "$(q "$db" "select group_concat(j.spec_id || '@' || substr(e.message, instr(e.message, '.csv:') + 5, 3), ' ') from event e join job j on j.id = e.job_id join variant v on v.id = j.variant_id where v.name = 'lisa-constrained' order by e.id")" = "power_allocator_1@73: power_allocator_4@144"
check "the jobs with a missing value keep their other metrics" test "$(q "$db" "select count(*) from results where variant = 'lisa-constrained' and spec_id = 'power_allocator_1'")" = "74"
"$KVB" diff -d "$db" --run 1 --workload egypt_offscreen --metric FPS >"$T/d" 2>&1
check "diff reads the imported run" grep -q "egypt_offscreen" "$T/d"

# long-format CSV (kvbench's own): an inf or NaN value is missing too, the rest imports
printf 'variant,workload,metric,value,units,lower_is_better\na,w,t,1.5,s,1\na,w,t,NaN,s,1\na,w,t,-inf,s,1\na,w,t,2.5,s,1\n' >"$T/l.csv"
"$KVB" import csv "$T/l.csv" -d "$T/l.db" >/dev/null 2>"$T/le"; rc=$?
check "long-format csv with NaN and -inf imports (rc $rc)" test "$rc" -eq 0
check "long-format: 2 values stored, mean 2" test "$(q "$T/l.db" "select count(*) || ' ' || avg(value) from results")" = "2 2.0"
check "long-format: events name lines 3 and 4" test "$(q "$T/l.db" "select group_concat(substr(message, instr(message, 'l.csv:') + 6, 1), ' ') from event where job_id is not null")" = "3 4"
# MSVC's printf writes "-nan(ind)" (pyvale issue #252, a CSV with it): strtod reads it as NaN
printf 'variant,workload,metric,value\na,w,t,3\na,w,t,-nan(ind)\n' >"$T/ind.csv"
"$KVB" import csv "$T/ind.csv" -d "$T/ind.db" >/dev/null 2>"$T/inde"; rc=$?
check "a -nan(ind) value is missing too (rc $rc)" sh -c "test $rc -eq 0 && grep -q \"ind.csv:3: metric 't' is '-nan(ind)'\" '$T/inde'"
printf 'variant,workload,metric,value\na,w,t,x\n' >"$T/x.csv"
"$KVB" import csv "$T/x.csv" -d "$T/x.db" >/dev/null 2>"$T/xe"; rc=$?
check "a value that is no number at all is still an error naming the line (rc $rc)" sh -c "test $rc -eq 3 && grep -qF 'x.csv:2: value \"x\" is not a finite number' '$T/xe'"

# result.json with NaN / Infinity as json.dump writes them
cp -r "$FIELD/wa3-output/wa_output" "$T/wa"
python3 - "$T/wa/s1-hb-hb-small-1/result.json" <<'PY'
import json, sys
p = sys.argv[1]
r = json.load(open(p))
names = [m["name"] for m in r["metrics"]]
r["metrics"][names.index("total_bytes")]["value"] = float("nan")
r["metrics"][names.index("test_time")]["value"] = float("inf")
json.dump(r, open(p, "w"), indent=4)
PY
check "the rewritten result.json holds the bare tokens NaN and Infinity" sh -c "grep -q '\"value\": NaN,' '$T/wa/s1-hb-hb-small-1/result.json' && grep -q '\"value\": Infinity,' '$T/wa/s1-hb-hb-small-1/result.json'"
"$KVB" import wa3 "$T/wa" --variant nan -d "$T/w.db" >"$T/wo" 2>"$T/we"; rc=$?
check "import wa3 of a result.json with NaN and Infinity (rc $rc)" test "$rc" -eq 0
check "42 of the 44 metrics stored" test "$(q "$T/w.db" "select count(*) from results")" = "42"
check "the events name the key path and the token" test "$(q "$T/w.db" "select count(*) from event where job_id is not null and (message like '%s1-hb-hb-small-1/result.json: metrics[3].value of metric ''total_bytes'' is NaN%' or message like '%metrics[4].value of metric ''test_time'' is Infinity%')")" = "2"
check "the event is on job s1-hb iteration 1" test "$(q "$T/w.db" "select distinct j.spec_id || '#' || j.iteration from event e join job j on j.id = e.job_id")" = "s1-hb#1"
check "s1-hb iteration 1 keeps its other metrics" test "$(q "$T/w.db" "select count(*) from results where spec_id = 's1-hb' and iteration = 1")" = "4"
finish
