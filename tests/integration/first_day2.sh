# A new user's first day, round 2 (issue 41 item 6): the threads' metric names, `platform new`
# from a board named in its values, and agenda check counting the warm-ups as run does.
. "$(dirname "$0")/lib.sh"
# --metric with the eas-dev thread's name (seed 002: "jank_perc") finds jank_pct; a near miss
# gets a "did you mean"
{ echo variant,workload,metric,value,units,lower_is_better,boot
  for v in "base 4.0 4.2 3.9 4.1" "patch 1.5 1.7 1.4 1.6"; do
    set -- $v; n=$1; shift; b=0
    for x in "$@"; do echo "$n,jankbench,jank_pct,$x,%,1,$((b + 1))"; b=$((b + 1)); done
  done; } >"$T/j.csv"
"$KVB" import csv "$T/j.csv" -d "$T/j.db" >/dev/null 2>&1
"$KVB" diff -d "$T/j.db" --metric jank_perc >"$T/o1" 2>"$T/e1"; rc=$?
check "--metric jank_perc: the thread's name finds jank_pct (rc $rc)" sh -c "[ $rc -eq 0 ] && grep -q jank_pct '$T/o1'"
check "  and says so" grep -q "^kvbench: --metric jank_perc: kvbench calls it jank_pct" "$T/e1"
"$KVB" diff -d "$T/j.db" --metric jank_pc >/dev/null 2>"$T/e2"; rc=$?
check "--metric jank_pc: exit 3 with a did-you-mean (rc $rc)" sh -c "[ $rc -eq 3 ] && grep -q \"did you mean 'jank_pct'\" '$T/e2'"

# platform new from a board whose values are named after it: they are marked, and listed
mkdir -p "$T/plats"
KVB_PLATFORM_PATH=$T/plats "$KVB" platform new myjuno --from juno-r2 >"$T/n1" 2>&1; rc=$?
check "platform new myjuno --from juno-r2 (rc $rc)" test "$rc" -eq 0
check "  the board address juno.local is marked FILL IN" grep -q "host: juno.local .*# FILL IN: juno-r2's value" "$T/plats/myjuno/platform.yaml"
check "  the dtb juno-r2.dtb is marked FILL IN" grep -q "dtb_name: juno-r2.dtb  # FILL IN" "$T/plats/myjuno/platform.yaml"
check "  the instrument type juno-hwmon is kvbench's, not marked" sh -c "! grep -q 'juno-hwmon.*FILL IN' '$T/plats/myjuno/platform.yaml'"
check "  and they are listed" sh -c "grep -q 'left to fill in (named after juno-r2' '$T/n1' && grep -q 'host: juno.local' '$T/n1'"

# agenda check says what run says: 18 jobs + 9 warm-ups on the QEMU board (each round boots)
# (a bzImage as libmagic reads it: 0xAA55 at 510, "HdrS" at 514; then the banner)
{ head -c 510 /dev/zero; printf '\125\252\000\000HdrS'; head -c 500 /dev/zero
  printf 'Linux version 6.1.0-kvb (t@example.com) (gcc 12) #1 SMP PREEMPT\n\0'; } >"$T/K"
"$KVB" agenda check "$SRC/agendas/quickstart.yaml" -p qemu-x86_64 -V "cloud=$T/K" -V "generic=$T/K" -V "generic-1cpu=$T/K" \
  >"$T/a1" 2>/dev/null; rc=$?
check "agenda check -p qemu-x86_64 counts the warm-ups (rc $rc)" grep -q "18 jobs + 9 warm-ups" "$T/a1"
"$KVB" run "$SRC/agendas/quickstart.yaml" -p qemu-x86_64 -V "cloud=$T/K" -V "generic=$T/K" -V "generic-1cpu=$T/K" \
  --dry-run >"$T/r1" 2>&1
check "  as run --dry-run lists them: 9 warm-up jobs" test "$(grep -c ' warm-up$' "$T/r1")" -eq 9
"$KVB" agenda check "$SRC/agendas/quickstart.yaml" >"$T/a2" 2>/dev/null
check "without -p it says a platform may add them" grep -q "adds a warm-up job per spec, variant and round" "$T/a2"
# the tables platform check uses are the ones help prints
"$KVB" help platform.yaml >"$T/h1" 2>&1; rc=$?
check "help platform.yaml lists the cluster keys and thermal's (rc $rc)" sh -c "[ $rc -eq 0 ] && grep -q '^  cpus ' '$T/h1' && grep -q '^  max_temp_mc ' '$T/h1'"
finish
