#!/usr/bin/env bash
# A board built on first use says so while it builds (issue 39 item 5: on a fresh machine the
# qemu board's mmdebstrap is minutes of a first boot): a board script that takes 3 s and says
# what it does on stderr, under script(1)'s pseudo-terminal (the line is rewritten every second).
# The kernel is not one, so the run then fails: what is checked is the line.
. "$(dirname "$0")/lib.sh"
B=$T/board
mkdir -p "$B"
cat >"$T/fake-board" <<'EOS'
#!/bin/sh
[ "$1" = -d ] && { dir=$2; shift 2; }
case $1 in
build) echo "fake-board: building the root filesystem" >&2; sleep 3; : >"$dir/rootfs.ext4" ;;
kernel) echo "$2" ;;
initrd) : >"$dir/initrd.img"; echo "$dir/initrd.img" ;;
esac
EOS
chmod +x "$T/fake-board"
echo "not a kernel" >"$T/kernel"
cat >"$T/platform.yaml" <<EOY
name: slow-board
connection: {type: qemu, board_dir: $B, board_script: $T/fake-board, kernel: $T/kernel, smp: 1}
boot: {timeout_s: 20}
EOY
printf 'config: {iterations: 1}\nworkloads: [sched_pipe]\n' >"$T/a.yaml"
script -qefc "'$KVB' run '$T/a.yaml' -p '$T/platform.yaml' -d '$T/a.db'" /dev/null >"$T/tty" 2>&1
check "the board's build shows its progress: which board, how long, the script's last word" \
  grep -Eq "board board: build: [0-9]+ s  fake-board: building the root filesystem" "$T/tty"
check "the board was built (the script ran to its end)" [ -f "$B/rootfs.ext4" ]
cat -v "$T/tty" >&2; finish
