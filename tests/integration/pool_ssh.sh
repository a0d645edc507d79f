#!/usr/bin/env bash
# Board pools (docs/design.md#pools-and-lava) over two real sshd boards on loopback:
#  1. a platform with boards: runs (variant, round) units on both boards in parallel, every
#     board runs every variant, the board is stored per boot and as the jobs' classifier, the
#     plain table keeps its one-board shape and `diff --by board` spreads the boards;
#  2. --max-jobs interrupts the pool and --resume runs only the units with jobs left;
#  3. -p given twice makes a pool; a board killed in the middle of a unit leaves the pool
#     with an event and the rest of its unit runs on the other board;
#  4. every board gone: the rounds fail with the boards' reasons, nothing stored is lost.
. "$(dirname "$0")/lib.sh"
fx="$SRC/tests/integration/sshd-fixture.sh"
SSHD_FIXTURE_OWNER=$$ bash "$fx" start "$T/s1" >/dev/null || { bad "sshd fixture 1 starts"; finish; exit 1; }
SSHD_FIXTURE_OWNER=$$ bash "$fx" start "$T/s2" >/dev/null || { bad "sshd fixture 2 starts"; finish; exit 1; }
trap 'bash "$fx" stop "$T/s1" >/dev/null 2>&1; bash "$fx" stop "$T/s2" >/dev/null 2>&1; rm -rf "$T"' EXIT
port() { sed -n 's/^SSHD_PORT=//p' "$1/env"; }

mkdir -p "$T/plats/pool2"
cat >"$T/plats/pool2/platform.yaml" <<YAML
name: pool2
connection: {type: ssh, host: 127.0.0.1, user: $(id -un), connect_timeout_s: 5, reconnect_deadline_s: 6}
boot: {timeout_s: 6}
boards:
  - {name: left, connection: {port: $(port "$T/s1"), key: $T/s1/id_ed25519, known_hosts: $T/s1/known_hosts}}
  - {name: right, connection: {port: $(port "$T/s2"), key: $T/s2/id_ed25519, known_hosts: $T/s2/known_hosts}}
YAML
export KVB_PLATFORM_PATH=$T/plats
cat >"$T/a.yaml" <<'YAML'
config: {iterations: 4}
workloads:
  - {name: sched_pipe, params: {loops: 20000}}
variants: [{name: one, cpus: "0"}, {name: two, cpus: "0-1"}]
YAML

# 1. boards: in a platform
"$KVB" platform check pool2 >"$T/check" 2>&1; rc=$?
check "platform check probes every board (rc $rc)" sh -c "test $rc -eq 0 && grep -q '^board left:' '$T/check' && grep -q '^board right:' '$T/check' && test \$(grep -c '^reachable: kernel' '$T/check') -eq 2"
db=$T/p.db
"$KVB" run "$T/a.yaml" -p pool2 -d "$db" --rounds 2 >"$T/out" 2>"$T/err"; rc=$?
check "pool run exits 0 (rc $rc)" test "$rc" -eq 0
check "8 jobs ok" test "$(q "$db" "select count(*) from job where status='ok'")" = "8"
check "4 boots, 2 per board" test "$(q "$db" "select group_concat(n, '/') from (select board, count(*) n from boot group by board order by board)")" = "2/2"
check "every board ran every variant" test "$(q "$db" "select group_concat(n, '/') from (select board, count(distinct variant_id) n from boot group by board order by board)")" = "2/2"
check "board classifier on every job" test "$(q "$db" "select count(*) from classifier where key='board' and metric_id is null")" = "8"
check "a job's board is its boot's board" test "$(q "$db" "select count(*) from job j join boot b on b.variant_id=j.variant_id and b.round=j.round join classifier c on c.job_id=j.id and c.key='board' where c.value=b.board")" = "8"
check "the pool is logged" grep -q "pool of 2 board(s), 4 unit(s) to run" "$T/err"
check "job lines name their board" grep -Eq "\(round [12], board (left|right)\) ok" "$T/err"
# two boards count finished jobs together: every number 1..8 once (it printed some twice, skipped others)
check "the [job N/8] lines count 1..8, each once" test "$(sed -n 's/.*\[job \([0-9]*\)\/8\].*/\1/p' "$T/err" | sort -n | tr '\n' ' ')" = "1 2 3 4 5 6 7 8 "
"$KVB" platform show pool2 >"$T/show" 2>&1
check "platform show states the pool's timeouts" sh -c "grep -Eq '^#   boot.timeout_s +6\$' '$T/show' && grep -Eq '^#   connection.reconnect_deadline_s +6\$' '$T/show' && grep -q 'waited for up to boot.timeout_s (6 s)' '$T/show'"
check "table keeps one row per variant and metric (no board split)" test "$(grep -c '^| sched_pipe' "$T/out")" = "6"
"$KVB" diff -d "$db" --by board --metric usecs_per_op >"$T/by" 2>&1
check "diff --by board has a column per board" sh -c "grep -q ' left ' '$T/by' && grep -q ' right ' '$T/by'"
check "diff --by board: one row per variant" test "$(grep -c '^| sched_pipe' "$T/by")" = "2"

# 2. interrupted pool, then --resume runs only the units with jobs left
db=$T/r.db
"$KVB" run "$T/a.yaml" -p pool2 -d "$db" --rounds 2 --max-jobs 3 --no-diff >/dev/null 2>"$T/err1"; rc=$?
[ "$rc" -eq 1 ] || cat "$T/err1" >&2
check "interrupted pool run exits 7 (rc $rc)" test "$rc" -eq 7
left=$(q "$db" "select count(*) from (select distinct variant_id, round from job where status in ('pending','running'))")
check "some units left to do ($left)" test "$left" -ge 1 -a "$left" -lt 4
"$KVB" run --resume -d "$db" --no-diff >/dev/null 2>"$T/err2"; rc=$?
check "resume exits 0 (rc $rc)" test "$rc" -eq 0
check "resume runs only the $left unit(s) left" grep -q "pool of 2 board(s), $left unit(s) to run" "$T/err2"
check "8 jobs ok after resume" test "$(q "$db" "select count(*) from job where status='ok'")" = "8"
check "no job ran twice" test "$(q "$db" "select count(*) from job where attempts <> 1")" = "0"

# 3. -p twice, one board killed in the middle of a unit
cat >"$T/b.yaml" <<'YAML'
config: {iterations: 8}
workloads:
  - {name: sched_pipe, params: {loops: 100000}}
variants: [{name: one}, {name: two}]
YAML
for s in s1 s2; do printf '  reconnect_deadline_s: 6\nboot: {timeout_s: 6}\n' >>"$T/$s/platform.yaml"; done
db=$T/k.db
"$KVB" run "$T/b.yaml" -p "$T/s1/platform.yaml" -p "$T/s2/platform.yaml" -d "$db" --rounds 2 --no-diff >"$T/out3" 2>"$T/err3" &
run=$!
# wait until the second board (sshd-fixture#2) is in the middle of a job of its FIRST unit, then
# take it away: a unit of its own is then still to come, so the loss cannot race the run's end
for i in $(seq 600); do
  [ "$(q "$db" "select count(*) from job j join boot b on b.variant_id=j.variant_id and b.round=j.round where j.status='running' and b.board='sshd-fixture#2' and (select count(*) from boot where board='sshd-fixture#2') = 1" 2>/dev/null)" = "1" ] && break
  sleep 0.1
done
bash "$fx" stop "$T/s2" >/dev/null 2>&1
wait "$run"; rc=$?
check "run with a lost board exits 0: every job ran elsewhere (rc $rc)" test "$rc" -eq 0
check "16 jobs ok" test "$(q "$db" "select count(*) from job where status='ok'")" = "16"
[ "$(q "$db" "select count(*) from event where message like 'board sshd-fixture#2 leaves the pool:%'")" = 1 ] || {
  echo "--- the run's log:" >&2; cat "$T/err3" >&2; q "$db" "select id, level, message from event" >&2; }
check "the lost board left the pool with an event" test "$(q "$db" "select count(*) from event where level='error' and message like 'board sshd-fixture#2 leaves the pool:%'")" = "1"
check "the unit went to the other board (event)" test "$(q "$db" "select count(*) from event where message like '%goes to another board%'")" -ge 1
check "the lost job's attempt is kept with its reason" test "$(q "$db" "select count(*) from job_attempt where status='failed' and error <> ''")" -ge 1
check "the jobs after the loss ran on the surviving board" test "$(q "$db" "select count(*) from boot where board='sshd-fixture' and status='ok'")" -ge 3
check "every job has a board" test "$(q "$db" "select count(*) from classifier where key='board' and metric_id is null")" = "16"

# 4. every board gone: rounds fail with the boards' reasons, nothing stored is lost
bash "$fx" stop "$T/s1" >/dev/null 2>&1
db=$T/d.db
"$KVB" run "$T/a.yaml" -p pool2 -d "$db" --rounds 2 --no-diff >/dev/null 2>"$T/err4"; rc=$?
check "every board gone exits 1 (rc $rc)" test "$rc" -eq 1
check "every job skipped" test "$(q "$db" "select count(*) from job where status='skipped'")" = "8"
check "variants failed with the boards' reasons" test "$(q "$db" "select count(*) from variant where status='failed' and error like 'no board left in the pool (left: %right: %'")" = "2"
check "both boards left the pool" test "$(q "$db" "select count(*) from event where message like 'board % leaves the pool:%'")" = "2"
check "each variant's failure is stored once" test "$(q "$db" "select count(*) from event where message like 'variant % failed:%'")" = "2"
check "run marked incomplete" test "$(q "$db" "select status from run")" = "incomplete"
"$KVB" platform check pool2 >"$T/check2" 2>&1; rc=$?
check "platform check with every board down exits 4 (rc $rc)" sh -c "test $rc -eq 4 && test \$(grep -c '^unreachable: ' '$T/check2') -eq 2"
[ "$fail" -eq 0 ] || { for f in err err2 err3 err4; do echo "--- $f:" >&2; cat "$T/$f" >&2; done; }
finish
