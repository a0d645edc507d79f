#!/usr/bin/env bash
# kvbench report in a real browser (Debian's headless chromium; ctest label "browser").
# Builds results DBs through the real paths (import csv of a dataset whose quartiles are
# worked out below, import energy of a probe_sim recording, a real rt-app run on this
# host), writes their report pages and has report_browser.py load each one from file://:
# no console message, no network request, every plot drawn with as many marks as data
# points, the known boxes' quartiles, a screenshot kept in build/test-artifacts/report/.
# Also util/cpufreq metrics imported as CSV (per-CPU dots, stacked frequency residency).
# A negative control (a page that logs, throws and fetches) must fail the same checks.
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
p=[x['plot'] for x in json.load(open(sys.argv[1]))['sections'] if 'plot' in x]
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
