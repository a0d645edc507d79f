# `kvbench import wa3 DIR` and `kvbench import csv results.csv --variant NAME` on the real WA3
# output directory of tests/fixtures/field/wa3-output (PROVENANCE: `wa run` of 2 sections x
# hackbench, rt-app x 2 iterations + one failing hackbench job on this host). Counted by hand
# from its files: 9 jobs (8 OK, s2-bad FAILED after 2 retries), 44 metrics, and results.csv holds
# the same 44 values as the result.json files.
. "$(dirname "$0")/lib.sh"
WA=$SRC/tests/fixtures/field/wa3-output/wa_output
db=$T/w.db
"$KVB" import wa3 "$WA" --variant host -d "$db" >"$T/o1" 2>"$T/e1"; rc=$?
check "import wa3 ok (rc $rc)" test "$rc" -eq 0
check "says which run" grep -q "as run 1" "$T/o1"
check "9 jobs: 8 ok, s2-bad failed with 3 attempts" test "$(q "$db" "select count(*), sum(status = 'ok'), sum(spec_id = 's2-bad' and status = 'failed' and attempts = 3) from job")" = "9,8,1"
check "the variant is incomplete, not ok: one of its 9 jobs FAILED (WA3 said the run was OK)" test "$(q "$db" "select status || ': ' || error from variant")" = "incomplete: 1 of 9 WA3 jobs not OK (first: s2-bad)"
check "failed job's reason is WA3's event" test "$(q "$db" "select count(*) from job where error like '%unrecognized option ''--no-such-option'''")" = "1"
check "workload from jobs.json, label from the agenda" test "$(q "$db" "select group_concat(wl, ' ') from (select distinct workload || '/' || label as wl from job order by wl)")" = "hackbench/hackbench-bad hackbench/hb-small rt-app/rt-app"
check "44 metrics, none lower_is_better" test "$(q "$db" "select count(*), sum(lower_is_better) from results")" = "44,0"
check "s1-hb #1 test_time 0.07 seconds" test "$(q "$db" "select value, units from results where spec_id = 's1-hb' and iteration = 1 and metric = 'test_time'")" = "0.07,seconds"
(cd "$SRC/tests/fixtures/field" && "$KVB" import wa3 wa3-output/wa_output --variant rel -d "$db" >/dev/null 2>&1) || bad "import wa3 of a relative DIR"
check "artifact rows name absolute paths, also for a relative DIR" test "$(q "$db" "select count(*), sum(path like '/%') from artifact")" = "152,152"
check "every listed artifact is a row, the 28 files in DIR with sha256 (each import)" test "$(q "$db" "select count(sha256), count(bytes) from artifact")" = "56,56"
check "no artifact path is a classifier" test "$(q "$db" "select count(*) from classifier where value like '%-1/%' or value like '%-2/%'")" = "0"
"$KVB" diff -d "$db" --run 1 --run 2 --format json >"$T/diff.json" 2>/dev/null
check "diff of the two imports: 22 groups (2 tags x 11 metrics), both iterations of both variants in each" \
  python3 -c "import json,sys; g=json.load(open('$T/diff.json'))['groups']; sys.exit(0 if len(g) == 22 and all(v['n'] == 2 for x in g for v in x['variants']) and all(len(x['variants']) == 2 for x in g) else 1)"
"$KVB" import csv "$WA/results.csv" --variant csv -d "$db" >"$T/o2" 2>"$T/e2"; rc=$?
check "import csv --variant ok (rc $rc)" test "$rc" -eq 0
check "says lower_is_better is not in results.csv" grep -q "lower_is_better" "$T/o2" "$T/e2"
check "csv: 8 jobs, 44 metrics" test "$(q "$db" "select count(distinct job_id), count(*) from results where variant = 'csv'")" = "8,44"
check "csv and result.json agree on every (id, iteration, metric, value, units)" test "$(q "$db" "select count(*) from results a join results b on a.spec_id = b.spec_id and a.iteration = b.iteration and a.metric = b.metric and a.value = b.value and coalesce(a.units, '') = coalesce(b.units, '') where a.variant = 'host' and b.variant = 'csv'")" = "44"
# WA3's hackbench says test_time is higher is better (its result.json), and results.csv says
# nothing: a slowdown then prints as "better" (a new user's report). --lower-is-better GLOB says it.
ldb=$T/l.db
"$KVB" import wa3 "$WA" --variant host --lower-is-better test_time --lower-is-better '*_time_*' -d "$ldb" >"$T/ol" 2>&1; rc=$?
n=$(q "$ldb" "select count(*) from results where metric = 'test_time'")
check "import --lower-is-better: ok (rc $rc), $n test_time values" test "$rc" -eq 0 -a "$n" -gt 0
check "it says how many values it set" grep -q "^--lower-is-better 'test_time': $n metric values of run 1 now lower is better" "$T/ol"
check "test_time lower is better, no other metric changed" test "$(q "$ldb" "select sum(metric = 'test_time'), sum(metric <> 'test_time') from results where lower_is_better = 1")" = "$n,0"
check "a glob that matches nothing says 0" grep -q "^--lower-is-better '\*_time_\*': 0 metric values" "$T/ol"
"$KVB" import csv "$WA/results.csv" --variant c2 --lower-is-better 'test_t?me' -d "$ldb" >"$T/ol2" 2>&1; rc=$?
check "results.csv --lower-is-better: test_time of that run only" test "$rc:$(q "$ldb" "select count(*) from results where variant = 'c2' and lower_is_better = 1 and metric = 'test_time'")" = "0:$n"
check "and no warning that every metric is higher is better" sh -c "! grep -q 'stored as higher is better' '$T/ol2'"
"$KVB" import csv "$WA/results.csv" -d "$db" >/dev/null 2>"$T/e3"; rc=$?
check "WA3 results.csv without --variant: usage error (rc $rc)" test "$rc" -eq 2
"$KVB" import wa3 "$SRC/tests" --variant x -d "$db" >/dev/null 2>"$T/e4"; rc=$?
check "not a WA3 directory: exit 3 (rc $rc), named" test "$rc" -eq 3 -a -n "$(grep '.run_state.json' "$T/e4")"
check "nothing stored by the failed imports" test "$(q "$db" "select count(*) from run")" = "3"
# a BOM'd results.csv (Excel's UTF-8 save) is still WA3's; an unreadable FILE with --variant is
# bad input named as such (exit 3), not "has its own variant column"; --variant '' is a usage error
{ printf '\357\273\277'; cat "$WA/results.csv"; } >"$T/bom.csv"
"$KVB" import csv "$T/bom.csv" --variant bom -d "$db" >/dev/null 2>"$T/e5"; rc=$?
check "BOM'd WA3 results.csv with --variant: imported (rc $rc)" test "$rc" -eq 0
check "BOM'd csv: 44 metrics" test "$(q "$db" "select count(*) from results where variant = 'bom'")" = "44"
: >"$T/empty.csv"
for f in "$T/missing.csv" "$T" "$T/empty.csv"; do
  "$KVB" import csv "$f" --variant x -d "$db" >/dev/null 2>"$T/e6"; rc=$?
  check "--variant on unreadable $(basename "$f"): exit 3 (rc $rc), cannot read" test "$rc" -eq 3 -a -n "$(grep "cannot read $f" "$T/e6")"
done
"$KVB" import csv "$WA/results.csv" --variant '' -d "$db" >/dev/null 2>"$T/e7"; rc=$?
check "--variant '': usage error (rc $rc)" test "$rc" -eq 2
check "nothing stored by the refused imports" test "$(q "$db" "select count(*) from run")" = "4"
finish
