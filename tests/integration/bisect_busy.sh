#!/usr/bin/env bash
# kvbench bisect on a busy host (issue 38, item 4), through the real binary and git, without
# kernels: a five-commit series whose "build" (a vendor build command) copies the commit's
# `cost` file into its image, a board that is this host behind a command flasher (the hook
# copies the flashed image to $T/current: each round boots), and a fake `perf` that prints
# the flashed cost as usecs/op. The host is a fake procfs (KVB_HOST_PROC) whose `stat` is a
# FIFO fed one reading per read, as in host_witness.sh: job N's readings are reads 2N-1 and 2N
# (retry_disturbed: 0, so no job runs twice), and a listed job shows 50 % steal. The fake
# perf prints 1 us/op for a listed job (what the host did to it, not the kernel): a bisect
# that judged from a disturbed job would see the bad endpoint as good.
#   1. a quiet host: each endpoint and each step stops at 2 boots (one run) when they decide;
#   2. the bad endpoint's every job disturbed: left out, a spare boot of it, the right answer;
#   3. every job of the steps disturbed: spare boots up to the budget, then exit 1 and a last
#      line saying the host was too busy to decide the step.
. "$(dirname "$0")/lib.sh"
export XDG_CACHE_HOME=$T/cache
R=$T/repo
git init -q "$R"
git -C "$R" config user.email t@example.com
git -C "$R" config user.name t
for i in 0 1 2 3 4; do
  # c2 is the regression: 10 us/op before it, 20 from it on
  if [ "$i" -ge 2 ]; then echo 20 >"$R/cost"; else echo 10 >"$R/cost"; fi
  echo "$i" >"$R/n"
  git -C "$R" add -A && git -C "$R" commit -qm "c$i"
  git -C "$R" tag "c$i"
done
reg=$(git -C "$R" rev-parse c2)
# the image: binary (a text file is no kernel image), then a Linux banner with the version the build
# asks for (`uname -v` proves the commit) and the cost
printf '#!/bin/sh\nhead -c 64 /dev/zero >"$KVB_OUT/Image"\nprintf "\\nLinux version 6.1.0-kvb (t@example.com) #%%s SMP\\ncost=%%s\\n" "$KBUILD_BUILD_VERSION" "$(cat "$KVB_SRC/cost")" >>"$KVB_OUT/Image"\n' >"$T/build.sh"
mkdir -p "$T/plat" "$T/bin"
printf '#!/bin/sh\ncp "$KVB_KERNEL" "%s/current"\n' "$T" >"$T/plat/flash"
printf 'name: hooked\nconnection: {type: local}\nflash: {method: command, command: flash}\n' >"$T/plat/platform.yaml"
# the fake perf: job k (its k-th call) prints the flashed cost, +0.1 % every third job (boots
# differ a little), or 1 us/op when k is in $T/disturbed
cat >"$T/bin/perf" <<EOF
#!/bin/sh
k=\$((\$(cat "$T/calls" 2>/dev/null || echo 0) + 1)); echo \$k >"$T/calls"
c=\$(sed -n 's/^cost=//p' "$T/current")
case " \$(cat "$T/disturbed") " in *" \$k "*) c=1 ;; esac
u=\$(awk -v c=\$c -v k=\$k 'BEGIN { printf "%.4f", c * (1 + 0.001 * (k % 3)) }')
printf '# Running sched/pipe benchmark...\n\n     Total time: 0.010 [sec]\n\n      %s usecs/op\n      %d ops/sec\n' \$u \$((1000000 / \${c%%.*}))
EOF
# the board's uname answers for the flashed image (this host's for anything else)
cat >"$T/bin/uname" <<EOF
#!/bin/sh
case "\$1" in
-r) echo 6.1.0-kvb ;;
-v) sed -n 's/^Linux version [^(]*([^)]*) //p' "$T/current" ;;
*) exec /bin/uname "\$@" ;;
esac
EOF
chmod +x "$T/bin/uname" "$T/bin/perf" "$T/build.sh" "$T/plat/flash"
cat >"$T/a.yaml" <<YAML
config: {iterations: 4, warmup: 0, retry_disturbed: 0}
build: {command: $T/build.sh, outputs: {kernel: Image}}
workloads:
  - {name: sched_pipe, params: {loops: 1000}}
YAML
P=$T/proc
host_proc "$P"
# the jobs listed in $T/disturbed (as it is when each is read) are disturbed
feed() { host_stat_feed "$P" "@$T/disturbed"; }
# bisect NAME DISTURBED-JOBS...: one bisect of c0..c4 into $T/NAME.db, its exit status in $T/NAME.rc
bisect() {
  local name=$1; shift
  echo "$*" >"$T/disturbed"
  rm -f "$T/calls"
  feed & local fp=$!
  PATH="$T/bin:$PATH" KVB_HOST_PROC=$P timeout 300 "$KVB" bisect "$T/a.yaml" -p "$T/plat" --repo "$R" --good c0 --bad c4 \
    --metric sched_pipe/usecs_per_op --threshold 20 -d "$T/$name.db" >"$T/$name.out" 2>"$T/$name.err"
  echo $? >"$T/$name.rc"
  kill $fp 2>/dev/null; wait $fp 2>/dev/null
}

# 1. a quiet host: 4 jobs a run, 2 boots of 2 jobs; every measurement decides at 2 boots a side
bisect quiet
check "quiet: exit 0 ($(cat "$T/quiet.rc"))" test "$(cat "$T/quiet.rc")" = 0
check "quiet: names c2" grep -q "^first bad commit: $reg " "$T/quiet.out"
check "quiet: the endpoints decided at 2 boots each: no extra endpoint run" \
  test "$(q "$T/quiet.db" "select count(*) from bisect_endpoint_run")" = 0
check "quiet: every step decided in one run of 2 boots ($(q "$T/quiet.db" "select group_concat(rounds, ' ') from bisect_step"))" \
  test "$(q "$T/quiet.db" "select count(*) from bisect_step where rounds <> 2 or outcome not in ('good', 'bad')")" = 0
check "quiet: one run per measurement (2 endpoints + the steps)" \
  test "$(q "$T/quiet.db" "select count(*) from run")" = "$(($(q "$T/quiet.db" "select count(*) from bisect_step") + 2))"
check "quiet: nothing disturbed" test "$(q "$T/quiet.db" "select count(*) from job where status = 'disturbed'")" = 0

# 2. the bad endpoint's first run (jobs 5-8) disturbed: its jobs are left out, never judged (they
# read 1 us/op: bad would be better than good); it gets a spare boot and the bisect goes on
bisect endpoint 5 6 7 8
check "disturbed endpoint: exit 0 ($(cat "$T/endpoint.rc"); $(tail -n 1 "$T/endpoint.err"))" test "$(cat "$T/endpoint.rc")" = 0
check "disturbed endpoint: names c2" grep -q "^first bad commit: $reg " "$T/endpoint.out"
check "disturbed endpoint: its 4 jobs stored disturbed" \
  test "$(q "$T/endpoint.db" "select count(*) from job where status = 'disturbed'")" = 4
check "disturbed endpoint: it says so" \
  grep -q "bisect: the bad endpoint [0-9a-f]*: 4 of 4 job(s) disturbed by the host (steal 50 %): 0 re-run clean, 4 left out" "$T/endpoint.err"
check "disturbed endpoint: and measures bad once more, good not" \
  grep -q "good and bad not decided yet (.*, 2 and 0 boot(s)): one more boot of bad" "$T/endpoint.err"
check "disturbed endpoint: the spare boots are bad's only (2: one boot a side never decides)" \
  test "$(q "$T/endpoint.db" "select group_concat(endpoint, ' ') from bisect_endpoint_run")" = "bad bad"
check "disturbed endpoint: the change measured is the clean one (+100 %, not -90 %)" \
  test "$(q "$T/endpoint.db" "select cast(round(change_pct) as int) from bisect")" = 100

# 3. every job from the first step on disturbed: the step gets its spare boots (3), then the bisect
# stops undecided (exit 1) and its last line says the host was too busy
bisect busy $(seq 9 200)
check "too busy: exit 1, undecided ($(cat "$T/busy.rc"))" test "$(cat "$T/busy.rc")" = 1
check "too busy: the last line says why and what to do ($(tail -n 1 "$T/busy.err"))" \
  test "$(tail -n 1 "$T/busy.err")" = "kvbench: error: the host was too busy to decide step 1: 16 of 16 jobs disturbed; run on a quieter host or on the instruction-clock board -p qemu-x86_64-icount"
check "too busy: step 1 measured 4 times (its run and 3 spare boots)" \
  test "$(q "$T/busy.db" "select count(*) from run where command_line like '%(step 1,%'")" = 4
check "too busy: no step judged, the step stored as abort with the reason" \
  test "$(q "$T/busy.db" "select outcome || ' ' || (reason like 'the host was too busy%') from bisect_step")" = "abort 1"
check "too busy: the session failed, resumable" test "$(q "$T/busy.db" "select status from bisect")" = failed
check "too busy: no bisect state left in the repository" test -z "$(ls "$R/.git" | grep -i bisect)"
finish
