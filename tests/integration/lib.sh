# Helpers for shell integration tests: each test runs in its own temp dir and ends
# with the plain summary line "N passed, M failed".
set -u
KVB=${KVB:-build/kvbench}
SRC=${KVB_SOURCE_DIR:-.}
T=$(mktemp -d /tmp/kvb-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1" >&2; }
bad() { fail=$((fail + 1)); echo "FAIL $1" >&2; }
check() { # check NAME CONDITION-COMMAND...
  local name=$1; shift
  if "$@"; then ok "$name"; else bad "$name"; fi
}
finish() {
  echo "$pass passed, $fail failed"
  [ "$fail" -eq 0 ]
}
q() { "$KVB" query -d "$1" -f csv "$2" | tail -n +2; }
