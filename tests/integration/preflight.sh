#!/usr/bin/env bash
# Preflight (issue 18): a missing or wrong variant file, an unreachable URL, a missing ssh
# key and a tool missing on the board are reported by `agenda check -p`, `run --dry-run`
# and `run` before anything is flashed; `run` stops unless --keep-going.
. "$(dirname "$0")/lib.sh"
export KVB_CACHE_DIR=$T/cache
fake_kernel "$T/Image"
# noise around a kernel banner: what kvb_kimage_check takes for a kernel (qemu refuses anything else)
{ head -c 4096 /dev/urandom; printf 'Linux version 6.1.0-kvb (t@example.com) (gcc 12) #1 SMP PREEMPT\n'; } >"$T/Kimage"
sha=$(sha256sum "$T/Image" | cut -d' ' -f1)
mkdir -p "$T/plat"
# a hook flasher that records every flash: the proof that nothing was flashed
printf '#!/bin/sh\necho "$KVB_VARIANT" >> "%s/flashed"\n' "$T" >"$T/plat/flash"
chmod +x "$T/plat/flash"
printf 'name: hooked\nconnection: {type: local}\nflash: {method: command, command: flash}\n' >"$T/plat/platform.yaml"
cat >"$T/a.yaml" <<'YAML'
config: {iterations: 1}
workloads: [{name: hackbench, params: {groups: 1, fds: 2, loops: 10}}]
YAML
V="-V a=$T/Image -V b=$T/Imaeg"
"$KVB" agenda check "$T/a.yaml" -p "$T/plat" $V >/dev/null 2>"$T/e1"; rc=$?
check "agenda check -p: missing kernel is exit 3 (rc $rc)" test "$rc" -eq 3
check "agenda check -p names the variant and the file" grep -q "variant 'b' kernel: '$T/Imaeg' does not exist" "$T/e1"
"$KVB" run "$T/a.yaml" -p "$T/plat" $V --dry-run >"$T/o2" 2>"$T/e2"; rc=$?
check "run --dry-run: exit 3 (rc $rc)" test "$rc" -eq 3
check "run --dry-run still prints the plan" grep -q "round 1" "$T/o2"
check "run --dry-run names the problem" grep -q "variant 'b' kernel" "$T/e2"
"$KVB" run "$T/a.yaml" -p "$T/plat" $V -d "$T/1.db" >/dev/null 2>"$T/e3"; rc=$?
check "run: stops with exit 3 (rc $rc)" test "$rc" -eq 3
check "run: nothing was flashed" test ! -e "$T/flashed"
check "run: no database written" test ! -e "$T/1.db"
check "run: says how to go on anyway" grep -q -- "--keep-going" "$T/e3"
"$KVB" run "$T/a.yaml" -p "$T/plat" $V -d "$T/2.db" --keep-going --no-diff >/dev/null 2>"$T/e4"; rc=$?
check "run --keep-going runs the good variant (rc $rc)" test "$rc" -eq 1 -a "$(cat "$T/flashed" 2>/dev/null)" = a
check "run --keep-going: the bad variant failed" test "$(q "$T/2.db" "select status from variant where name='b'")" = failed
rm -f "$T/flashed"
# a wrong sha256 for a local file
"$KVB" agenda check "$T/a.yaml" -p "$T/plat" -V "a=$T/Image,sha256=$(printf '0%.0s' $(seq 64))" >/dev/null 2>"$T/e5"; rc=$?
check "sha256 mismatch caught by agenda check (rc $rc)" grep -q "has sha256 $sha, expected 0000" "$T/e5"
"$KVB" agenda check "$T/a.yaml" -p "$T/plat" -V "a=$T/Image,sha256=$sha" >/dev/null 2>"$T/e6"; rc=$?
check "the right sha256 passes (rc $rc)" test "$rc" -eq 0
# URLs: refused without sha256, unreachable with one
"$KVB" agenda check "$T/a.yaml" -p "$T/plat" -V "u=http://127.0.0.1:9/Image" >/dev/null 2>"$T/e7"; rc=$?
check "URL without sha256 refused before the run (rc $rc)" grep -q "refusing URL 'http://127.0.0.1:9/Image' without a sha256" "$T/e7"
"$KVB" agenda check "$T/a.yaml" -p "$T/plat" -V "u=http://127.0.0.1:9/Image,sha256=$sha" >/dev/null 2>"$T/e8"; rc=$?
check "unreachable URL reported (rc $rc)" grep -q "'http://127.0.0.1:9/Image' is not reachable" "$T/e8"
"$KVB" agenda check "$T/a.yaml" -p "$T/plat" -V "u=file://$T/Image,sha256=$sha" >/dev/null 2>"$T/e9"; rc=$?
check "readable file:// URL passes (rc $rc)" test "$rc" -eq 0
# a tool the workload needs is not on the board: PATH without hackbench
mkdir -p "$T/bin"; ln -s "$(command -v sh)" "$T/bin/sh"
PATH=$T/bin "$KVB" agenda check "$T/a.yaml" -p "$T/plat" -V "a=$T/Image" >/dev/null 2>"$T/e10"; rc=$?
check "missing tool on the board is a problem (rc $rc)" grep -q "workload hackbench needs 'hackbench', which is not on the PATH of hooked" "$T/e10"
# the platform's ssh key file
mkdir -p "$T/sshplat"
printf 'name: b\nconnection: {type: ssh, host: 127.0.0.1, port: 9, key: id_nokey, connect_timeout_s: 1}\n' >"$T/sshplat/platform.yaml"
"$KVB" agenda check "$T/a.yaml" -p "$T/sshplat" >/dev/null 2>"$T/e11"; rc=$?
check "missing ssh key file is a problem (rc $rc)" grep -q "connection.key: '$T/sshplat/id_nokey' does not exist" "$T/e11"
check "an unreachable board is only a note" grep -q "tools on the target not checked: b does not answer now" "$T/e11"
"$KVB" platform check "$T/sshplat" >"$T/o12" 2>&1; rc=$?
check "platform check flags the missing key (rc $rc)" grep -q "id_nokey' does not exist" "$T/o12"
# a relative platform path: the hook is found (it used to be looked up twice relative)
(cd "$T" && "$KVB" run a.yaml -p plat -V "a=Image" -d 3.db --no-diff >/dev/null 2>"$T/e13"); rc=$?
check "relative -p PLATFORM: the hook runs (rc $rc)" test "$rc" -eq 0
# a variant with no kernel on a flasher that boots each variant's own kernel (the quickstart
# agenda's variants get theirs from -V): caught before anything boots, after -V is applied
"$KVB" agenda check "$SRC/agendas/quickstart.yaml" -p qemu-x86_64 >/dev/null 2>"$T/e14"; rc=$?
check "agenda check -p qemu-x86_64 without -V: exit 3 (rc $rc)" test "$rc" -eq 3
check "names the variant, platform, flash method and -V" grep -q "variant 'generic-1cpu' has no kernel, but platform qemu-x86_64 boots each variant's own kernel (flash method qemu): give it \`kernel:\` in the agenda, or -V generic-1cpu=KERNEL" "$T/e14"
check "one problem per variant" grep -q "preflight: 3 problems" "$T/e14"
"$KVB" run "$SRC/agendas/quickstart.yaml" -p qemu-x86_64 --dry-run >/dev/null 2>"$T/e15"; rc=$?
check "run --dry-run without -V: exit 3 (rc $rc)" test "$rc" -eq 3
"$KVB" agenda check "$SRC/agendas/quickstart.yaml" -p qemu-x86_64 -V "cloud=$T/Kimage" -V "generic=$T/Kimage" \
  -V "generic-1cpu=$T/Kimage" >/dev/null 2>"$T/e16"; rc=$?
check "-V gives the kernels: passes (rc $rc)" test "$rc" -eq 0
# issue 41: a file that is not a kernel is refused on qemu (it boots it itself) and only noted on
# a hook flasher (the hook may take a .deb)
head -c 4096 /dev/urandom >"$T/noise"
"$KVB" agenda check "$SRC/agendas/quickstart.yaml" -p qemu-x86_64 -V "cloud=$T/noise" -V "generic=$T/Kimage" \
  -V "generic-1cpu=$T/Kimage" >/dev/null 2>"$T/e16b"; rc=$?
check "qemu: a kernel that is not one is a problem (rc $rc)" sh -c "[ $rc -eq 3 ] && grep -q \"variant 'cloud' kernel: '$T/noise' is not a kernel image\" '$T/e16b'"
"$KVB" agenda check "$T/a.yaml" -p "$T/plat" -V "a=$T/noise" >/dev/null 2>"$T/e16c"; rc=$?
check "hook flasher: a note at check time (rc $rc)" sh -c "[ $rc -eq 0 ] && grep -q \"variant 'a' kernel: '$T/noise' is not a kernel image: it is data.*the variant will fail before anything is flashed (flash method command)\" '$T/e16c'"
# ... and in the run the variant fails before its hook runs; the other variant runs (issue 41's
# new user: a text file was copied to a Juno, which rebooted into a timeout)
printf 'my-hostname\n' >"$T/hostname"; rm -f "$T/flashed"
"$KVB" run "$T/a.yaml" -p "$T/plat" -V "a=$T/hostname" -V "b=$T/Image" -d "$T/5.db" --no-diff >/dev/null 2>"$T/e16d"; rc=$?
check "hook flasher: the text file's variant fails, not the run (rc $rc)" sh -c "[ $rc -eq 1 ] && [ \"\$(cat '$T/flashed')\" = b ]"
check "  its failure names the file and what it is" grep -q "variant a failed: kernel: not flashed: '$T/hostname' is not a kernel image: it is ASCII text" "$T/e16d"
check "  stored as the variant's failure" test "$(q "$T/5.db" "select status from variant where name='a'")" = failed
rm -f "$T/flashed"
# a kernel of another architecture than the platform's arch: refused the same way
mkdir -p "$T/x86plat"; cp "$T/plat/flash" "$T/x86plat/"
printf 'name: hooked-x86\narch: x86\nconnection: {type: local}\nflash: {method: command, command: flash}\n' >"$T/x86plat/platform.yaml"
"$KVB" run "$T/a.yaml" -p "$T/x86plat" -V "a=$T/Image" -d "$T/6.db" --no-diff >/dev/null 2>"$T/e16e"; rc=$?
check "arch: x86 and an arm64 Image: the variant fails unflashed (rc $rc)" sh -c "[ $rc -eq 1 ] && [ ! -e '$T/flashed' ]"
check "  naming the file, its format and the platform's arch" grep -q "'$T/Image' is a kernel for arm64 (Linux kernel ARM64 boot executable Image.*), but the platform's arch is x86" "$T/e16e"
# ssh-copy: nothing reaches the board's boot directory
mkdir -p "$T/copy2" "$T/boot2"
printf 'name: copier2\nconnection: {type: local}\nflash: {method: ssh-copy, boot_path: %s/boot2}\n' "$T" >"$T/copy2/platform.yaml"
"$KVB" run "$T/a.yaml" -p "$T/copy2" -V "a=$T/hostname" -d "$T/7.db" --no-diff >/dev/null 2>"$T/e16f"; rc=$?
check "ssh-copy: a text file is not copied (rc $rc)" sh -c "[ $rc -ne 0 ] && [ -z \"\$(ls -A '$T/boot2')\" ]"
check "  and says why" grep -q "'$T/hostname' is not a kernel image: it is ASCII text" "$T/e16f"
"$KVB" run "$SRC/agendas/quickstart.yaml" -p qemu-x86_64 -V "cloud=$T/Kimage" --dry-run >/dev/null 2>"$T/e17"; rc=$?
check "-V for one variant: the others are still named (rc $rc)" sh -c "[ $rc -eq 3 ] && grep -q \"variant 'generic' has no kernel\" '$T/e17' && ! grep -q \"variant 'cloud' has no kernel\" '$T/e17'"
"$KVB" run "$SRC/agendas/quickstart.yaml" -p qemu-x86_64 --series a..b --repo "$T" --dry-run >/dev/null 2>"$T/e18"; rc=$?
check "--series: its commits replace the variants, nothing to ask (rc $rc)" test "$rc" -eq 0
cat >"$T/git.yaml" <<'YAML'
config: {iterations: 1}
workloads: [{name: hackbench, params: {groups: 1, fds: 2, loops: 10}}]
build: {repo: /nonexistent, outputs: {kernel: arch/x86/boot/bzImage}}
variants: [{name: base, git: {rev: v6.1}}]
YAML
"$KVB" agenda check "$T/git.yaml" -p qemu-x86_64 >/dev/null 2>"$T/e19"; rc=$?
check "a git variant gets its kernel from the build (rc $rc)" test "$rc" -eq 0
"$KVB" agenda check "$T/a.yaml" -p "$T/plat" >/dev/null 2>"$T/e20"; rc=$?
check "a flash hook needs no kernel (rc $rc)" test "$rc" -eq 0
# a real run on a copying flasher: stopped by the preflight, not by its flash (exit 1)
mkdir -p "$T/copyplat" "$T/boot"
printf 'name: copier\nconnection: {type: local}\nflash: {method: ssh-copy, boot_path: %s/boot}\n' "$T" >"$T/copyplat/platform.yaml"
cat >"$T/nok.yaml" <<'YAML'
config: {iterations: 1}
workloads: [{name: hackbench, params: {groups: 1, fds: 2, loops: 10}}]
variants: [{name: b, cmdline: quiet}]
YAML
"$KVB" run "$T/nok.yaml" -p "$T/copyplat" -d "$T/4.db" >/dev/null 2>"$T/e21"; rc=$?
check "run on ssh-copy without a kernel: exit 3 before any flash (rc $rc)" test "$rc" -eq 3
check "run: no database written" test ! -e "$T/4.db"
check "ssh-copy names the variant and its method" grep -q "variant 'b' has no kernel, but platform copier boots each variant's own kernel (flash method ssh-copy)" "$T/e21"
# fastboot needs a kernel only for the partitions that take one: {dtbo: dtb} flashes the dtb alone
mkdir -p "$T/fb1" "$T/fb2"
head -c 64 /dev/urandom >"$T/dtb"
printf 'name: fb1\nconnection: {type: adb, serial: kvb-no-such-device}\nflash: {method: fastboot, partitions: {dtbo: dtb}}\n' >"$T/fb1/platform.yaml"
printf 'name: fb2\nconnection: {type: adb, serial: kvb-no-such-device}\nflash: {method: fastboot}\n' >"$T/fb2/platform.yaml"
printf 'config: {iterations: 1}\nworkloads: [{name: hackbench, params: {groups: 1, fds: 2, loops: 10}}]\nvariants: [{name: d, dtb: %s/dtb}]\n' "$T" >"$T/dtb.yaml"
"$KVB" agenda check "$T/dtb.yaml" -p "$T/fb1" >/dev/null 2>"$T/e22"; rc=$?
check "fastboot {dtbo: dtb}: a dtb-only variant passes (rc $rc)" sh -c "[ $rc -eq 0 ] && ! grep -q 'has no kernel' '$T/e22'"
"$KVB" agenda check "$T/dtb.yaml" -p "$T/fb2" >/dev/null 2>"$T/e23"; rc=$?
check "fastboot's default {boot: boot_image}: the same variant is refused (rc $rc)" sh -c "[ $rc -eq 3 ] && grep -q \"variant 'd' has no kernel, but platform fb2\" '$T/e23'"
# the SMP deterministic board runs a QEMU unpacked into the cache (<cache>/qemu-backports/...):
# without it, the variant fails before anything boots and the message says how to get it
{ head -c 1000 /dev/urandom; printf 'Linux version 6.1.0-kvb (t@example.com) (gcc 12) #1 SMP PREEMPT\n'; } >"$T/vmlinuz-fake"
printf 'config: {iterations: 1}\nworkloads: [{name: sched_pipe, params: {loops: 100}}]\n' >"$T/smp2.yaml"
XDG_CACHE_HOME=$T/nocache "$KVB" run "$T/smp2.yaml" -p qemu-x86_64-icount-smp2 -d "$T/smp2.db" -V "a=$T/vmlinuz-fake" \
  --no-diff >/dev/null 2>"$T/e24"; rc=$?
check "icount-smp2 without the backported QEMU: the run fails (rc $rc)" test "$rc" -eq 1
check "it names the cache path and scripts/get-qemu-backports" \
  grep -q "connection.qemu $T/nocache/kvbench/qemu-backports/qemu-system-x86_64: No such file or directory (unpack it first: scripts/get-qemu-backports)" "$T/e24"
# A WA3 user's agenda on a board that runs the measured kernel (flash: none): an instrument the
# agenda turns on (augmentations: [cpufreq]) whose files the board lacks, and a sysctl/sysfs
# knob whose file does not exist, are problems before the run (they used to pass the preflight
# and then fail every job: 32 of 32 instrument-failed, or every job of the knob)
mkdir -p "$T/kroot/sys/devices/system/cpu/cpu0/cpufreq" "$T/kroot/proc/sys/kernel" "$T/kplat"
echo 100 >"$T/kroot/proc/sys/kernel/sched_rr_timeslice_ms"
echo schedutil >"$T/kroot/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"
printf 'name: knobby\nconnection: {type: local}\nflash: {method: none}\nsysfs_root: %s/kroot\n' "$T" >"$T/kplat/platform.yaml"
cat >"$T/aug.yaml" <<'YAML'
config:
  iterations: 1
  augmentations: [cpufreq]
workloads:
  - name: hackbench
    params: {groups: 1, fds: 2, loops: 10}
    runtime_params:
      sysctl: {kernel.sched_rr_timeslice_msx: 10, kernel.sched_util_clamp_min_rt_default: 1000}
      sysfile_values: {/sys/devices/system/cpu/cpu0/cpufreq/scaling_governors: performance}
YAML
"$KVB" agenda check "$T/aug.yaml" -p "$T/kplat" >/dev/null 2>"$T/e25"; rc=$?
check "agenda check -p: augmentations' cpufreq without stats on the board is exit 3 (rc $rc)" test "$rc" -eq 3
check "  names the agenda's key and the missing file" grep -qF "$T/aug.yaml: instruments (augmentations): instrument 'cpufreq': $T/kroot/sys/devices/system/cpu/cpu0/cpufreq/stats/time_in_state is not a readable file on the board" "$T/e25"
check "  names the job, the sysctl knob and its missing file" grep -qF "job 'hackbench': runtime knob sysctl.kernel.sched_rr_timeslice_msx: $T/kroot/proc/sys/kernel/sched_rr_timeslice_msx does not exist on knobby" "$T/e25"
check "  a uclamp sysctl on a kernel without uclamp says what it needs (as this machine's 6.18 without UCLAMP_TASK)" grep -qF "runtime knob sysctl.kernel.sched_util_clamp_min_rt_default: $T/kroot/proc/sys/kernel/sched_util_clamp_min_rt_default does not exist on knobby, so every job with it would fail (a kernel without CONFIG_UCLAMP_TASK, or one older than this sysctl (added in 2020, after uclamp))" "$T/e25"
check "  and the sysfs knob" grep -qF "runtime knob sysfs./sys/devices/system/cpu/cpu0/cpufreq/scaling_governors: $T/kroot/sys/devices/system/cpu/cpu0/cpufreq/scaling_governors does not exist on knobby" "$T/e25"
# every job with the knob, in one line: counted, the specs as a range (a sweep of three and one more
# used to name only the first: job 'hb;cgroup_depth=0')
cat >"$T/many.yaml" <<'YAML'
config: {iterations: 1}
workloads:
  - {name: sched_pipe, params: {loops: 100}}
  - {name: hackbench, id: hb, params: {loops: 10}, sweep: {cgroup_depth: [0, 1, 2]}, runtime_params: {sysctl: {kernel.sched_rr_timeslice_msx: 10}}}
  - {name: sched_pipe, id: p2, runtime_params: {sysctl: {kernel.sched_rr_timeslice_msx: 10}}}
YAML
"$KVB" agenda check "$T/many.yaml" -p "$T/kplat" >/dev/null 2>"$T/e27"; rc=$?
check "agenda check: a knob missing for 4 jobs is exit 3 (rc $rc)" test "$rc" -eq 3
check "  one line counts them and names them all" grep -qF "preflight: 4 jobs (specs 2-5 of 5: 'hb;cgroup_depth=0', 'hb;cgroup_depth=1', 'hb;cgroup_depth=2', 'p2'): runtime knob sysctl.kernel.sched_rr_timeslice_msx: " "$T/e27"
check "  and once" test "$(grep -c "sched_rr_timeslice_msx" "$T/e27")" = 1
"$KVB" run "$T/aug.yaml" -p "$T/kplat" -d "$T/aug.db" --no-diff >/dev/null 2>"$T/e26"; rc=$?
check "run stops before any job (rc $rc)" sh -c "[ $rc -eq 3 ] && [ ! -e '$T/aug.db' ]"
# the same agenda spelled right, on a board that has the files: no problem
mkdir -p "$T/kroot/sys/devices/system/cpu/cpu0/cpufreq/stats"
printf '1000000 5\n2000000 7\n' >"$T/kroot/sys/devices/system/cpu/cpu0/cpufreq/stats/time_in_state"
sed 's/_msx:/_ms:/; s/scaling_governors:/scaling_governor:/; s/, kernel.sched_util_clamp_min_rt_default: 1000//' "$T/aug.yaml" >"$T/aug-ok.yaml"
"$KVB" agenda check "$T/aug-ok.yaml" -p "$T/kplat" >/dev/null 2>"$T/e27"; rc=$?
check "the files there: agenda check -p passes (rc $rc)" test "$rc" -eq 0
finish
