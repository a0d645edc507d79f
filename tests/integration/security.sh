#!/usr/bin/env bash
# Security: agenda text (variant names, ids, labels, classifiers, sysfs paths and values) never
# reaches a shell on the local or the ssh target (a bad cpus list is refused by the loader, see
# tests/bad/agendas/bad-cpus.yaml); names from agendas never leave the run's artifact directory;
# no artifact is written through a planted symlink; a platform secret (ssh passphrase) never
# reaches the DB, the logs or the artifacts, and a readable secret is warned about.
. "$(dirname "$0")/lib.sh"
fx="$SRC/tests/integration/sshd-fixture.sh"
bash "$fx" start "$T/sshd" >/dev/null || { bad "sshd fixture starts"; finish; exit 1; }
trap 'bash "$fx" stop "$T/sshd" >/dev/null 2>&1; rm -rf "$T"' EXIT
mkdir -p "$T/cwd" "$T/knobs"
cd "$T/cwd"
# Payloads: each would create a file named pwned* (in the shell's cwd: $T/cwd locally, the sshd
# HOME $T/sshd over ssh) or remove a canary, if any shell ever interpreted it.
P1='$(touch pwned1)'; P2='`touch pwned2`'; P3=';touch pwned3;'; P4="'; touch pwned4; '"
P5='"; touch pwned5; "'; P6=$'\ntouch pwned6\n'; P7='| touch pwned7 &'; P8='&& rm -f canary'
knob="$T/knobs/k${P1}${P2}${P3}${P8}"
printf 'orig' >"$knob"
for d in "$T/cwd" "$T/sshd"; do touch "$d/canary"; done
# JSON so that every byte (quotes, newlines) is spelled exactly
python3 - "$T/evil.json" "$knob" "$P1" "$P2" "$P3" "$P4" "$P5" "$P6" "$P7" "$P8" <<'PY'
import json, sys
out, knob, *p = sys.argv[1:]
a = {
  "config": {"iterations": 1, "max_retries": 0, "classifiers": {p[0]: p[1], "c" + p[2]: p[3]}},
  "sections": [{"id": "s" + p[4], "classifiers": {"sec": p[5]}}],
  "workloads": [
    {"name": "hackbench", "id": "w" + p[0] + p[2], "label": "l" + p[1] + p[6],
     "params": {"groups": 1, "fds": 2, "loops": 10},
     "classifiers": {"k" + p[3]: p[4] + p[7]},
     "runtime_params": {"sysfs": {knob: "v" + p[0] + p[1] + p[2] + p[3] + p[4] + p[5] + p[6] + p[7]}}},
  ],
  "variants": [{"name": "a" + x} for x in p],
}
json.dump(a, open(out, "w"))
PY
check "injection agenda is valid" sh -c "\"$KVB\" agenda check \"$T/evil.json\" >/dev/null"
for target in local ssh; do
  plat=local
  [ "$target" = ssh ] && plat=$T/sshd/platform.yaml
  "$KVB" run "$T/evil.json" -p "$plat" -d "$T/$target.db" --rounds 1 --no-diff >"$T/$target.out" 2>"$T/$target.err"
  rc=$?
  check "$target: run exits 0 (rc $rc)" test "$rc" -eq 0
  check "$target: 8 injection variants ran ok" test "$(q "$T/$target.db" "select count(*) from job where status='ok'")" = 8
  check "$target: no payload ran" test -z "$(find "$T" / -maxdepth 1 -name 'pwned*' 2>/dev/null; find "$T" -name 'pwned*')"
  check "$target: canaries survive" test -e "$T/cwd/canary" -a -e "$T/sshd/canary"
  check "$target: knob restored" test "$(cat "$knob")" = orig
  check "$target: variant names stored byte for byte" \
    test "$(q "$T/$target.db" "select count(*) from variant where name = 'a' || char(10) || 'touch pwned6' || char(10)")" = 1
done

# Names cannot leave the output directory: boot-<variant> directories are one sanitised component,
# job directories are numbered (spec ids never become paths).
esc="escape-$$"
cat >"$T/paths.yaml" <<YAML
config: {iterations: 1}
workloads: [{name: hackbench, id: "../../../../../../../../$esc-spec", params: {groups: 1, fds: 2, loops: 10}}]
variants:
  - {name: "../../../../../../../../../../$esc"}
  - {name: "/tmp/$esc"}
  - {name: ".."}
  - {name: "ok"}
YAML
"$KVB" run "$T/paths.yaml" -p local -d "$T/p.db" --rounds 1 --no-diff 2>"$T/p.err"; rc=$?
check "path-name run exits 0 (rc $rc)" test "$rc" -eq 0
check "nothing named $esc outside the run directory" \
  test -z "$(find / -maxdepth 1 -name "$esc*"; find /tmp "$T" -maxdepth 2 -name "*$esc*" -not -path "$T/p.db.d/*")"
check "one boot directory per variant, all directly in run-1" \
  test "$(find "$T/p.db.d/run-1" -mindepth 1 -maxdepth 1 -type d -name 'boot-*' | wc -l)" = 4
check "plain names keep their directory name" test -d "$T/p.db.d/run-1/boot-ok-r1"
check "nothing but run-1 in p.db.d" test "$(ls "$T/p.db.d")" = run-1
# A symlink planted where the run's artifact directory goes is refused, nothing lands outside.
mkdir -p "$T/outside" "$T/l.db.d"
ln -s "$T/outside" "$T/l.db.d/run-1"
"$KVB" run "$T/paths.yaml" -p local -d "$T/l.db" --rounds 1 --no-diff 2>"$T/l.err"; rc=$?
check "planted run-1 symlink: exit 5 (rc $rc)" test "$rc" -eq 5
check "planted symlink: says why" grep -q "cannot create artifact directory $T/l.db.d/run-1: Too many levels of symbolic links" "$T/l.err"
check "planted symlink: nothing written through it" test -z "$(ls -A "$T/outside")"

# Secrets: a passphrase-protected key; the passphrase must not reach DB, logs or artifacts.
secret="S3cret-Pass-$$-phrase"
ssh-keygen -q -t ed25519 -N "$secret" -C kvb-test -f "$T/pk" </dev/null
cat "$T/pk.pub" >>"$T/sshd/authorized_keys"
sed -e "s|^  key: .*|  key: $T/pk\n  passphrase: \"$secret\"|" "$T/sshd/platform.yaml" >"$T/secret.yaml"
chmod 644 "$T/secret.yaml"
check "secret platform has the passphrase" grep -q "passphrase: \"$secret\"" "$T/secret.yaml"
"$KVB" run "$T/paths.yaml" -p "$T/secret.yaml" -d "$T/s.db" --rounds 1 >"$T/s.out" 2>"$T/s.err"; rc=$?
check "run with a passphrase key exits 0 (rc $rc)" test "$rc" -eq 0
check "warns: secret in a group/world-readable file" \
  grep -qF "secret.yaml:9:3: connection.passphrase: holds a secret but $T/secret.yaml is readable by group/others (mode 0644); run \`chmod 600 $T/secret.yaml\` (warning)" "$T/s.err"
sqlite3 "$T/s.db" 'pragma wal_checkpoint(truncate)' >/dev/null
check "passphrase in no file of the DB, its WAL or its artifacts" test -z "$(grep -rlF -- "$secret" "$T"/s.db* 2>/dev/null)"
check "passphrase not in the logs" test -z "$(grep -lF -- "$secret" "$T/s.out" "$T/s.err")"
check "stored platform says <redacted>" test "$(q "$T/s.db" "select json_extract(platform_json, '$.connection.passphrase') from run")" = "<redacted>"
check "stored platform keeps the rest" test "$(q "$T/s.db" "select json_extract(platform_json, '$.connection.key') from run")" = "$T/pk"
"$KVB" platform show "$T/secret.yaml" >"$T/show" 2>"$T/show.err"
check "platform show redacts" sh -c "grep -qP '\"passphrase\":\\s+\"<redacted>\"' '$T/show' && ! grep -qF -- '$secret' '$T/show'"
sed -e "s|$secret|Wrong-$secret|" "$T/secret.yaml" >"$T/wrong.yaml"
chmod 600 "$T/wrong.yaml"
"$KVB" platform check "$T/wrong.yaml" >"$T/wrong.out" 2>&1; rc=$?
check "wrong passphrase: unreachable, exit 4 (rc $rc)" test "$rc" -eq 4
check "wrong passphrase: the message names the key file" grep -q "with key '$T/pk'" "$T/wrong.out"
check "wrong passphrase: the message does not echo it" test -z "$(grep -F -- "$secret" "$T/wrong.out")"
chmod 600 "$T/secret.yaml"
"$KVB" platform show "$T/secret.yaml" >/dev/null 2>"$T/show.err"
check "no warning once the file is 0600" test ! -s "$T/show.err"
finish
