#!/usr/bin/env bash
# Variant artifacts: local paths hashed, URLs (file://, http:// from a loopback server)
# fetched into the sha256 cache, unverified URLs and mismatches refused, sha256 stored.
# (--keep-going: past the preflight, which would stop these runs first; see preflight.sh)
. "$(dirname "$0")/lib.sh"
export KVB_CACHE_DIR=$T/cache
fake_kernel "$T/Image"
sha=$(sha256sum "$T/Image" | cut -d' ' -f1)
# this host, with a hook flasher that installs nothing (records the file it was given)
mkdir -p "$T/plat"
printf '#!/bin/sh\nsha256sum "$KVB_KERNEL" > "$KVB_ARTIFACT_DIR/flashed"\n' >"$T/plat/flash"
chmod +x "$T/plat/flash"
printf 'name: hooked\nconnection: {type: local}\nflash: {method: command, command: flash}\n' >"$T/plat/platform.yaml"
cat >"$T/a.yaml" <<'YAML'
config: {iterations: 1}
workloads: [{name: hackbench, params: {groups: 1, fds: 2, loops: 10}}]
YAML
"$KVB" run "$T/a.yaml" -p "$T/plat" -d "$T/1.db" -V "local=$T/Image" --no-diff 2>"$T/err1"; rc=$?
check "local kernel path accepted (rc $rc)" test "$rc" -eq 0
check "its sha256 is stored with the variant" test "$(q "$T/1.db" "select kernel_sha256 from variant")" = "$sha"
check "an image without a version string is reported" grep -q "identity check will only compare the cmdline" "$T/err1"
"$KVB" run "$T/a.yaml" -p "$T/plat" -d "$T/2.db" --keep-going -V "bad=$T/Image,sha256=$(printf '0%.0s' $(seq 64))" --no-diff 2>"$T/err2"; rc=$?
check "sha256 mismatch fails the run (rc $rc)" test "$rc" -eq 1
check "mismatch message names both hashes" grep -q "has sha256 $sha, expected 0000" "$T/err2"
check "variant marked failed" test "$(q "$T/2.db" "select status from variant")" = "failed"
check "its jobs are skipped, not run" test "$(q "$T/2.db" "select distinct status from job")" = "skipped"
"$KVB" run "$T/a.yaml" -p "$T/plat" -d "$T/3.db" -V "u=file://$T/Image" --no-diff 2>"$T/err3"; rc=$?
check "URL without sha256 refused (rc $rc)" grep -q "refusing URL 'file://$T/Image' without a sha256" "$T/err3"
"$KVB" run "$T/a.yaml" -p "$T/plat" -d "$T/4.db" -V "u=file://$T/Image" --allow-unverified --no-diff 2>/dev/null; rc=$?
check "--allow-unverified fetches it (rc $rc)" test "$rc" -eq 0
check "file:// fetch lands in the cache by sha256" test -f "$T/cache/artifacts/$sha"
# http from a loopback server
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir "$T/www" && cp "$T/Image" "$T/www/Image"
(cd "$T/www" && exec python3 -m http.server "$port" --bind 127.0.0.1 >/dev/null 2>&1) &
srv=$!
for i in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
rm -rf "$T/cache"
"$KVB" run "$T/a.yaml" -p "$T/plat" -d "$T/5.db" -V "h=http://127.0.0.1:$port/Image,sha256=$sha" --no-diff 2>"$T/err5"; rc=$?
check "http URL with sha256 fetched (rc $rc)" test "$rc" -eq 0
check "http fetch cached" test -f "$T/cache/artifacts/$sha"
kill "$srv"; wait "$srv" 2>/dev/null
"$KVB" run "$T/a.yaml" -p "$T/plat" -d "$T/6.db" -V "h=http://127.0.0.1:$port/Image,sha256=$sha" --no-diff 2>/dev/null; rc=$?
check "cached artifact reused with the server gone (rc $rc)" test "$rc" -eq 0
"$KVB" run "$T/a.yaml" -p "$T/plat" -d "$T/7.db" --keep-going -V "h=http://127.0.0.1:$port/Other,sha256=$(printf 'a%.0s' $(seq 64))" --no-diff 2>"$T/err7"; rc=$?
check "unreachable URL fails the variant (rc $rc)" test "$rc" -eq 1
check "download error says why" grep -q "cannot fetch 'http://127.0.0.1:$port/Other'" "$T/err7"
"$KVB" run "$T/a.yaml" -p local -d "$T/8.db" -V "k=$T/Image" --no-diff 2>"$T/err8"; rc=$?
check "a kernel variant on a platform that cannot flash is refused up front (rc $rc)" test "$rc" -eq 3
check "and says why" grep -q "platform local cannot install kernels" "$T/err8"
check "the hook got the verified file" test "$(find "$T"/1.db.d -name flashed -exec cut -d' ' -f1 {} \; | head -1)" = "$sha"
finish
