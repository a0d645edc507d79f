#!/usr/bin/env bash
# Drives the libFuzzer targets for ctest (label fuzz) and by hand.
#   run.sh build                 configure + build the fuzzers with clang in $KVB_BUILD_DIR/fuzz
#   run.sh TARGET SECONDS [DIR]  run fuzz_TARGET for SECONDS from tests/fuzz/corpus/TARGET,
#                                new inputs in DIR (default: a temp dir), crashes in
#                                $KVB_BUILD_DIR/fuzz-artifacts/TARGET/
# Exit 77 (ctest: skipped) when clang or libFuzzer's runtime is missing.
set -u
SRC=${KVB_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${KVB_BUILD_DIR:-$SRC/build}
FUZZ_BUILD=${KVB_FUZZ_BUILD:-$BUILD/fuzz}
CC_FUZZ=${KVB_FUZZ_CC:-clang}

if [ "${1:-}" = build ]; then
  if ! command -v "$CC_FUZZ" >/dev/null 2>&1; then
    echo "skipped: $CC_FUZZ not installed (Debian: clang libclang-rt-14-dev)"
    exit 77
  fi
  probe=$(mktemp -d)
  printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$probe/p.c"
  if ! "$CC_FUZZ" -fsanitize=fuzzer,address,undefined "$probe/p.c" -o "$probe/p" >/dev/null 2>&1; then
    rm -rf "$probe"
    echo "skipped: $CC_FUZZ cannot link -fsanitize=fuzzer (Debian: libclang-rt-14-dev)"
    exit 77
  fi
  rm -rf "$probe"
  # The stamp says the fuzzers were built: from then on a missing fuzzer is a failure, not a skip.
  rm -f "$FUZZ_BUILD/kvb-fuzz-built"
  cmake -S "$SRC" -B "$FUZZ_BUILD" -DCMAKE_C_COMPILER="$CC_FUZZ" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKVB_FUZZ=ON >/dev/null || exit 1
  cmake --build "$FUZZ_BUILD" -j2 2>&1 | grep -vE '^\[|^make|^-- '
  rc=${PIPESTATUS[0]}
  [ "$rc" -eq 0 ] && touch "$FUZZ_BUILD/kvb-fuzz-built"
  exit "$rc"
fi

t=${1:?usage: run.sh build | run.sh TARGET SECONDS [DIR]}
secs=${2:-10}
bin=$FUZZ_BUILD/fuzz_$t
if [ ! -x "$bin" ]; then
  if [ -e "$FUZZ_BUILD/kvb-fuzz-built" ]; then
    echo "$bin missing although fuzz_build built the fuzzers" >&2
    exit 1
  fi
  echo "skipped: $bin not built (clang missing? see the fuzz_build test)"
  exit 77
fi
work=${3:-}
if [ -z "$work" ]; then
  work=$(mktemp -d "/tmp/kvb-fuzz-$t.XXXXXX")
  trap 'rm -rf "$work"' EXIT
fi
art=$BUILD/fuzz-artifacts/$t
mkdir -p "$work" "$art"
# -timeout: one input taking over 60 s is a hang (generous: on a loaded 2-core host one input of
# the seed corpus has taken 11 s, which is load, not a finding); -rss_limit_mb: a blow-up is a
# finding too. `timeout` ends the fuzzer itself well before ctest's TIMEOUT, so its log is kept.
# The fuzzers' own temp files go to a private TMPDIR removed afterwards.
tmp=$(mktemp -d "/tmp/kvb-fuzz-tmp.XXXXXX")
TMPDIR=$tmp ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1" \
  timeout --kill-after=10 $((secs + 180)) \
  "$bin" -max_total_time="$secs" -timeout=60 -rss_limit_mb=2048 -print_final_stats=1 -error_exitcode=1 -timeout_exitcode=1 \
  -artifact_prefix="$art/" "$work" "$SRC/tests/fuzz/corpus/$t" >"$tmp.log" 2>&1
rc=$?
rm -rf "$tmp"
grep -E '^stat::number_of_executed_units|^Done|ERROR|SUMMARY|^artifact_prefix|Test unit written' "$tmp.log"
if [ "$rc" -ne 0 ]; then
  echo "fuzz_$t failed (exit $rc); full log follows" >&2
  tail -n 60 "$tmp.log" >&2
fi
rm -f "$tmp.log"
exit "$rc"
