#!/usr/bin/env bash
# --resume keeps each physical boot its own unit (issue 38). A new user's report: after Ctrl-C
# in round 2 and `--resume`, the killed boot's record was rewritten (boots 1, 3, 4, 5; boot 2
# gone) and its jobs were counted with the resumed boot's as one unit. Here a board that boots
# each round (a flash hook on this host: the engine path of every flashing board) runs two
# variants, 3 rounds of 3 hackbench jobs; the second job of base's round 2 blocks (a hackbench
# in PATH that sleeps when told) until the test sends SIGINT, which it does once the DB shows
# the round's first job stored and the second running (polled: no fixed sleeps, any load).
. "$(dirname "$0")/lib.sh"
fake_kernel "$T/Image"
fake_kernel "$T/Image2"
mkdir -p "$T/plat" "$T/bin"
# the flash hook: booting base's round 2 the first time arms the gate (content: jobs seen)
cat >"$T/plat/flash" <<EOF
#!/bin/sh
if [ "\$KVB_VARIANT" = base ] && [ "\$KVB_ROUND" = 2 ] && [ ! -e "$T/blocked" ]; then echo 0 >"$T/gate"; fi
exit 0
EOF
# hackbench: the second run after the gate was armed blocks until killed
real=$(command -v hackbench)
cat >"$T/bin/hackbench" <<EOF
#!/bin/sh
if [ -e "$T/gate" ]; then
  n=\$(cat "$T/gate")
  if [ "\$n" -ge 1 ]; then rm -f "$T/gate"; touch "$T/blocked"; exec sleep 3600; fi
  echo \$((n + 1)) >"$T/gate"
fi
exec "$real" "\$@"
EOF
chmod +x "$T/plat/flash" "$T/bin/hackbench"
printf 'name: hooked\nconnection: {type: local}\nflash: {method: command, command: flash}\n' >"$T/plat/platform.yaml"
cat >"$T/a.yaml" <<'YAML'
config: {iterations: 9, warmup: 0}  # 3 a round; the checks count jobs, so no warm-up job per boot
workloads: [{name: hackbench, params: {groups: 1, fds: 2, loops: 10}}]
YAML
db=$T/r.db
export PATH="$T/bin:$PATH"
"$KVB" run "$T/a.yaml" -p "$T/plat" -d "$db" --rounds 3 -V "base=$T/Image" -V "patch=$T/Image2" --no-diff \
  >/dev/null 2>"$T/run.err" &
pid=$!
r2() { q "$db" "select count(*) from job j join variant v on v.id = j.variant_id where v.name = 'base' and j.round = 2 and j.status = '$1'" 2>/dev/null; }
# polled until then (a deadline only against a hang: the blocked job waits for the signal)
until { [ "$(r2 ok)" = 1 ] && [ "$(r2 running)" = 1 ] && [ -e "$T/blocked" ]; } || [ $SECONDS -ge 240 ] || ! kill -0 "$pid" 2>/dev/null; do
  sleep 0.1
done
check "setup: base's round 2 has one job stored and the next one running" test "$(r2 ok) $(r2 running)" = "1 1"
kill -INT "$pid"; wait "$pid"; rc=$?
check "SIGINT in the middle of round 2: exit 7 (rc $rc)" test "$rc" = 7
[ "$rc" = 7 ] || cat "$T/run.err" >&2
check "the killed boot is kept, marked interrupted" \
  test "$(q "$db" "select b.seq || ':' || b.status from boot b join variant v on v.id = b.variant_id where v.name = 'base' and b.round = 2")" = "2:interrupted"
"$KVB" run --resume -d "$db" --no-diff >/dev/null 2>"$T/resume.err"; rc=$?
check "--resume finishes the run (rc $rc)" test "$rc" = 0
[ "$rc" = 0 ] || cat "$T/resume.err" >&2

bq() { q "$db" "select group_concat(x, ' ') from ($1)"; }
check "base's round 2 has two boots, the killed one and the resumed one" \
  test "$(bq "select b.seq || ':' || b.status as x from boot b join variant v on v.id = b.variant_id where v.name = 'base' and b.round = 2 order by b.seq")" = "2:interrupted 3:ok"
check "base booted 4 times (rounds 1 2 2 3), patch 3 times" \
  test "$(bq "select v.name || ':' || (select group_concat(round, '/') from (select round from boot where variant_id = v.id order by seq)) as x from variant v order by v.position")" = "base:1/2/2/3 patch:1/2/3"
check "round 2's jobs of base: 1 in the killed boot, 2 in the resumed one" \
  test "$(bq "select b.seq || ':' || count(*) as x from job j join boot b on b.id = j.boot_id join variant v on v.id = j.variant_id where v.name = 'base' and j.round = 2 and j.status = 'ok' group by b.id order by b.seq")" = "2:1 3:2"
check "every ok job names a boot of its own variant and round" \
  test "$(q "$db" "select count(*) from job j join boot b on b.id = j.boot_id where j.status = 'ok' and b.variant_id = j.variant_id and b.round = j.round")" = 18
check "the results view: base's jobs in 4 boots, 3 in the resumed one" \
  test "$(bq "select boot || ':' || count(distinct job_id) as x from results where variant = 'base' and metric = 'time' group by boot order by boot")" = "1:3 2:1 3:2 4:3"
check "show variants counts the boots that ran jobs" \
  test "$("$KVB" show variants -d "$db" --format csv | tail -n +2 | cut -d, -f1,2,8 | tr '\n' ' ')" = "1,base,4 1,patch,3 "
"$KVB" diff -d "$db" --metric time --format json >"$T/diff.json" 2>"$T/diff.err"; rc=$?
check "diff --format json (rc $rc)" test "$rc" = 0
boots=$(python3 - "$T/diff.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
out = []
def walk(o):
    if isinstance(o, dict):
        if "variant" in o and "boots" in o and "boot_ids" in o:
            out.append("%s:%d:%d" % (o["variant"], o["boots"], len(set(o["boot_ids"]))))
        for v in o.values():
            walk(v)
    elif isinstance(o, list):
        for v in o:
            walk(v)
walk(doc)
print(" ".join(out))
PY
)
check "diff counts the killed and the resumed boot as two units: base 4 boots, patch 3 ($boots)" test "$boots" = "base:4:4 patch:3:3"
finish
