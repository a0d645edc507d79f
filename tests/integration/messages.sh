#!/usr/bin/env bash
# Messages that say how to fix (issue 18): "did you mean" for a name one or two edits
# off, a tab in YAML named as such, diff without a DB pointing at -d/$KVB_DB, and diff on
# an empty file refusing it (exit 5) without writing into it.
. "$(dirname "$0")/lib.sh"
printf 'workloads:\n  - name: hackbench\n    params: {grups: 2}\n' >"$T/p.yaml"
"$KVB" agenda check "$T/p.yaml" >/dev/null 2>"$T/e1"; rc=$?
check "unknown parameter: did you mean (rc $rc)" grep -q "unknown key 'grups' (did you mean 'groups'?)" "$T/e1"
printf 'workloads: [hackbenhc]\n' >"$T/w.yaml"
"$KVB" agenda check "$T/w.yaml" >/dev/null 2>"$T/e2"
check "unknown workload (a swap): did you mean" grep -q "unknown workload \"hackbenhc\" .*(did you mean 'hackbench'?)" "$T/e2"
printf 'config:\n  execution_order: by_iteraton\nworkloads: [hackbench]\n' >"$T/o.yaml"
"$KVB" agenda check "$T/o.yaml" >/dev/null 2>"$T/e3"
check "enum value: did you mean" grep -q "got \"by_iteraton\" (did you mean 'by_iteration'?)" "$T/e3"
printf 'workloads: [hackbench]\n' >"$T/ok.yaml"
"$KVB" agenda check "$T/ok.yaml" -p qemu-x86-64 >/dev/null 2>"$T/e4"
check "platform one letter off: did you mean" grep -q "platform 'qemu-x86-64' not found (did you mean 'qemu-x86_64'?)" "$T/e4"
mkdir -p "$T/boards/myboard" && printf 'name: myboard\nconnection: {type: local}\n' >"$T/boards/myboard/platform.yaml"
"$KVB" agenda check "$T/ok.yaml" -p "$T/boards/myborad" >/dev/null 2>"$T/e5"
check "platform path one swap off: did you mean the sibling" grep -q "(did you mean '$T/boards/myboard'?)" "$T/e5"
"$KVB" dif >/dev/null 2>"$T/e6"; rc=$?
check "command: did you mean (rc $rc)" grep -q "'dif' is not a command (did you mean 'diff'?)" "$T/e6"
printf 'name: myboard\nconnection: {type: local, hots: x}\n' >"$T/boards/myboard/platform.yaml"
"$KVB" platform check "$T/boards/myboard" >/dev/null 2>"$T/e7"
check "connection key: the candidates are the connection's keys" grep -q "unknown key 'hots' for connection type local" "$T/e7"
printf 'config:\n\titerations: 4\nworkloads: [hackbench]\n' >"$T/tab.yaml"
"$KVB" agenda check "$T/tab.yaml" >/dev/null 2>"$T/e8"; rc=$?
check "a tab in YAML is named (rc $rc)" grep -q "tab.yaml:2:1: .*line 2 is indented with a tab: YAML indents with spaces only" "$T/e8"
(cd "$T" && env -u KVB_DB "$KVB" diff >/dev/null 2>"$T/e9"); rc=$?
check "diff with no DB points at -d and \$KVB_DB (rc $rc)" grep -q "no results database given (-d DB, or \$KVB_DB unset; default ./kvbench.db)" "$T/e9"
: >"$T/empty.db"
"$KVB" diff -d "$T/empty.db" >/dev/null 2>"$T/e10"; rc=$?
check "diff on a 0-byte file: exit 5 (rc $rc)" test "$rc" -eq 5
check "and the file stays empty" test ! -s "$T/empty.db"
check "no WAL files left beside it" test ! -e "$T/empty.db-wal" -a ! -e "$T/empty.db-shm"
"$KVB" show job -d "$T/empty.db" >/dev/null 2>"$T/e11"
check "show: did you mean" grep -q "(did you mean 'jobs'?)" "$T/e11"
"$KVB" diff --metrics time >/dev/null 2>"$T/e12"; rc=$?
check "unknown option: exit 2 and did you mean (rc $rc)" test "$rc" -eq 2 -a "$(head -1 "$T/e12")" = "kvbench diff: unknown option '--metrics' (did you mean '--metric'?)"
"$KVB" run a.yaml -p >/dev/null 2>"$T/e13"
check "an option without its value says so" grep -q "kvbench run: option '-p' needs a value" "$T/e13"
"$KVB" diff -d "$T/none.db" -b c0 >/dev/null 2>"$T/e13b"; rc=$?
check "a short form diff does not have is unknown, not missing its value (rc $rc)" \
  test "$rc" -eq 2 -a "$(head -1 "$T/e13b")" = "kvbench diff: unknown option '-b' (did you mean '--baseline'?)"
finish
