# Exact data, exact answers (issue 38 item 5) through the real binary on an imported CSV,
# 3 boots x 4 runs a side:
#   m_zero   0 on both sides (dmesg_warnings)                       -> same, not undecided [0, 0]
#   m_const  0.1 on both sides (a constant whose n * 0.1 / n misses) -> same, mean printed 0.1
#   m_zsum   baseline 0.1, 0.2, -0.1, -0.2 in every boot (sums to exactly 0; a running mean
#            leaves 1.4e-17 and printed a change of ~1e17 %) against 1.1, 1.2, 0.9, 0.8:
#            no percentage (null / "-"), worse judged on the difference
#   m_zundec baseline 0 against 0 0 0 1 in one boot: undecided, no % CI, and it says why
#   m_near   baseline boots at 0.1, 5, 0.2 (positive, not clear of 0): Fieller's CI of the
#            ratio is unbounded: undecided, and it says why
# and a second file with warm-up rows (iteration 0, warmup 1/true): stored, never compared.
. "$(dirname "$0")/lib.sh"
csv=$T/x.csv
{
  echo "variant,workload,metric,value,units,lower_is_better,iteration,boot"
  for v in base new; do
    i=0
    for b in 1 2 3; do
      for r in 1 2 3 4; do
        i=$((i + 1))
        echo "$v,w,m_zero,0,count,1,$i,$b"
        echo "$v,w,m_const,0.1,s,1,$i,$b"
        zb=$(echo "0.1 0.2 -0.1 -0.2" | cut -d' ' -f"$r"); zv=$(echo "1.1 1.2 0.9 0.8" | cut -d' ' -f"$r")
        echo "$v,w,m_zsum,$([ $v = base ] && echo "$zb" || echo "$zv"),s,1,$i,$b"
        echo "$v,w,m_zundec,$([ $v = new ] && [ $b = 2 ] && [ $r = 4 ] && echo 1 || echo 0),count,1,$i,$b"
        nb=$(echo "0.1 5 0.2" | cut -d' ' -f"$b"); nv=$(echo "2 3 1.5" | cut -d' ' -f"$b")
        echo "$v,w,m_near,$(awk -v l="$([ $v = base ] && echo "$nb" || echo "$nv")" -v r="$r" 'BEGIN { print l * (1 + (r - 2.5) * 0.01) }'),s,0,$i,$b"
      done
    done
  done
} >"$csv"
check "import ok" "$KVB" import csv "$csv" -d "$T/x.db"
"$KVB" diff -d "$T/x.db" --format json >"$T/json"
field() { # field METRIC KEY -> the variant 'new' value of KEY (Python's repr)
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print([v.get(sys.argv[3], "absent") for g in d["groups"] if g["metric"]==sys.argv[2] for v in g["variants"] if v["variant"]=="new"][0])' "$T/json" "$1" "$2"
}
basefield() {
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print([v.get(sys.argv[3], "absent") for g in d["groups"] if g["metric"]==sys.argv[2] for v in g["variants"] if v["variant"]=="base"][0])' "$T/json" "$1" "$2"
}
check "0 vs 0 is same" test "$(field m_zero verdict)" = "same"
check "0 vs 0 has no undecided_reason" test "$(field m_zero undecided_reason)" = "None"
check "0.1 vs 0.1 is same" test "$(field m_const verdict)" = "same"
check "0.1 x 12: the mean is exactly 0.1" test "$(basefield m_const mean)" = "0.1"
check "baseline summing to 0: its mean is exactly 0" test "$(basefield m_zsum mean)" = "0"
check "baseline 0: no percentage" test "$(field m_zsum diff_pct)" = "None"
check "baseline 0: judged on the difference (worse, lower is better)" test "$(field m_zsum verdict)" = "worse"
check "baseline 0, unclear difference: undecided" test "$(field m_zundec verdict)" = "undecided"
check "baseline 0, unclear difference: says why" test "$(field m_zundec undecided_reason)" = "baseline is 0: no % CI"
check "baseline not clear of 0: undecided" test "$(field m_near verdict)" = "undecided"
check "baseline not clear of 0: no CI" test "$(field m_near ci_halfwidth_pct)" = "None"
check "baseline not clear of 0: says why" test "$(field m_near undecided_reason)" = "the baseline varies so much between boots that its CI reaches 0: the % change could be any size; more boots narrow it"
"$KVB" diff -d "$T/x.db" >"$T/table"
row() { grep "| $1 " "$T/table" | grep "| new " | tr -s ' '; }
check "table: m_zero same" sh -c "echo '$(row m_zero)' | grep -q '| same |'"
check "table: m_zsum shows no percentage" sh -c "! grep 'm_zsum' '$T/table' | grep -Eq '[0-9]e[+-]?[0-9]+ ?%|[0-9]{5,} ?%'"
check "table: m_zundec says why" sh -c "echo '$(row m_zundec)' | grep -q 'undecided (baseline is 0: no % CI)'"
check "table: m_near says why" sh -c "echo '$(row m_near)' | grep -q 'undecided (the baseline varies so much between boots that its CI reaches 0: the % change could be any size; more boots narrow it)'"
check "json validates against \$defs/diff (undecided_reason included)" python3 \
  "$SRC/tests/integration/json_schema_check.py" "$SRC/results-schema/kvbench-json.schema.json" diff "$T/json"

# Warm-up rows: iteration 0, or a warmup column of 1/true; stored with status warmup, never compared.
cat >"$T/w.csv" <<'CSV'
variant,workload,metric,value,units,lower_is_better,iteration,boot,warmup
base,w,m,900,s,1,0,1,
base,w,m,10,s,1,1,1,0
base,w,m,12,s,1,2,1,false
base,w,m,800,s,1,3,2,true
base,w,m,11,s,1,4,2,
base,w,m,13,s,1,5,2,0
new,w,m,700,s,1,1,1,1
new,w,m,10,s,1,2,1,0
new,w,m,12,s,1,3,1,0
new,w,m,11,s,1,0,2,0
new,w,m,11,s,1,4,2,0
new,w,m,13,s,1,5,2,0
CSV
check "warm-up import ok" "$KVB" import csv "$T/w.csv" -d "$T/w.db"
check "4 warm-up jobs stored" test "$(q "$T/w.db" "select count(*) from job where status = 'warmup'")" = "4"
check "their metrics are kept" test "$(q "$T/w.db" "select count(*) from metric m join job j on j.id = m.job_id where j.status = 'warmup'")" = "4"
check "iteration 0 stays 0" test "$(q "$T/w.db" "select count(*) from job where status = 'warmup' and iteration = 0")" = "2"
check "results hold the 8 measured rows" test "$(q "$T/w.db" "select count(*) from results")" = "8"
check "warmup is not a classifier" test "$(q "$T/w.db" "select count(*) from classifier where key = 'warmup'")" = "0"
"$KVB" diff -d "$T/w.db" --format json >"$T/wjson"
check "diff compares the measured runs only (mean 11.5 a side)" test "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print(sorted(v["mean"] for g in d["groups"] for v in g["variants"]))' "$T/wjson")" = "[11.5, 11.5]"
printf 'variant,workload,metric,value,iteration,warmup\nb,w,m,1,1,maybe\nb,w,m,1,-1,0\n' >"$T/bad.csv"
"$KVB" import csv "$T/bad.csv" -d "$T/bad.db" 2>"$T/err" && bad "bad warmup refused" || ok "bad warmup refused"
check "names the bad warmup value" grep -q 'warmup "maybe" is not 0/1/true/false' "$T/err"
check "a negative iteration is still refused" grep -q 'iteration "-1" is not 0 (a warm-up) or a positive integer' "$T/err"
printf 'variant,workload,metric,value,iteration\nb,w,m,1,0\n' >"$T/allw.csv"
"$KVB" import csv "$T/allw.csv" -d "$T/allw.db" 2>"$T/err2" && bad "all warm-up refused" || ok "all warm-up refused"
finish
