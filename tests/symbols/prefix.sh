#!/bin/sh
# Every global symbol kvbench's objects define starts with kvb_ (main excepted): a room's helpers
# shared between its files carry the room's prefix (kvb_ssh_, kvb_lava_, kvb_run_, ...), one
# used by one file is static (docs/design.md#layers-and-rooms). A name without the prefix can
# clash with a library's (libssh2's ssh_*, a distribution's checkout or trim) when linked.
# ASan adds __odr_asan.NAME beside each global NAME: those follow NAME.
# Arguments: the static library and the executable's own object files.
set -u
nm -g --defined-only "$@" >/dev/null || { echo "FAIL: nm cannot read $*"; exit 1; }
bad=$(nm -g --defined-only "$@" | awk 'NF == 3 { print $3 }' | grep -v -e '^kvb_' -e '^main$' -e '^__odr_asan.kvb_' | sort -u)
count=$(nm -g --defined-only "$@" | awk 'NF == 3 && $3 ~ /^kvb_/' | wc -l)
if [ "$count" -lt 100 ]; then
  echo "FAIL: only $count kvb_ symbols read from $*: not kvbench's objects?"; exit 1
fi
if [ -n "$bad" ]; then
  echo "FAIL: global symbols without the kvb_ prefix (make them static, or prefix them kvb_ROOM_):"
  echo "$bad"
  exit 1
fi
echo "ok: $count global symbols, every one kvb_ (or main)"
