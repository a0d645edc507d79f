#!/usr/bin/env bash
# The quick-start agenda, unchanged, against the ssh target: a real sshd on 127.0.0.1.
. "$(dirname "$0")/lib.sh"
fx="$SRC/tests/integration/sshd-fixture.sh"
bash "$fx" start "$T/sshd" >/dev/null || { bad "sshd fixture starts"; finish; exit 1; }
trap 'bash "$fx" stop "$T/sshd" >/dev/null 2>&1; rm -rf "$T"' EXIT
"$KVB" platform check "$T/sshd/platform.yaml" >"$T/check" 2>&1; rc=$?
check "platform check reaches the board (rc $rc)" test "$rc" -eq 0
check "platform check prints the kernel release" grep -q "reachable: kernel $(uname -r)" "$T/check"
# KVB_LOG: the backends' debug lines only when asked (ssh says how it logged in), a bad level refused
check "no debug line by default" sh -c "! grep -q 'debug:' '$T/check'"
KVB_LOG=debug "$KVB" platform check "$T/sshd/platform.yaml" >"$T/checkd" 2>&1
check "KVB_LOG=debug shows how ssh logged in" grep -q "kvbench: debug: ssh: logged in as .* (kex " "$T/checkd"
KVB_LOG=loud "$KVB" platform check "$T/sshd/platform.yaml" >"$T/checkl" 2>&1; rc=$?
check "KVB_LOG=loud is refused with exit 2 (rc $rc)" test "$rc" -eq 2
check "and the message names the variable and its levels" grep -q "KVB_LOG='loud' is not a level (error, warn, info, debug)" "$T/checkl"
"$KVB" run "$SRC/agendas/quickstart-local.yaml" -p "$T/sshd/platform.yaml" -d "$T/s.db" >"$T/out" 2>"$T/err"; rc=$?
check "run over ssh exits 0 (rc $rc)" test "$rc" -eq 0
check "all 20 jobs ok over ssh" test "$(q "$T/s.db" "select count(*) from job where status='ok'")" = "20"
check "table shows both variants" sh -c "grep -q '| 1cpu ' '$T/out' && grep -q '| 2cpus ' '$T/out'"
check "identity recorded for the boot" test "$(q "$T/s.db" "select running_release from boot limit 1")" = "$(uname -r)"
bash "$fx" stop "$T/sshd" >/dev/null 2>&1
"$KVB" platform check "$T/sshd/platform.yaml" >"$T/check2" 2>&1; rc=$?
check "unreachable board exits 4" test "$rc" -eq 4
check "says unreachable" grep -q "^unreachable: " "$T/check2"
finish
