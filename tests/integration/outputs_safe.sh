#!/usr/bin/env bash
# Outputs never destroy (issue 26): `report -o` refuses the results DB itself (by device and
# inode: also through a hard link or another spelling of its path) and any existing path that
# is not a regular file: a symlink, a directory, a device node (as root `-o /dev/full` replaced
# the device with a file). It writes into a FIFO (no rename), to stdout with `-o -`, and renames
# its temporary file only over a regular file. A refused path leaves no temporary file behind.
. "$(dirname "$0")/lib.sh"
printf 'variant,workload,metric,value,units,lower_is_better\na,w,m,1,s,1\na,w,m,2,s,1\nb,w,m,3,s,1\nb,w,m,4,s,1\n' >"$T/in.csv"
"$KVB" import csv "$T/in.csv" -d "$T/orig.db" >/dev/null 2>&1
fresh() { rm -f "$T/r.db" "$T/hard.db"; cp "$T/orig.db" "$T/r.db"; } # each case starts from an intact DB
fresh
intact() { [ "$(sqlite3 "$1" 'pragma integrity_check' 2>/dev/null)" = ok ] && [ "$(sqlite3 "$1" 'select count(*) from run' 2>/dev/null)" = 1 ]; }
check "setup: a results DB" intact "$T/r.db"
"$KVB" report -d "$T/r.db" -o "$T/r.db" >/dev/null 2>"$T/e1"; rc=$?
check "-o the DB itself: refused, exit 3 (rc $rc)" test "$rc" -eq 3
check "the message says it is the results database" grep -q "is the results database" "$T/e1"
check "the DB is intact" intact "$T/r.db"
fresh
ln "$T/r.db" "$T/hard.db"
(cd "$T" && "$KVB" report -d r.db -o ./hard.db >/dev/null 2>"$T/e2"); rc=$?
check "-o a hard link to the DB (same inode, other name): refused (rc $rc)" test "$rc" -eq 3
check "and the DB is intact" intact "$T/r.db"
fresh
mkdir -p "$T/sub"
(cd "$T/sub" && "$KVB" report -d ../r.db -o "$T/sub/../r.db" >/dev/null 2>&1); rc=$?
check "-o another spelling of the DB's path: refused (rc $rc)" test "$rc" -eq 3
check "still intact" intact "$T/r.db"
fresh
echo keep >"$T/target.html"
ln -s "$T/target.html" "$T/link.html"
"$KVB" report -d "$T/r.db" -o "$T/link.html" >/dev/null 2>"$T/e3"; rc=$?
check "-o a symlink: refused (rc $rc)" test "$rc" -eq 3
check "the link is still a link, its target untouched" sh -c "[ -L '$T/link.html' ] && [ \"\$(cat '$T/target.html')\" = keep ]"
check "the message names what it is" grep -q "exists and is a symbolic link" "$T/e3"
fresh
"$KVB" report -d "$T/r.db" -o "$T/sub" >/dev/null 2>&1; rc=$?
check "-o a directory: refused (rc $rc)" sh -c "[ $rc -eq 3 ] && [ -d '$T/sub' ]"
if [ "$(id -u)" = 0 ]; then
  fresh
  mknod "$T/full" c 1 7 # /dev/full's numbers, in the test's own directory
  "$KVB" report -d "$T/r.db" -o "$T/full" >/dev/null 2>"$T/e4"; rc=$?
  check "-o a character device (a /dev/full node): refused (rc $rc)" test "$rc" -eq 3
  check "the node is still a character device" test -c "$T/full"
  check "the message says character device" grep -q "is a character device" "$T/e4"
else
  echo "note: not root, the device node case is left out" >&2
fi
check "no temporary file left behind" sh -c "! ls '$T' | grep -qE '\\.[A-Za-z0-9]{6}\$'"
fresh
mkfifo "$T/fifo"
timeout 60 cat "$T/fifo" >"$T/from-fifo" &
reader=$!
timeout 60 "$KVB" report -d "$T/r.db" -o "$T/fifo" >/dev/null 2>&1; rc=$?
wait "$reader"
check "-o a FIFO: written into (rc $rc)" sh -c "[ $rc -eq 0 ] && grep -q '</html>' '$T/from-fifo'"
check "the FIFO is still a FIFO" test -p "$T/fifo"
"$KVB" report -d "$T/r.db" -o - --format markdown >"$T/out.md" 2>/dev/null; rc=$?
check "-o - writes to stdout (rc $rc)" sh -c "[ $rc -eq 0 ] && grep -q '^# kvbench report' '$T/out.md'"
echo old >"$T/page.html"
"$KVB" report -d "$T/r.db" -o "$T/page.html" >/dev/null 2>&1; rc=$?
check "-o an existing regular file: replaced (rc $rc)" sh -c "[ $rc -eq 0 ] && grep -q '</html>' '$T/page.html'"
"$KVB" report -d "$T/r.db" -o "$T/new.html" >/dev/null 2>&1; rc=$?
check "-o a new path: written (rc $rc)" sh -c "[ $rc -eq 0 ] && grep -q '</html>' '$T/new.html'"
# `platform new` writes only a new file: never through a (dangling) symlink left in its place
# a reader that leaves early (`| head`) is not an error: a new user's `report -o - | head -c 100`
# exited 3 with "cannot write '-': Broken pipe" (the page is larger than the pipe's buffer)
for f in html markdown; do
  fresh
  set -o pipefail
  "$KVB" report -d "$T/r.db" --format $f -o - 2>"$T/pipe-$f" | head -c 100 >/dev/null; rc=$?
  set +o pipefail
  check "report --format $f -o - | head: exit 0, nothing on stderr (rc $rc)" sh -c "[ $rc -eq 0 ] && [ ! -s '$T/pipe-$f' ]"
done
mkdir -p "$T/pn/x"
ln -s "$T/pn/elsewhere" "$T/pn/x/platform.yaml"
"$KVB" platform new x --from local --dir "$T/pn" >/dev/null 2>&1; rc=$?
check "platform new over a dangling symlink: refused (rc $rc)" sh -c "[ $rc -eq 3 ] && [ ! -e '$T/pn/elsewhere' ] && [ -L '$T/pn/x/platform.yaml' ]"
finish
