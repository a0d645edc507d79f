# Every broken platform file in tests/bad/platforms fails `kvbench platform show FILE` and every
# broken CSV in tests/bad/csv fails `kvbench import csv FILE` with exit 3 and exactly the lines
# of FILE.expect on stderr (CSV messages name the line); nothing is imported from a bad CSV.
# (Agendas: bad_agendas.sh; tool outputs and rt-app logs: unit test test_bad_inputs.)
. "$(dirname "$0")/lib.sh"
expect_lines() { # expect_lines FILE ERRFILE
  local n=0 line
  while IFS= read -r line; do
    [ -n "$line" ] || continue
    n=$((n + 1))
    check "$1: $line" grep -qxF -- "$line" "$2"
  done <"$1.expect"
  check "$1 has an expected message" test "$n" -gt 0
}
count=0
cd "$SRC/tests/bad/platforms"
for f in *.yaml *.json; do
  [ -e "$f" ] || continue
  count=$((count + 1))
  "$KVB" platform show "$f" >"$T/out" 2>"$T/err"; rc=$?
  check "platform $f exits 3" test "$rc" -eq 3
  check "platform $f prints nothing on stdout" test ! -s "$T/out"
  expect_lines "$f" "$T/err"
  # issue 41: `platform check` and `agenda check -p` say the same, before anything boots
  "$KVB" platform check "$f" >"$T/out" 2>"$T/err"; rc=$?
  check "platform check $f exits 3 (rc $rc)" test "$rc" -eq 3
  check "platform check $f: nothing reached the board" sh -c "! grep -q '^reach' '$T/out'"
  expect_lines "$f" "$T/err"
  "$KVB" agenda check "$SRC/agendas/quickstart.yaml" -p "$f" >"$T/out" 2>"$T/err"; rc=$?
  check "agenda check -p $f exits 3 (rc $rc)" test "$rc" -eq 3
  grep -v ': [0-9]* problems$' "$f.expect" >"$T/expect_loc"
  while IFS= read -r line; do
    check "agenda check -p $f: $line" grep -qxF -- "$line" "$T/err"
  done <"$T/expect_loc"
done
# and `run` refuses a broken platform before it boots anything (nothing stored)
"$KVB" run "$SRC/agendas/quickstart.yaml" -p qemu-topology-beyond-smp.yaml -d "$T/r.db" >"$T/out" 2>"$T/err"; rc=$?
check "run on a 0-5 topology with smp 2 exits 3 (rc $rc)" test "$rc" -eq 3
check "  naming the cluster" grep -q "qemu-topology-beyond-smp.yaml:6:19: topology.clusters\[0\].cpus: CPUs 2-5 are not on the board" "$T/err"
check "  nothing booted" sh -c "! grep -qi 'boot' '$T/out'"
check "at least 15 bad platforms" test "$count" -ge 15
count=0
cd "$SRC/tests/bad/csv"
for f in *.csv; do
  count=$((count + 1))
  rm -f "$T/i.db"
  "$KVB" import csv "$f" -d "$T/i.db" >"$T/out" 2>"$T/err"; rc=$?
  check "csv $f exits 3" test "$rc" -eq 3
  expect_lines "$f" "$T/err"
  check "csv $f message names a line" grep -q "^kvbench: error: $f:[0-9]*: " "$T/err"
  check "csv $f: nothing imported" test "$(sqlite3 "$T/i.db" 'select count(*) from run' 2>/dev/null || echo 0)" = 0
done
check "at least 12 bad CSVs" test "$count" -ge 12
finish
