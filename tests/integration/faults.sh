#!/usr/bin/env bash
# Faults: (1) the results disk fills up during a run (a small tmpfs; skipped with a message
# when it cannot be mounted): the run stops with exit 5 and a clear message, the DB passes
# integrity_check, and after space is freed `run --resume` completes with every job stored
# once. (2) `query` and `diff` while a run writes (WAL): no errors, counts never go down, and
# every committed job has its metrics (a job and its metrics are one transaction).
. "$(dirname "$0")/lib.sh"
cat >"$T/a.yaml" <<'YAML'
config: {iterations: 20}
workloads: [{name: hackbench, params: {groups: 1, fds: 2, loops: 10}}]
variants: [{name: a}, {name: b}]
YAML

mnt=$T/mnt
mkdir -p "$mnt"
if mount -t tmpfs -o size=8m,mode=0755 kvb-full "$mnt" 2>"$T/mount.err"; then
  trap 'umount "$mnt" 2>/dev/null; rm -rf "$T"' EXIT
  db=$mnt/r.db
  # a first job creates the DB and schema; then leave ~160 KB: a few jobs' WAL frames
  "$KVB" run "$T/a.yaml" -p local -d "$db" --max-jobs 1 --no-diff 2>/dev/null
  avail=$(df --output=avail -B1 "$mnt" | tail -1)
  fallocate -l $((avail - 160 * 1024)) "$mnt/filler" 2>/dev/null ||
    dd if=/dev/zero of="$mnt/filler" bs=4096 count=$(((avail - 160 * 1024) / 4096)) 2>/dev/null
  "$KVB" run --resume -d "$db" --no-diff >"$T/full.out" 2>"$T/full.err"; rc=$?
  check "disk full: exit 5 (rc $rc)" test "$rc" -eq 5
  check "disk full: says the disk is full" grep -q "database or disk is full\|No space left on device" "$T/full.err"
  check "disk full: says the run stopped and how to resume" grep -q "the run stopped.*kvbench run --resume 1 -d $db" "$T/full.err"
  stored=$(sqlite3 "$db" "select count(*) from job where status='ok'")
  check "disk full: some jobs stored before ($stored), not all" test "$stored" -gt 1 -a "$stored" -lt 40
  check "disk full: no job marked failed or skipped for our disk" \
    test "$(sqlite3 "$db" "select count(*) from job where status in ('failed','skipped')")" = 0
  check "disk full: integrity_check ok while still full" test "$(sqlite3 "$db" 'pragma integrity_check')" = ok
  rm -f "$mnt/filler"
  "$KVB" run --resume -d "$db" --no-diff 2>"$T/resume.err"; rc=$?
  check "after freeing space: resume exits 0 (rc $rc)" test "$rc" -eq 0
  check "after resume: 40 jobs ok" test "$(q "$db" "select count(*) from job where status='ok'")" = 40
  check "after resume: each seq once" test "$(q "$db" "select count(distinct seq) from job")" = 40
  check "after resume: one metric per job" test "$(q "$db" "select count(*) from metric")" = 40
  check "after resume: run ok" test "$(q "$db" "select status from run")" = ok
  check "after resume: integrity_check ok" test "$(sqlite3 "$db" 'pragma integrity_check')" = ok
  umount "$mnt"
else
  echo "skipped: disk-full case needs to mount a tmpfs ($(cat "$T/mount.err"))" >&2
fi

# Readers during a run: query and diff against the DB the run is writing.
db=$T/c.db
"$KVB" run "$T/a.yaml" -p local -d "$db" --no-diff 2>/dev/null &
run=$!
until [ -s "$db" ] && [ "$(sqlite3 "$db" "select count(*) from job where status='ok'" 2>/dev/null || echo 0)" -gt 0 ]; do
  sleep 0.1
done
prev=0 reads=0 errors=0 down=0 torn=0
while kill -0 "$run" 2>/dev/null; do
  # one statement = one snapshot: committed ok jobs and jobs that have metrics must agree
  out=$("$KVB" query -d "$db" -f csv "select (select count(*) from job where status='ok'), (select count(distinct job_id) from metric)" 2>>"$T/q.err") ||
    errors=$((errors + 1))
  n=${out##*$'\n'}
  ok=${n%,*} withm=${n#*,}
  [ "$ok" = "$withm" ] || torn=$((torn + 1))
  [ "$ok" -ge "$prev" ] 2>/dev/null || down=$((down + 1))
  prev=$ok
  "$KVB" diff -d "$db" --format csv >"$T/diff.csv" 2>>"$T/d.err" || errors=$((errors + 1))
  reads=$((reads + 1))
done
wait "$run"; rc=$?
check "concurrent: the run exits 0 (rc $rc)" test "$rc" -eq 0
check "concurrent: readers ran while it wrote ($reads rounds)" test "$reads" -ge 3
check "concurrent: no reader error ($errors)" test "$errors" -eq 0 -a ! -s "$T/q.err" -a ! -s "$T/d.err"
check "concurrent: ok-job count never went down" test "$down" -eq 0
check "concurrent: every committed job had its metrics ($torn torn reads)" test "$torn" -eq 0
check "concurrent: all 40 stored" test "$(q "$db" "select count(*) from job where status='ok'")" = 40

# query reads through the store's read-only cursor: a statement that would write is refused (even
# one SQLite's query_only would let through to a temp table), so is a second statement
"$KVB" query -d "$db" "DELETE FROM metric" >/dev/null 2>"$T/w.err"; rc=$?
check "query DELETE: exit 3, not a read-only statement (rc $rc)" \
  sh -c "test $rc -eq 3 && grep -q 'not a read-only statement' '$T/w.err'"
"$KVB" query -d "$db" "CREATE TEMP TABLE t AS SELECT 1" >/dev/null 2>"$T/w2.err"; rc=$?
check "query CREATE TEMP TABLE: exit 3 (rc $rc)" sh -c "test $rc -eq 3 && grep -q 'not a read-only statement' '$T/w2.err'"
"$KVB" query -d "$db" "SELECT 1; DELETE FROM metric" >/dev/null 2>"$T/w3.err"; rc=$?
check "query with a second statement: exit 3 (rc $rc)" sh -c "test $rc -eq 3 && grep -q 'only one statement' '$T/w3.err'"
check "the metrics are all there" test "$(q "$db" "select count(distinct job_id) from metric")" = 40
finish
