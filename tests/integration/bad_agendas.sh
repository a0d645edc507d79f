# Every broken agenda in tests/bad/agendas exits 3 and prints its expected messages
# (FILE.expect: one expected stderr line per line, matched exactly).
. "$(dirname "$0")/lib.sh"
cd "$SRC/tests/bad/agendas"
for f in *.yaml *.json; do
  [ -e "$f" ] || continue
  "$KVB" agenda check "$f" >/dev/null 2>"$T/err"; rc=$?
  check "$f exits 3" test "$rc" -eq 3
  while IFS= read -r line; do
    [ -n "$line" ] || continue
    check "$f: $line" grep -qxF -- "$line" "$T/err"
  done <"$f.expect"
done
# and every shipped agenda is valid
for f in "$SRC"/agendas/*.yaml; do
  "$KVB" agenda check "$f" >/dev/null 2>"$T/err"; rc=$?
  check "shipped $(basename "$f") passes agenda check (rc $rc)" test "$rc" -eq 0
done
finish
