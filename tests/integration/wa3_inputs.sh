# WA3 as WA3 reads it (issue 26 item 7), through `kvbench agenda check` on real files
# (tests/fixtures/field/*/PROVENANCE): `config` and `global` together (WA2's and LISA's agendas)
# merged as WA3's AgendaParser does; rt-app use cases named as WA3 names them (`config:
# mp3-short`, LISA's rtapp.yaml) or left out (WA3's default, taskset), resolved from a use-case
# directory with an error naming where kvbench looked; an rt-app config with text after its JSON
# object loaded as rt-app (json-c's json_object_from_file) loads it.
. "$(dirname "$0")/lib.sh"
FIELD=$SRC/tests/fixtures/field
export HOME=$T/home KVB_WA3_PACKAGE_DIR="" # no WA3 user directory, no WA3 installed
unset KVB_RTAPP_USE_CASES WA_USER_DIRECTORY
mkdir -p "$HOME"

# config + global: the tutorial's run settings in config, iterations 5 in global
cat >"$T/cg.yaml" <<'YAML'
config:
  project: governor_comparison
  iterations: 2
  classifiers: {kernel: a}
global:
  iterations: 5
  classifiers: {tag: b}
sections:
  - id: perf
    runtime_params:
      sysfile_values: {/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor: performance}
workloads:
  - name: hackbench
  - name: cyclictest
    iterations: 10
YAML
"$KVB" agenda check "$T/cg.yaml" >"$T/o" 2>"$T/e"; rc=$?
check "config and global together load (rc $rc)" test "$rc" -eq 0
check "global's iterations (5) and the entry's own (10): 15 jobs" grep -q ', 15 jobs,' "$T/o"
"$KVB" agenda check "$FIELD/wa3-agenda/wlauto/agenda-example-tutorial.yaml" >/dev/null 2>"$T/e"
check "WA's tutorial agenda: no 'both config and global' error" sh -c "! grep -q \"both 'config'\" '$T/e'"
check "WA's tutorial agenda: only the workloads kvbench lacks are errors" test "$(grep -v '(warning)$' "$T/e" | grep -v 'unknown workload' | grep -vc '^kvbench: ')" = 0

# rt-app use case names
"$KVB" agenda check "$FIELD/wa3-agenda/lisa-android/rtapp.yaml" >/dev/null 2>"$T/e"; rc=$?
check "LISA's rtapp.yaml without a use-case directory: exit 3 (rc $rc)" test "$rc" -eq 3
check "the error names the use case and where kvbench looked" grep -q "rt-app config 'mp3-short': no file mp3-short.json in the current directory, $HOME/.workload_automation/dependencies/rt-app/use_cases (\$KVB_RTAPP_USE_CASES unset) (WA3 is not installed" "$T/e"
KVB_RTAPP_USE_CASES=$FIELD/rt-app-config/wa3 "$KVB" agenda check "$FIELD/wa3-agenda/lisa-android/rtapp.yaml" >"$T/o" 2>"$T/e"; rc=$?
check "with KVB_RTAPP_USE_CASES: LISA's rtapp.yaml (config: mp3-short) loads (rc $rc)" test "$rc" -eq 0
mkdir -p "$HOME/.workload_automation/dependencies/rt-app/use_cases"
cp "$FIELD/rt-app-config/wa3/taskset.json" "$HOME/.workload_automation/dependencies/rt-app/use_cases/"
printf 'workloads:\n  - name: rt_app\n    params: {duration: 2}\n' >"$T/def.yaml"
"$KVB" agenda check "$T/def.yaml" >"$T/o" 2>"$T/e"; rc=$?
check "rt-app without config: WA3's default use case taskset from WA3's user directory (rc $rc)" test "$rc" -eq 0
rm -r "$HOME/.workload_automation"
"$KVB" agenda check "$T/def.yaml" >/dev/null 2>"$T/e"; rc=$?
check "rt-app without config and no use cases anywhere: exit 3 naming the default (rc $rc)" sh -c "test $rc -eq 3 && grep -q \"rt-app config 'taskset' (WA3's default use case: no config given)\" '$T/e'"

# text after the JSON object: kept as rt-app keeps it (first value), with a warning
{ cat "$FIELD/rt-app-config/wa3/mp3-short.json"; printf '\n}\n# trailing notes\n'; } >"$T/trail.json"
printf 'workloads:\n  - name: rt-app\n    params: {config: %s}\n' "$T/trail.json" >"$T/trail.yaml"
"$KVB" agenda check "$T/trail.yaml" >/dev/null 2>"$T/e"; rc=$?
check "rt-app config with text after its object loads (rc $rc)" test "$rc" -eq 0
check "and says the text is ignored, with its line" grep -q "trail.json:[0-9]*:1: text after the end of the JSON object ignored, as rt-app (json-c) ignores it" "$T/e"
finish
