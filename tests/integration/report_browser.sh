#!/usr/bin/env bash
# kvbench report in a real browser (Debian's headless chromium; ctest label "browser").
# Builds results DBs through the real paths (import csv of a dataset whose quartiles are
# worked out below, import energy of a probe_sim recording, a real rt-app run on this
# host), writes their report pages and has report_browser.py load each one from file://:
# no console message, no network request, every plot drawn with as many marks as data
# points, the known boxes' quartiles, a screenshot kept in build/test-artifacts/report/.
# Also util/cpufreq metrics imported as CSV (per-CPU dots, stacked frequency residency).
# A negative control (a page that logs, throws and fetches) must fail the same checks.
# Summary pages (issue 30): the forest plot's dots and CI whiskers against `diff --format json`,
# the --metric/--variant filters, no title or tick label outside its svg, no constant line on
# its frame, mmtests quantile rows, metric vs cgroup_depth, energy vs performance, a --series
# DB's per-commit plot with its change point. Screenshots: build/test-artifacts/report/*.png.
. "$(dirname "$0")/lib.sh"
SIM=${KVB_BUILD_DIR:-build}/tests/sim/probe_sim
ART=${KVB_BUILD_DIR:-build}/test-artifacts/report
CHECK="python3 $(dirname "$0")/report_browser.py"
mkdir -p "$ART"
command -v chromium >/dev/null || { echo "report_browser: chromium is not installed (scripts/setup)" >&2; exit 1; }

# Quartiles as d3.quantile computes them (linear between order statistics, R type 7:
# h = (n - 1) p, x[floor h] + (h - floor h)(x[floor h + 1] - x[floor h])).
#   a = 1 3 4 8 | 9 12 15 20 (boots 1, 2), n 8: q1 h 1.75 -> 3 + .75 (4 - 3) = 3.75,
#       median h 3.5 -> 8 + .5 (9 - 8) = 8.5, q3 h 5.25 -> 12 + .25 (15 - 12) = 12.75
#   b = 10 11 13 14 18, n 5: q1 h 1 -> 11, median h 2 -> 13, q3 h 3 -> 14
{
  echo "variant,workload,metric,value,units,lower_is_better,iteration,boot"
  i=0; for v in 1 3 4 8 9 12 15 20; do i=$((i + 1)); echo "a,bench,time,$v,s,1,$i,$(( i <= 4 ? 1 : 2 ))"; done
  i=0; for v in 10 11 13 14 18; do i=$((i + 1)); echo "b,bench,time,$v,s,1,$i,$(( i <= 2 ? 1 : 2 ))"; done
} >"$T/known.csv"
"$KVB" import csv "$T/known.csv" -d "$T/k.db" >/dev/null
"$SIM" csv --channels 4 --rate 1000 --duration 20 --power wave:1.5:0.5:3 -o "$T/probe.csv"
"$KVB" import energy "$T/probe.csv" --job 1 -d "$T/k.db" >/dev/null   # a, iteration 1
"$KVB" import energy "$T/probe.csv" --job 9 -d "$T/k.db" >/dev/null   # b, iteration 1
"$KVB" report -d "$T/k.db" -o "$T/known.html"
check "report of the known dataset exits 0" test $? -eq 0
check "its power traces are decimated to 1000 points" \
  test "$(grep -o '"t":\[[^]]*\]' "$T/known.html" | head -1 | tr ',' '\n' | wc -l)" -eq 1000
$CHECK "$T/known.html" "$ART" --boxes '{"bench time (s)|a": [3.75, 8.5, 12.75], "bench time (s)|b": [11, 13, 14]}'
check "known dataset page: browser checks pass" test $? -eq 0

# The summary page (issue 30): three variants, hackbench swept over cgroup_depth, sched_pipe
# ops_per_sec around -80,000 (ticks that ran together as -90,000-80,000), rt-app slack per
# tasks set (the whole tasks JSON was a 100-character title), constant power on two channels
# (lines that lay on the frame) and energy per job (energy against performance).
python3 - "$T/sum.csv" <<'PY'
import random, sys
random.seed(3)
big = '[{"name":"big","instances":2,"period_us":16000,"duty_pct":60},{"name":"small","instances":4,"period_us":8000,"duty_pct":10}]'
one = '[{"name":"big","instances":1,"period_us":16000,"duty_pct":60,"cpus":[4,5,6,7],"policy":"SCHED_OTHER"}]'
rows = ["variant,workload,metric,value,units,lower_is_better,iteration,boot,cgroup_depth,tasks"]
for v, k in (("base", 1.0), ("patched-with-a-long-name-for-the-legend", 0.93), ("other", 1.005)):
    for b in (1, 2, 3):
        for i in range(1, 5):
            for d in range(4):
                rows.append("%s,hackbench,time,%.4f,s,1,%d,%d,%d," % (v, random.gauss(10 * (1 + 0.1 * d) * k, 0.15), i, b, d))
            rows.append("%s,sched_pipe,ops_per_sec,%.1f,ops/s,0,%d,%d,," % (v, random.gauss(-80000 * (k if v != "other" else 1), 900), i, b))
            for t in (big, one):
                rows.append('%s,rt-app,slack_mean,%.2f,us,0,%d,%d,,"%s"' % (v, random.gauss(300 * k, 8), i, b, t.replace('"', '""')))
open(sys.argv[1], "w").write("\n".join(rows) + "\n")
PY
"$KVB" import csv "$T/sum.csv" -d "$T/sum.db" >/dev/null
"$SIM" csv --channels 2 --rate 100 --duration 5 --power const:1.5 -o "$T/c15.csv"
"$SIM" csv --channels 2 --rate 100 --duration 5 --power const:1.2 -o "$T/c12.csv"
for v in base patched-with-a-long-name-for-the-legend other; do
  n=0
  for j in $(q "$T/sum.db" "select j.id from job j join variant v on v.id = j.variant_id where v.name = '$v' and j.workload = 'hackbench' order by j.id limit 3"); do
    n=$((n + 1)); f=$T/c15.csv; [ "$v" != base ] && [ $n -gt 1 ] && f=$T/c12.csv
    "$KVB" import energy "$f" --job "$j" -d "$T/sum.db" >/dev/null
  done
done
# frame durations of 0.1 to 1 s (keep_frames artifacts of two jobs): x ticks of 100,000-1,000,000
for v in base other; do
  j=$(q "$T/sum.db" "select min(j.id) from job j join variant v on v.id = j.variant_id where v.name = '$v'")
  awk -v v="$v" 'BEGIN { print "test_name,rep,frame,total_duration_ms"; for (i = 0; i < 50; i++) print "slow_test,0," i "," 100000 + i * 18000 + (v == "other") * 9000 }' >"$T/frames-$v.csv"
  sqlite3 "$T/sum.db" "INSERT INTO artifact(job_id, run_id, kind, path) VALUES ($j, 1, 'jankbench-frames', '$T/frames-$v.csv')"
done
"$KVB" report -d "$T/sum.db" -o "$T/summary.html"
check "summary report exits 0" test $? -eq 0
"$KVB" diff -d "$T/sum.db" --format json >"$T/sum-diff.json"
"$KVB" report -d "$T/sum.db" -o - --format json >"$T/sum-page.json"
check "the page opens with the summary; quantiles, sweep and energy-vs-performance follow the table" python3 -c "
import json,sys
s=json.load(open(sys.argv[1]))['sections']
h=[x.get('heading') or x['plot']['kind'] for x in s if 'heading' in x or 'plot' in x]
assert h[:3]==['Summary','forest','Comparison'], h[:3]
for want in ('Quantiles per variant (mmtests compare-kernels)','Metrics against a swept classifier','Energy against performance'):
    assert want in h, (want, h)
sw=[x['plot'] for x in s if x.get('plot',{}).get('title','').startswith('hackbench time vs cgroup_depth')]
assert len(sw)==1 and [x['t'] for x in sw[0]['series']]==[[0,1,2,3]]*3, sw
sc=[x['plot'] for x in s if x.get('plot',{}).get('kind')=='scatter']
assert sc and all(len(p['points'])==3 for p in sc), sc" "$T/sum-page.json"
check "quantile rows per variant: Min, quartiles, Max, Hmean, Amean equal to diff's min, median, max, hmean, mean" python3 -c "
import json,sys
s=json.load(open(sys.argv[1]))['sections']; d=json.load(open(sys.argv[2]))
rows=[x for x in s if x.get('id')=='quantiles'][0]['rows']
g=d['groups'][0]; r={x['stat']:x for x in rows if x['workload']==g['workload'] and x['metric'].startswith(g['metric']) and x['classifiers']==' '.join('%s=%s'%(k,v) for k,v in g['classifiers'].items() if k=='cgroup_depth')}
for v in g['variants']:
    for stat,key in (('Min','min'),('2nd-qrtle','median'),('Max','max'),('Hmean','hmean'),('Amean','mean')):
        assert abs(r[stat][v['variant']]-v[key])<1e-9*abs(v[key]), (stat, v['variant'], r[stat][v['variant']], v[key])" "$T/sum-page.json" "$T/sum-diff.json"
check "long classifiers are shortened with their full text kept: tasks=[big,small]#hash" \
  sh -c "grep -q 'tasks=\[big,small\]#[0-9a-f]\{6\}' '$T/summary.html' && grep -q 'title=\"tasks=\[{&quot;name&quot;:&quot;big&quot;' '$T/summary.html'"
check "frame, power and metric plots are folded per workload with a per-variant line" \
  sh -c "grep -q '<details class=\"kvb-fold\"><summary>hackbench: 2 power plots \\|<details class=\"kvb-fold\"><summary>hackbench: [0-9]* power plots' '$T/summary.html' && grep -q '<summary>hackbench: [0-9]* metric plots' '$T/summary.html'"
nrows=$(python3 -c "import json,sys; print(sum(1 for g in json.load(open(sys.argv[1]))['groups'] for v in g['variants'] if 'diff_pct' in v))" "$T/sum-diff.json")
$CHECK "$T/summary.html" "$ART" --diff-json "$T/sum-diff.json" --forest-rows "$nrows"
check "summary page: browser checks pass (forest against diff's JSON, no overflow)" test $? -eq 0

# Filters: only hackbench time and one variant (the baseline stays); the forest holds just those.
"$KVB" report -d "$T/sum.db" -o "$T/filtered.html" --metric 'ti*' --variant 'patched*'
check "filtered report exits 0" test $? -eq 0
"$KVB" report -d "$T/sum.db" -o - --format json --metric 'ti*' --variant 'patched*' >"$T/filtered.json"
check "filtered page: forest rows are hackbench time of the patched variant only, 4 cgroup depths" python3 -c "
import json,sys
s=json.load(open(sys.argv[1]))['sections']
f=[x['plot'] for x in s if x.get('plot',{}).get('kind')=='forest'][0]
assert sorted((r['metric'],r['variant']) for r in f['rows'])==[('time','patched-with-a-long-name-for-the-legend')]*4, f['rows']
assert not any(x.get('plot',{}).get('kind')=='lines' and 'job' in x['plot'] for x in s), 'power traces shown'
assert 'sched_pipe' not in json.dumps(s) and '\"other\"' not in json.dumps([x for x in s if 'plot' in x])" "$T/filtered.json"
"$KVB" diff -d "$T/sum.db" --metric 'ti*' --format json >"$T/filtered-diff.json"
python3 -c "
import json,sys
d=json.load(open(sys.argv[1]))
for g in d['groups']: g['variants']=[v for v in g['variants'] if v['variant']!='other']
json.dump(d,open(sys.argv[1],'w'))" "$T/filtered-diff.json"
$CHECK "$T/filtered.html" "$ART" --diff-json "$T/filtered-diff.json" --forest-rows 4
check "filtered page: browser checks pass" test $? -eq 0
"$KVB" report -d "$T/sum.db" -o "$T/none.html" --workload nosuch 2>"$T/none.err"; rc=$?
check "a filter nothing passes: exit 3, said" sh -c "test $rc -eq 3 && grep -q 'no result passes' '$T/none.err'"

# Per-commit plot of a --series DB (variant_build rows as run --series writes them): commit 3 shifts.
{
  echo "variant,workload,metric,value,units,lower_is_better,boot"
  for c in 0 1 2 3 4 5; do for b in 1 2; do for i in 0 1 2; do
    echo "c$c,sched_pipe,usecs_per_op,$(( (c < 3 ? 70 : 140) + (b == 1 ? 2 : -1) + i )).$c,us,1,$b"
  done; done; done
} >"$T/series.csv"
"$KVB" import csv "$T/series.csv" -d "$T/series.db" >/dev/null
for c in 0 1 2 3 4 5; do
  sha=$(printf 'c%039d' "$c")
  sqlite3 "$T/series.db" "INSERT INTO variant_build(variant_id, repo, rev, commit_sha, subject, series_pos, config_hash)
    SELECT id, '/repo', '$sha', '$sha', 'commit $c', $c, '0123456789abcdef' FROM variant WHERE name = 'c$c'"
done
# and a bisect of it (steps as `kvbench bisect` records them): good c0, bad c5, first bad c3
sqlite3 "$T/series.db" "INSERT INTO bisect(id, repo, good_sha, bad_sha, metric, threshold_pct, max_rounds, platform,
    status, first_bad_sha, started_ns) VALUES (1, '/repo', 'c0', 'c5', 'sched_pipe/usecs_per_op', 5, 4, 'qemu', 'done', 'c3', 0);
  INSERT INTO bisect_step(bisect_id, step, commit_sha, outcome, value) VALUES
    (1, 1, 'c2', 'good', 71.2), (1, 2, 'c4', 'bad', 141.4), (1, 3, 'c3', 'bad', 141.3);"
"$KVB" report -d "$T/series.db" -o "$T/series.html"
check "series report exits 0" test $? -eq 0
"$KVB" report -d "$T/series.db" -o - --format json >"$T/series.json"
check "series page: usecs_per_op along the 6 commits, every run a dot, the shift at commit 3; the bisect's steps, first bad marked" python3 -c "
import json,sys
s=json.load(open(sys.argv[1]))['sections']
a=[x['plot'] for x in s if x.get('plot',{}).get('kind')=='along']
assert a[0]['changes']==['c3'] and len(a[0]['series'][0]['y'])==36, a
b=[p for p in a if p['title'].startswith('bisect 1:')]
assert len(a)==2 and b[0]['xorder']==['1: c2','2: c4','3: c3'] and b[0]['changes']==['3: c3'], b
assert sorted((x['name'], x['y']) for x in b[0]['series'])==[('bad',[141.4,141.3]),('good',[71.2])], b" "$T/series.json"
$CHECK "$T/series.html" "$ART"
check "series page: browser checks pass" test $? -eq 0

# Per-CPU utilisation and frequency residency (metrics of the util and cpufreq instruments).
{
  echo "variant,workload,metric,value,units,lower_is_better,iteration,boot,cpu,cluster,freq_mhz"
  for v in a b; do for i in 1 2 3; do for c in 0 1; do
    echo "$v,bench,util_mean,$((10 * i + c)),%,0,$i,1,$c,,"; done; done; done
  echo "a,bench,freq_residency,60,%,0,1,1,,little,500"; echo "a,bench,freq_residency,40,%,0,1,1,,little,1000"
  echo "a,bench,freq_residency,40,%,0,2,1,,little,500"; echo "a,bench,freq_residency,60,%,0,2,1,,little,1000"
  echo "b,bench,freq_residency,20,%,0,1,1,,little,500"; echo "b,bench,freq_residency,80,%,0,1,1,,little,1000"
} >"$T/cpu.csv"
"$KVB" import csv "$T/cpu.csv" -d "$T/cpu.db" >/dev/null
"$KVB" report -d "$T/cpu.db" -o "$T/cpu.html"
check "cpu report exits 0" test $? -eq 0
"$KVB" report -d "$T/cpu.db" -o - --format json >"$T/cpu.json"
check "util per (CPU, variant) and residency averaged per frequency (a: 60/40 and 40/60 -> 50/50)" \
  python3 -c "
import json,sys
p=[x['plot'] for x in json.load(open(sys.argv[1]))['sections'] if 'plot' in x and x['plot']['kind'] in ('dotbox', 'stack')]
assert [(g['name'], g['values']) for g in p[0]['groups']] == [('cpu0 a', [10,20,30]), ('cpu0 b', [10,20,30]), ('cpu1 a', [11,21,31]), ('cpu1 b', [11,21,31])], p[0]
assert [(b['name'], [(q['name'], q['value']) for q in b['parts']]) for b in p[1]['bars']] == [('a', [('500', 50), ('1000', 50)]), ('b', [('500', 20), ('1000', 80)])], p[1]" "$T/cpu.json"
$CHECK "$T/cpu.html" "$ART"
check "cpu page: browser checks pass" test $? -eq 0

# A real rt-app run on this host: slack and wake-up latency CDFs per task from its logs.
# (Its own workdir: the shipped local platform's is shared with any other run 1 on this host.)
mkdir -p "$T/local"
printf 'name: rtlocal\nconnection: {type: local}\nworkdir: %s/work\n' "$T" >"$T/local/platform.yaml"
cat >"$T/rt.yaml" <<YAML
config: {iterations: 1}
workloads:
  - name: rt-app
    params:
      duration_s: 1
      calibration: CPU0
      tasks:
        - {name: small, instances: 2, period_us: 10000, duty_pct: 20}
variants:
  - {name: one, cpus: "0"}
  - {name: two, cpus: "0-1"}
YAML
"$KVB" run "$T/rt.yaml" -p "$T/local" -d "$T/rt.db" --no-diff >"$T/rt.out" 2>&1
# Under heavy load an rt-app attempt can time out (retried); one finished job is enough here.
ok_jobs=$(q "$T/rt.db" "select count(*) from job where status = 'ok'")
check "an rt-app job finished" test "${ok_jobs:-0}" -ge 1
[ "${ok_jobs:-0}" -ge 1 ] || cat "$T/rt.out" >&2
"$KVB" report -d "$T/rt.db" -o "$T/rt-app.html"
check "rt-app report exits 0" test $? -eq 0
check "rt-app page has slack and wake-up latency CDFs" \
  sh -c "grep -q '\"kind\":\"cdf\",\"title\":\"small: slack CDF\"' '$T/rt-app.html' && grep -q 'small: wake-up latency CDF' '$T/rt-app.html'"
# rt-app declares its wake-up latency plots log-x (rt_app.c: plots); its slack CDFs stay linear (negative slack)
"$KVB" report -d "$T/rt.db" -o - --format json >"$T/rt-app.json"
check "rt-app wake-up latency CDFs are log-x, slack CDFs are not" python3 -c "
import json,sys
c=[x['plot'] for x in json.load(open(sys.argv[1]))['sections'] if x.get('plot',{}).get('kind')=='cdf']
w=[p for p in c if 'wake-up latency' in p['title']]; s=[p for p in c if 'slack' in p['title']]
assert w and s and all(p.get('xlog') for p in w) and not any(p.get('xlog') for p in s), c" "$T/rt-app.json"
# a declared metric's plot says on hover what it is (rt_app.c: metrics), under its stored name
check "rt-app metric plots carry the declared description as hover text" python3 -c "
import json,sys
d=[x['plot'] for x in json.load(open(sys.argv[1]))['sections'] if x.get('plot',{}).get('kind')=='dotbox']
p=[p for p in d if p['title'].startswith('rt-app wu_lat_p99 (us)')]
assert p and all('rt-app wu_lat_p99: 99th percentile wake-up latency, per task' in q.get('tip','') for q in p), d" "$T/rt-app.json"
$CHECK "$T/rt-app.html" "$ART"
check "rt-app page: browser checks pass" test $? -eq 0

# Negative control: the checker must catch a console error, an exception and a request.
cat >"$T/bad-page.html" <<'HTML'
<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>
<img src="http://127.0.0.1:9/x.png"><script>console.error("boom"); missingFunction();</script></body></html>
HTML
$CHECK "$T/bad-page.html" "$T/neg" >"$T/neg.out" 2>&1
check "negative control fails the checks" test $? -ne 0
check "negative control: console and request both seen" \
  sh -c "grep -q 'FAIL no console messages' '$T/neg.out' && grep -q 'FAIL no network request' '$T/neg.out'"
finish
