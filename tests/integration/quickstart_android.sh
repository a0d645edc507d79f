#!/usr/bin/env bash
# scripts/quickstart --android's demo (scripts/android-sim) end to end: Jankbench and an ACME
# probe on the SIMULATED HiKey960 (adbd_sim, fastboot_sim, probe_sim as iio-capture, the
# simulated app), two simulated kernels that differ in frame times and power. The thread's
# tables come out with the directions the simulated kernels were given (pelt4-sim: faster
# frames, less jank, more power), every boot ran its own kernel, and the page opens with the
# summary, checked in headless chromium against diff's JSON (screenshot:
# build/test-artifacts/report/android.png). Everything simulated says so.
. "$(dirname "$0")/lib.sh"
ART=${KVB_BUILD_DIR:-build}/test-artifacts/report
command -v chromium >/dev/null || { echo "quickstart_android: chromium is not installed (scripts/setup)" >&2; exit 1; }
db=$T/android.db
export KVB_SIM_DIR=$T/sim XDG_CONFIG_HOME=$T/config # the kept board (scripts/sim-board) lives in $T
trap '"$SRC/scripts/sim-board" stop hikey960 >/dev/null 2>&1; adb -P "$ANDROID_ADB_SERVER_PORT" kill-server >/dev/null 2>&1; rm -rf "$T"' EXIT
KVB_BUILD_DIR=$(realpath "${KVB_BUILD_DIR:-build}") "$SRC/scripts/android-sim" "$db" "$T/android.html" >"$T/out" 2>"$T/err"; rc=$?
check "scripts/android-sim exits 0 (rc $rc)" test "$rc" -eq 0
[ "$rc" -eq 0 ] || tail -40 "$T/err" >&2
check "the board it started is stopped after a finished run" sh -c "! '$SRC/scripts/sim-board' status hikey960 >/dev/null"
cat "$T/out" >&2
for t in "Max frame durations" "Mean frame duration" "Jank percentage" "Power usage \[mW\]" "Energy per job \[J\]"; do
  check "prints the table: $t (labelled simulated)" grep -q "== $t.*SIMULATED" "$T/out"
done
check "4 boots, each on its own simulated kernel" test "$(q "$db" "select count(*) from boot b join variant v on v.id = b.variant_id where b.status = 'ok' and b.running_release = '6.6.0-sim-' || replace(v.name, '-sim', '')")" = "4"
check "every job ok (the warm-up after each boot too)" test "$(q "$db" "select count(*) from job where status not in ('ok', 'warmup')")" = "0"
check "mean frame duration: pelt4-sim lower, verdict better" grep -Eq "frame_duration_mean \(ms\) .*pelt4-sim .* -[0-9.]+%\* .*better" "$T/out"
# jank % is a count of rare frames (4 % vs 1.5 % of 600 a repetition): its verdict may still be undecided
check "jank %: pelt4-sim lower" grep -Eq "jank_pct \(%\) .*pelt4-sim .* -[0-9.]+%" "$T/out"
check "power (total_power): pelt4-sim about 18.6 % higher, verdict worse" python3 - "$db" "$KVB" <<'PY'
import json, subprocess, sys
d = json.loads(subprocess.run([sys.argv[2], "diff", "-d", sys.argv[1], "--metric", "power_mean", "--format", "json"],
                              capture_output=True, text=True).stdout)
g = [g for g in d["groups"] if g["classifiers"].get("chan_name") == "total_power"][0]
v = [v for v in g["variants"] if v["variant"] == "pelt4-sim"][0]
assert 12 < v["diff_pct"] < 26 and v["verdict"] == "worse", v
PY
check "the page is written" test -s "$T/android.html"
check "the page names the simulated platform, kernels and probe" \
  sh -c "grep -q '<td>SIMULATED HiKey960' '$T/android.html' && grep -q '6.6.0-sim-pelt4' '$T/android.html' && grep -q 'sim.power_mw=1680' '$T/android.html' && grep -q 'instrument acme-sim' '$T/android.html'"
"$KVB" report -d "$db" -o - --format json >"$T/page.json"
check "frame-duration CDFs carry the 16.7 ms line; the page opens with the summary" python3 -c "
import json,sys
s=json.load(open(sys.argv[1]))['sections']
assert s[0]['heading']=='Summary' and s[1]['plot']['kind']=='forest', s[:2]
c=[x['plot'] for x in s if x.get('plot',{}).get('kind')=='cdf']
assert c and all(p['vline']['x']==16.7 for p in c), c" "$T/page.json"
"$KVB" diff -d "$db" --format json >"$T/diff.json"
nrows=$(python3 -c "import json,sys; print(sum(1 for g in json.load(open(sys.argv[1]))['groups'] for v in g['variants'] if 'diff_pct' in v))" "$T/diff.json")
python3 "$SRC/tests/integration/report_browser.py" "$T/android.html" "$ART" --diff-json "$T/diff.json" --forest-rows "$nrows"
check "android page: browser checks pass (forest against diff's JSON, no overflow)" test $? -eq 0
finish
