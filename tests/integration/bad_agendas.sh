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
# issue 41 item 2: a variant's kernel that is not one is refused by `agenda check` and
# `run --dry-run` before any boot (it used to boot the other variant, then fail in the board
# script with "cannot tell the release of ... (use -k KVER)"); a variant named twice by -V is an
# error naming both
echo my-board >"$T/hostname"
"$KVB" agenda check "$SRC/agendas/quickstart.yaml" -V patch="$T/hostname" >/dev/null 2>"$T/err"; rc=$?
check "agenda check -V patch=TEXTFILE exits 3 (rc $rc)" test "$rc" -eq 3
check "  says it is not a kernel image" grep -q "variant 'patch' kernel: '$T/hostname' is not a kernel image" "$T/err"
"$KVB" run "$SRC/agendas/quickstart.yaml" -p qemu-x86_64 -V patch="$T/hostname" --dry-run -d "$T/dry.db" >/dev/null 2>"$T/err"; rc=$?
check "run --dry-run -V patch=TEXTFILE exits 3 (rc $rc)" test "$rc" -eq 3
check "  says it is not a kernel image" grep -q "variant 'patch' kernel: '$T/hostname' is not a kernel image" "$T/err"
check "  and never names the board script's flag" sh -c "! grep -q 'use -k KVER' '$T/err'"
"$KVB" agenda check "$SRC/agendas/quickstart.yaml" -V tip=/a -V tip=/b >/dev/null 2>"$T/err"; rc=$?
check "-V tip=/a -V tip=/b is an error (rc $rc)" test "$rc" -eq 2
check "  naming both" grep -qF "kvbench: error: -V 'tip=/a' and -V 'tip=/b' both name variant 'tip'" "$T/err"
"$KVB" agenda check "$SRC/agendas/quickstart.yaml" -V cloud=/a -V cloud=/b >/dev/null 2>"$T/err"; rc=$?
check "an agenda variant given twice by -V is an error too (rc $rc)" test "$rc" -eq 2

# and every shipped agenda is valid
for f in "$SRC"/agendas/*.yaml; do
  "$KVB" agenda check "$f" >/dev/null 2>"$T/err"; rc=$?
  check "shipped $(basename "$f") passes agenda check (rc $rc)" test "$rc" -eq 0
done
finish
