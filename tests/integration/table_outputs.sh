#!/usr/bin/env bash
# One computed table, rendered by every output (issues 42.3, 41.4, 41.5):
#  - `diff --layout mail`: per metric, n once, `mean (±cov%)` and the % diff per variant, the verdict word,
#    the legend once at the end, two variants within 80 columns, a long label whole on its own line;
#  - rows for people in the order of what changed (better/worse, then undecided, then same; a count
#    last within its rank), csv in the order of the results;
#  - the report's diff table carries the job events' footnote marks as diff's does (notes passed, not a
#    global that only `diff` loaded), a banner when the host disturbed jobs, the summary rows ordered
#    and an unbounded or undecided cell with its reason;
#  - `report --format markdown` goes to stdout without -o and keeps no text about plots it does not draw.
# Values are imported; by hand (as tests/integration/mailtable.sh):
#   ops_per_sec root 98..102 vs 108..112: +10.00%*, better; level1 90..94 vs 90,92,92,92,94: +0.00%,
#   undecided (CI +-2.4 %); frames 1000 x5 both: same; slack base 0.1,-0.3,0.5,-0.2,0.2 (mean 0.06, sd 0.32:
#   not clear of 0) -> the CI of the % change is unbounded: undecided with that reason.
. "$(dirname "$0")/lib.sh"
long=list_view_with_a_rather_long_test_name
{
  echo "variant,workload,metric,value,units,lower_is_better,iteration,cgroup_depth,test_name"
  i=0; for x in 1000 1000 1000 1000 1000; do i=$((i+1)); echo "base,jankbench,frames,$x,count,0,$i,,$long"; done
  i=0; for x in 1000 1000 1000 1000 1000; do i=$((i+1)); echo "patch,jankbench,frames,$x,count,0,$i,,$long"; done
  i=0; for x in 0.1 -0.3 0.5 -0.2 0.2; do i=$((i+1)); echo "base,jankbench,slack,$x,ms,0,$i,,$long"; done
  i=0; for x in 0.2 -0.1 0.6 -0.3 0.1; do i=$((i+1)); echo "patch,jankbench,slack,$x,ms,0,$i,,$long"; done
  i=0; for x in 98 99 100 101 102; do i=$((i+1)); echo "base,sched_pipe,ops_per_sec,$x,ops/s,0,$i,0,"; done
  i=0; for x in 108 109 110 111 112; do i=$((i+1)); echo "patch,sched_pipe,ops_per_sec,$x,ops/s,0,$i,0,"; done
  i=0; for x in 90 91 92 93 94; do i=$((i+1)); echo "base,sched_pipe,ops_per_sec,$x,ops/s,0,$i,1,"; done
  i=0; for x in 90 92 92 92 94; do i=$((i+1)); echo "patch,sched_pipe,ops_per_sec,$x,ops/s,0,$i,1,"; done
} >"$T/seed.csv"
"$KVB" import csv "$T/seed.csv" -d "$T/s.db" >/dev/null 2>&1
norm() { tr -s ' ' | sed 's/^ //'; }

# --- the mail layout
"$KVB" diff -d "$T/s.db" --layout mail --by cgroup_depth --metric ops_per_sec >"$T/m1" 2>"$T/e1"; rc=$?
check "--layout mail: exit 0 (rc $rc)" test "$rc" -eq 0
check "mail: title with the direction and n once" grep -qx "sched_pipe ops_per_sec (ops/s), higher is better; mean (±cov), n=5" "$T/m1"
check "mail: the root row, mean (±cov) per variant, diff with its mark, the verdict word" \
  test "$(grep '^root ' "$T/m1" | norm)" = "root 100 (±1.58%) 110 (±1.44%) +10.00%* better"
check "mail: level1 undecided, without the long layout's CI text" \
  test "$(grep '^level1 ' "$T/m1" | norm)" = "level1 92 (±1.72%) 92 (±1.54%) +0.00% undecided"
check "mail: no n in the rows (shown once)" sh -c "! grep -E '^(root|level1) .*n=' '$T/m1'"
"$KVB" diff -d "$T/s.db" --layout mail >"$T/m2" 2>/dev/null
check "mail: one table per metric (3)" test "$(grep -c ' is better; ' "$T/m2")" = 3
check "mail: the legend once, at the end" sh -c "test \$(grep -c '^better/worse: a real change' '$T/m2') = 1 && tail -6 '$T/m2' | grep -q 'undecided'"
check "mail: two variants within 80 columns" python3 -c "import sys; sys.exit(max(len(l.rstrip('\n')) for l in open('$T/m2', encoding='utf-8')) > 80)"
check "mail: a long label whole, on its own line" grep -qx "test_name=$long" "$T/m2"
check "mail: no trailing blanks" sh -c "! grep -q ' \$' '$T/m2'"
# a metric with no direction (utilisation: lower_is_better -1) is not titled "lower is better"
{
  echo "variant,workload,metric,value,units,lower_is_better,iteration"
  for v in base patch; do i=0; for x in 40 42 44 46 48; do i=$((i+1)); echo "$v,sched_pipe,util_mean,$x,%,-1,$i"; done; done
} >"$T/util.csv"
"$KVB" import csv "$T/util.csv" -d "$T/u.db" >/dev/null 2>&1
"$KVB" diff -d "$T/u.db" --layout mail >"$T/m4" 2>/dev/null
check "mail: utilisation has no direction: $(head -1 "$T/m4")" \
  grep -qx "sched_pipe util_mean (%), neither is better; mean (±cov), n=5" "$T/m4"
check "mail: tables in the order of what changed (ops_per_sec, slack, frames)" \
  test "$(grep ' is better; ' "$T/m2" | cut -d' ' -f2 | tr '\n' ' ')" = "ops_per_sec slack frames "
"$KVB" diff -d "$T/s.db" --layout mail --format markdown >"$T/m3" 2>/dev/null
check "mail, markdown: fenced as a code block" sh -c "test \"\$(head -1 '$T/m3')\" = '\`\`\`' && test \"\$(tail -1 '$T/m3')\" = '\`\`\`'"
"$KVB" diff -d "$T/s.db" --layout mail --format csv >/dev/null 2>"$T/e4"; rc=$?
check "mail with csv: a usage error that says why (rc $rc)" sh -c "test $rc -eq 2 && grep -q 'every column' '$T/e4'"
"$KVB" diff -d "$T/s.db" --layout tall >/dev/null 2>"$T/e5"; rc=$?
check "an unknown layout names the three (rc $rc)" sh -c "test $rc -eq 2 && grep -q 'long, wide or mail' '$T/e5'"

# --- a metric name a letter off (the thread's jank_perc for jank_pct): did you mean
"$KVB" diff -d "$T/s.db" --metric slak --layout mail >/dev/null 2>"$T/e6"; rc=$?
check "--metric slak: exit 3 and did you mean 'slack' (rc $rc)" sh -c "test $rc -eq 3 && grep -qF -- \"--metric slak: (did you mean 'slack'?)\" '$T/e6'"

# --- the order of rows: what changed first for people, the results' order for scripts
"$KVB" diff -d "$T/s.db" >"$T/d1" 2>/dev/null
verdicts=$(grep '| patch ' "$T/d1" | awk -F'|' '{print $(NF-1)}' | awk '{print $1}' | tr '\n' ' ')
check "table: better, then undecided, then same (got: $verdicts)" test "$verdicts" = "better undecided undecided same "
check "table: frames (count), loaded first, is not the first row" sh -c "! grep -m1 '| base ' '$T/d1' | grep -q frames"
check "table: an unbounded CI says why (one boot a side: the runs are the unit)" grep -q "undecided (the baseline varies so much between runs that its CI reaches 0: the % change could be any size; more runs (iterations) narrow it)" "$T/d1"
"$KVB" diff -d "$T/s.db" --format csv >"$T/d2" 2>/dev/null
check "csv: the order of the results (frames first)" test "$(sed -n 2p "$T/d2" | cut -d, -f2)" = "frames (count)"

# --- footnote marks and the disturbance banner in the report, as in diff
job=$(sqlite3 "$T/s.db" "SELECT j.id FROM job j JOIN variant v ON v.id = j.variant_id JOIN classifier c ON c.job_id = j.id
  WHERE v.name = 'patch' AND j.workload = 'sched_pipe' AND c.key = 'cgroup_depth' AND c.value = '0' LIMIT 1")
sqlite3 "$T/s.db" "INSERT INTO event (run_id, t_ns, level, message, job_id) VALUES (1, 1, 'warning', 'thermal throttling seen', $job);
  INSERT INTO witness (run_id, job_id, t_ns, kind, subject, expected, observed, verdict, detail, attempt)
  VALUES (1, $job, 1, 'host', 'cpu pressure', '< 10', '42.0', 'disturbed', 'test', 1),
         (1, $job, 2, 'host', 'cpu pressure', '< 10', '1.0', 'ok', 'test', NULL)"
"$KVB" diff -d "$T/s.db" --metric ops_per_sec >"$T/d3" 2>/dev/null
check "diff: the footnote mark and its note" sh -c "grep -q '| patch \[1\] ' '$T/d3' && grep -q '^\[1\] warning: patch, sched_pipe, job $job: thermal throttling seen' '$T/d3'"
"$KVB" report -d "$T/s.db" --format markdown >"$T/r1" 2>"$T/re1"; rc=$?
check "report --format markdown without -o: to stdout (rc $rc)" sh -c "test $rc -eq 0 && grep -q '^## Comparison' '$T/r1'"
check "report: its diff table carries the footnote mark" grep -q "| patch \[1\] |" "$T/r1"
check "report: and the note under it" grep -q "\[1\] warning: patch, sched_pipe, job $job: thermal throttling seen" "$T/r1"
# one message on many jobs is one footnote naming them, not one per job (16 jobs without cpufreq
# gave 16 identical lines): every base sched_pipe job gets the same warning
sqlite3 "$T/s.db" "INSERT INTO event (run_id, t_ns, level, message, job_id)
  SELECT 1, 2, 'warning', 'meter missing', j.id FROM job j JOIN variant v ON v.id = j.variant_id
  WHERE v.name = 'base' AND j.workload = 'sched_pipe' AND j.status = 'ok'"
nbase=$(sqlite3 "$T/s.db" "SELECT count(*) FROM job j JOIN variant v ON v.id = j.variant_id WHERE v.name = 'base' AND j.workload = 'sched_pipe' AND j.status = 'ok'")
"$KVB" diff -d "$T/s.db" --metric ops_per_sec >"$T/d4" 2>/dev/null
check "diff: $nbase jobs' one message is one footnote" test "$(grep -c 'meter missing' "$T/d4")" = 1
check "diff: it counts and names the jobs" grep -Eq "^\[2\] warning, $nbase jobs \(base jobs [0-9,-]+; sched_pipe\): meter missing$" "$T/d4"
check "diff: every base cell carries its mark once" sh -c "! grep '| base ' '$T/d4' | grep -qv '\[2\]' && ! grep -q '\[2,2' '$T/d4'"
# -f is --format, as in show and query
"$KVB" diff -d "$T/s.db" -f json >"$T/d6" 2>/dev/null
check "diff -f json: the JSON document" python3 -c "import json,sys; assert json.load(open(sys.argv[1]))['schema_version'] >= 1" "$T/d6"
# a job whose instrument failed is compared on its workload's numbers: the variant's note says so
ijob=$(sqlite3 "$T/s.db" "SELECT j.id FROM job j JOIN variant v ON v.id = j.variant_id WHERE v.name = 'base' AND j.status = 'ok' LIMIT 1")
sqlite3 "$T/s.db" "UPDATE job SET status = 'instrument-failed', error = 'instrument ''energy'': gone' WHERE id = $ijob"
"$KVB" diff -d "$T/s.db" --metric ops_per_sec >"$T/d5" 2>&1
check "diff: the note counts the job compared without its instrument" \
  grep -Eq "^note: variant 'base' [0-9]+ of [0-9]+ jobs ok, 1 more compared without an instrument that failed \(run 1 [a-z]+\); first error: instrument 'energy': gone" "$T/d5"
sqlite3 "$T/s.db" "UPDATE job SET status = 'ok', error = NULL WHERE id = $ijob"
check "report: the disturbance banner before the comparison" \
  test "$(grep -n '^## ' "$T/r1" | head -2 | cut -d' ' -f2- | tr '\n' '/')" = "Host disturbance/Comparison/"
check "report: the banner says how many jobs" grep -q "1 of 1 job(s) disturbed by the host (cpu pressure 42 %): 1 re-run clean" "$T/r1"
check "report markdown: no text about plots it does not draw" sh -c "! grep -qiE 'hover|whisker|as a dot|is better\$' '$T/r1'"
"$KVB" report -d "$T/s.db" >/dev/null 2>"$T/re2"; rc=$?
check "report html still needs -o (rc $rc)" sh -c "test $rc -eq 2 && grep -q -- '-o FILE is required for --format html' '$T/re2'"
"$KVB" report -d "$T/s.db" -o "$T/r.html" 2>/dev/null
check "report html: the banner" grep -q '<h2 id="disturbance">Host disturbance</h2>' "$T/r.html"
python3 - "$T/r.html" >"$T/forest" <<'EOF'
import json, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
for m in re.finditer(r'<script type="application/json">(.*?)</script>', page, re.S):
    try:
        spec = json.loads(m.group(1).replace("<\\/", "</"))
    except ValueError:
        continue
    if isinstance(spec, dict) and spec.get("kind") == "forest":
        for r in spec["rows"]:
            print("%s\t%s\t%s\t%s" % (r["metric"], r["verdict"], r["verdict_text"], r["cls_full"]))
EOF
check "forest: rows better, undecided, undecided, same" test "$(cut -f2 "$T/forest" | tr '\n' ' ')" = "better undecided undecided same "
check "forest: the unbounded cell's reason" grep -q "	undecided (the baseline varies so much between runs that its CI reaches 0: the % change could be any size; more runs (iterations) narrow it)	" "$T/forest"
check "forest: the undecided cell's CI" grep -q "	undecided (CI +-2.4 %, ~29 runs)	" "$T/forest"
check "forest: the whole label for the page to wrap" grep -q "	test_name=$long\$" "$T/forest"
# --- the front page (a new user's try: 237 rows after a run on a simulated board): the workload's own
# metric and energy, not the instruments' per-CPU rows, which one line counts and --all shows
{
  echo "variant,workload,metric,value,units,lower_is_better,iteration,cpu,chan_name"
  for v in base patch; do for i in 1 2 3 4 5; do
    echo "$v,sched_pipe,ops_per_sec,$((100 + i)),ops/s,0,$i,,"
    echo "$v,sched_pipe,energy,$i.5,J,1,$i,,big"
    echo "$v,sched_pipe,power_mean,$((300 + i)),mW,1,$i,,big"
    for c in 0 1 2 3; do echo "$v,sched_pipe,util_mean,$((40 + i + c)),%,-1,$i,$c,"; done
  done; done
} >"$T/front.csv"
"$KVB" import csv "$T/front.csv" -d "$T/f.db" >/dev/null 2>&1
"$KVB" diff -d "$T/f.db" >"$T/f1" 2>&1; rc=$?
check "front page: exit 0 (rc $rc)" test "$rc" -eq 0
check "  the workload's metric and energy" sh -c "grep -q 'ops_per_sec' '$T/f1' && grep -q '| energy ' '$T/f1'"
check "  no instrument rows" test "$(grep -c '| util_mean\|| power_mean' "$T/f1")" = 0
check "  one line counting them and naming --all" grep -qx "5 more metric group(s) of the instruments (power_mean, util_mean): \`kvbench diff --all\` shows every one" "$T/f1"
"$KVB" diff -d "$T/f.db" --all >"$T/f2" 2>&1
check "--all: every group (4 util_mean rows a variant)" test "$(grep -c '| util_mean' "$T/f2")" = 8
"$KVB" diff -d "$T/f.db" --format json >"$T/f3" 2>&1
check "json: every group, front page or not" python3 -c "import json; d=json.load(open('$T/f3')); import sys; sys.exit(sum(1 for g in d['groups'] if g['metric']=='util_mean') != 4)"
finish
