# The three-way verdict of `kvbench diff` (docs/design.md#verdicts-and-deciding) on an imported CSV whose numbers
# are written out below, 4 boots x 5 runs per variant:
#   m_same   both variants' boots at 99.97/99.99/100.01/100.03, runs +-0.1 around them: ratio 1,
#            CI well inside +-1 %  -> same (the boots must differ: with boots the unit, identical
#            boots would give a zero-width CI that no margin could make undecided)
#   m_worse  the variant 10 % higher, lower_is_better                               -> worse
#   m_undec  boots at 100/104/97/101 vs 99/103/101/96: CI far wider than +-1 %  -> undecided (CI +-X %, ~N boots)
#   m_modes  boots 1-2 at 100, 3-4 at 110 on both sides: two modes -> footnote, "multimodal": true
# --margin 0.02 (percent) makes m_same undecided (its CI is +-0.045 %); the agenda's config.margins is read per metric.
. "$(dirname "$0")/lib.sh"
csv=$T/v.csv
{
  echo "variant,workload,metric,value,units,lower_is_better,iteration,boot"
  for v in base new; do
    i=0
    for b in 1 2 3 4; do
      for r in 1 2 3 4 5; do
        i=$((i + 1))
        d=$(awk -v r="$r" 'BEGIN { printf "%.2f", (r - 3) * 0.05 }')
        echo "$v,w,m_same,$(awk -v d="$d" -v b="$b" 'BEGIN { print 100 + (b - 2.5) * 0.02 + d }'),s,1,$i,$b"
        echo "$v,w,m_worse,$(awk -v d="$d" -v v="$v" 'BEGIN { print (100 + d) * (v == "new" ? 1.1 : 1) }'),s,1,$i,$b"
        lb=$(echo "100 104 97 101" | cut -d' ' -f"$b"); lv=$(echo "99 103 101 96" | cut -d' ' -f"$b")
        echo "$v,w,m_undec,$(awk -v d="$d" -v l="$([ $v = base ] && echo "$lb" || echo "$lv")" 'BEGIN { print l + d }'),s,1,$i,$b"
        echo "$v,w,m_modes,$(awk -v d="$d" -v b="$b" 'BEGIN { print (b <= 2 ? 100 : 110) + d }'),s,1,$i,$b"
      done
    done
  done
} >"$csv"
"$KVB" import csv "$csv" -d "$T/v.db" >/dev/null 2>&1
check "import ok" test "$(q "$T/v.db" "select count(*) from results")" = "160"
"$KVB" diff -d "$T/v.db" --format json >"$T/json"
field() { # field METRIC KEY -> the variant 'new' value of KEY
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print([v.get(sys.argv[3]) for g in d["groups"] if g["metric"]==sys.argv[2] for v in g["variants"] if v["variant"]=="new"][0])' "$T/json" "$1" "$2"
}
check "m_same is same" test "$(field m_same verdict)" = "same"
check "m_worse is worse" test "$(field m_worse verdict)" = "worse"
check "m_undec is undecided" test "$(field m_undec verdict)" = "undecided"
n=$(field m_undec boots_needed)
check "m_undec estimates more boots than the 4 it has ($n)" python3 -c "import sys; sys.exit(not (float('$n') > 4))"
check "m_worse: Cliff's delta is +1 (every new run above every base run)" test "$(field m_worse cliffs_delta)" = "1"
check "m_worse: magnitude large" test "$(field m_worse cliffs_magnitude)" = "large"
check "m_modes: multimodal in JSON" test "$(field m_modes multimodal)" = "True"
check "m_same: not multimodal" test "$(field m_same multimodal)" = "False"
check "default margin 1 %" test "$(field m_same margin_pct)" = "1"
"$KVB" diff -d "$T/v.db" >"$T/table"
check "table has the cliff column" grep -q "| cliff |" "$T/table"
check "table says undecided with the CI half-width and a boots estimate" grep -Eq "undecided \(CI \+-[0-9.]+ %, ~[0-9]+ boots\)" "$T/table"
check "legend explains same" grep -q "same = the 95 % CI of the change lies within +-1 %" "$T/table"
check "footnote names the multimodal cell" grep -q "w m_modes new: 2 modes in 20 runs" "$T/table"
# The wide and --by layouts carry the same verdicts (issue 14), in every format: the file again with a
# constant cgroup_depth column (one by-value, "root", so the groups and verdicts are the ones above).
awk -F, 'NR == 1 { print $0 ",cgroup_depth"; next } { print $0 ",0" }' "$csv" >"$T/by.csv"
"$KVB" import csv "$T/by.csv" -d "$T/by.db" >/dev/null 2>&1
"$KVB" diff -d "$T/by.db" --layout wide >"$T/w" 2>/dev/null
wrow() { grep "| $1 " "$2" | tr -s ' '; }
check "wide: verdict column" grep -q "| new %change | *new verdict *|" "$T/w"
check "wide: m_same same" test "$(wrow "m_same (s)" "$T/w")" = "| w | m_same (s) | 100 ± 0.1% | 100 ± 0.1% | +0.00% | same |"
check "wide: m_worse worse" test "$(wrow "m_worse (s)" "$T/w")" = "| w | m_worse (s) | 100 ± 0.1% | 110 ± 0.1% | +10.00%* | worse |"
check "wide: m_undec undecided with boots" sh -c "grep '| m_undec (s) ' '$T/w' | grep -Eq '\| undecided \(CI \+-[0-9.]+ %, ~[0-9]+ boots\) +\|$'"
check "wide: the legend" grep -q "^verdict: better/worse" "$T/w"
"$KVB" diff -d "$T/by.db" --layout wide --format csv >"$T/wc" 2>/dev/null
check "wide csv: verdict column" test "$(head -1 "$T/wc")" = "workload,metric,base mean ± cov,new mean ± cov,new %change,new verdict"
check "wide csv: m_worse" grep -qx "w,m_worse (s),100 ± 0.1%,110 ± 0.1%,10,worse" "$T/wc"
"$KVB" diff -d "$T/by.db" --layout wide --format markdown >"$T/wm" 2>/dev/null
check "wide markdown: m_same" grep -qx "| w | m_same (s) | 100 ± 0.1% | 100 ± 0.1% | +0.00% | same |" "$T/wm"
"$KVB" diff -d "$T/by.db" --by cgroup_depth >"$T/b" 2>/dev/null
check "--by: the variant's cell carries its verdict" test "$(grep '| m_worse (s) .*| new ' "$T/b" | tr -s ' ')" = "| w | m_worse (s) | | new | 110 (+10.00%*) worse |"
check "--by: the baseline's cell has none" test "$(grep '| m_worse (s) .*| base ' "$T/b" | tr -s ' ')" = "| w | m_worse (s) | | base | 100 (0.00%) |"
check "--by: same" grep -q "| new *| *100 (+0.00%) same |" "$T/b"
"$KVB" diff -d "$T/by.db" --by cgroup_depth --format csv >"$T/bc" 2>/dev/null
check "--by csv: full precision and the verdict" grep -qx "w,m_worse (s),,new,110 (10) worse" "$T/bc"
"$KVB" diff -d "$T/by.db" --by cgroup_depth --format markdown >"$T/bm" 2>/dev/null
check "--by markdown: m_same" grep -qx "| w | m_same (s) |  | new | 100 (+0.00%) same |" "$T/bm"
"$KVB" diff -d "$T/by.db" --layout wide --by cgroup_depth --metric m_worse >"$T/wb" 2>/dev/null
check "wide --by: verdict column" test "$(grep '^| root ' "$T/wb" | tr -s ' ')" = "| root | 100(±0.07%) | 110(±0.07%) | +10.00%* | worse |"
"$KVB" diff -d "$T/by.db" --layout wide --by cgroup_depth --format csv >"$T/wbc" 2>/dev/null
check "wide --by csv: m_same same" grep -Eq "^w,m_same,,0,100,[0-9.]+,100,[0-9.]+,0,0,same$" "$T/wbc"
"$KVB" diff -d "$T/by.db" --layout wide --by cgroup_depth --metric m_same --margin 0.02 >"$T/wb2" 2>/dev/null
check "wide --by: --margin 0.02 makes m_same undecided there too" grep -Eq "^\| root .*\| undecided \(CI \+-[0-9.]+ %, ~[0-9]+ boots\) +\|$" "$T/wb2"
"$KVB" diff -d "$T/by.db" --layout wide --by cgroup_depth --format json >"$T/json" 2>/dev/null
check "wide --by json: the by-value and the verdicts" test "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print(" ".join(g["metric"] + "=" + g["cgroup_depth"] + ":" + [v["verdict"] for v in g["variants"] if v["variant"] == "new"][0] for g in d["groups"]))' "$T/json")" = "m_same=0:same m_worse=0:worse m_undec=0:undecided m_modes=0:undecided"
"$KVB" diff -d "$T/v.db" --format json --margin 0.02 >"$T/json"
check "--margin 0.02: m_same no longer fits" test "$(field m_same verdict)" = "undecided"
check "--margin in JSON" test "$(field m_same margin_pct)" = "0.02"
"$KVB" diff -d "$T/v.db" --margin -1 >/dev/null 2>&1; rc=$?
check "--margin -1 is a usage error" test "$rc" -eq 2
# kvbench plan, by hand for m_undec base: runs 100/104/97/101 + (-0.1 -0.05 0 0.05 0.1): S1^2 = 0.025/4,
# boot means' variance 25/3, T2^2 = 25/3 - S1^2/5 = 8.33208: boot sd 2.887/100.5 = 2.87 %, run sd 0.08 %;
# K&J runs/boot ceil(sqrt(40/2 x 0.00625/8.332)) = 1
"$KVB" plan -d "$T/v.db" --boot-cost 40 --run-cost 2 --metric m_undec >"$T/plan"; rc=$?
check "plan ok" test "$rc" -eq 0
check "plan: components, costs and K&J runs/boot by hand" \
  grep -Eq '^\| w +\| m_undec +\| base +\| +4 \| +5\.0 \| +100\.5 \| +2\.87 \| +0\.08 \| +40\.0 \| +2\.00 \| +1 \|' "$T/plan"
printf 'variant,workload,metric,value\na,w,m,1\na,w,m,2\nb,w,m,1\nb,w,m,2\n' >"$T/one.csv"
"$KVB" import csv "$T/one.csv" -d "$T/one.db" >/dev/null 2>&1
"$KVB" plan -d "$T/one.db" >/dev/null 2>"$T/err"; rc=$?
check "plan with one boot: exit 3 and says why" sh -c "test $rc -eq 3 && grep -q 'rounds 2' '$T/err'"
# the agenda's config.margins, per metric (an imported run keeps none: write one in)
"$KVB" query -d "$T/v.db" "select 1" >/dev/null
sqlite3 "$T/v.db" "update run set agenda_json = '{\"config\":{\"margins\":{\"m_same\":0.05,\"default\":3}}}'"
"$KVB" diff -d "$T/v.db" --format json >"$T/json"
check "agenda margin for m_same (0.05 %)" test "$(field m_same margin_pct)" = "0.05"
check "agenda default for the others (3 %)" test "$(field m_worse margin_pct)" = "3"
finish
