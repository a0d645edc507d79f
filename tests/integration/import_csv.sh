# `kvbench import csv` writes its rows in batches (store/batch.h) inside one transaction; this
# checks, on 1,000 rows (several batches and a partial last one per table), every row the
# import must write, counted by hand from the file built below:
#   row i (1..1000): variant a (i <= 500) or b, value i + 0.5, iteration i, boot 1 + i % 4,
#   section s2 on even rows, classifier cpu = i % 3 except every 5th row (empty: no row).
#   jobs 1000; classifier rows 2 x 1000 (variant, iteration) + 500 (section) + 800 (cpu) = 3300.
# A second import continues the ids; a bad row at line 901 (after batches were written)
# imports nothing; export -> import -> export is identical.
. "$(dirname "$0")/lib.sh"
gen() { # gen BADLINE
  awk -v bad="$1" 'BEGIN {
    print "variant,workload,metric,value,units,lower_is_better,iteration,boot,section,cpu"
    for (i = 1; i <= 1000; i++)
      printf "%s,w,m,%s,s,1,%d,%d,%s,%s\n", i <= 500 ? "a" : "b", i + 1 == bad ? "x" : i + 0.5, i, 1 + i % 4,
        i % 2 ? "" : "s2", i % 5 ? i % 3 : ""
  }'
}
gen 0 >"$T/r.csv"
db=$T/i.db
"$KVB" import csv "$T/r.csv" -d "$db" >/dev/null 2>"$T/e1"; rc=$?
check "import ok (rc $rc)" test "$rc" -eq 0
check "1000 jobs, ids 1..1000, seq = the record's index" test "$(q "$db" "select count(*), min(id), max(id), sum(seq = iteration) from job")" = "1000,1,1000,1000"
check "3300 classifier rows" test "$(q "$db" "select count(*) from classifier")" = "3300"
check "500 section classifiers, 800 cpu" test "$(q "$db" "select sum(key = 'section'), sum(key = 'cpu') from classifier")" = "500,800"
check "every job has its variant and iteration classifier" test "$(q "$db" "select count(*) from job j where (select value from classifier c where c.job_id = j.id and key = 'iteration') = cast(j.iteration as text) and (select value from classifier c where c.job_id = j.id and key = 'variant') = (select name from variant where id = j.variant_id)")" = "1000"
check "row 777: b, 777.5, boot 2, no section, cpu 0" test "$(q "$db" "select variant, value, boot, coalesce(section, '-'), classifiers, units, lower_is_better from results where iteration = 777")" = 'b,777.5,2,-,"{""cpu"":""0"",""iteration"":""777"",""variant"":""b""}",s,1'
check "row 1000: section s2, no cpu" test "$(q "$db" "select section, classifiers from results where iteration = 1000")" = 's2,"{""iteration"":""1000"",""section"":""s2"",""variant"":""b""}"'
check "variants a then b, ok" test "$(q "$db" "select group_concat(name || position || status, ' ') from variant")" = "a0ok b1ok"
check "job status ok, 1 attempt" test "$(q "$db" "select count(*) from job where status = 'ok' and attempts = 1 and spec_id = 'w' and label = 'w'")" = "1000"
"$KVB" import csv "$T/r.csv" -d "$db" >/dev/null 2>&1
check "second import: run 2, jobs 1001..2000" test "$(q "$db" "select min(id), max(id) from job where run_id = 2")" = "1001,2000"
check "second import: the metrics point at its jobs" test "$(q "$db" "select count(*) from metric m join job j on j.id = m.job_id where j.run_id = 2 and m.value = j.iteration + 0.5")" = "1000"
gen 901 >"$T/bad.csv"
"$KVB" import csv "$T/bad.csv" -d "$db" >/dev/null 2>"$T/e2"; rc=$?
check "bad row at line 901: exit 3 (rc $rc)" test "$rc" -eq 3
check "bad row at line 901: named" grep -qF 'bad.csv:901: value "x" is not a finite number' "$T/e2"
check "bad file: nothing imported" test "$(q "$db" "select (select count(*) from run), (select count(*) from job), (select count(*) from classifier), (select count(*) from metric), (select count(*) from variant)")" = "2,2000,6600,2000,4"
"$KVB" export csv -d "$db" --run 1 >"$T/x1.csv"
"$KVB" import csv "$T/x1.csv" -d "$db" >/dev/null 2>&1
"$KVB" export csv -d "$db" --run 3 >"$T/x3.csv"
check "export -> import -> export is identical" cmp -s "$T/x1.csv" "$T/x3.csv"
check "export has every row" test "$(wc -l <"$T/x1.csv")" = "1001"
finish
