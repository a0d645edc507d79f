#!/usr/bin/env bash
# The LAVA job definitions kvbench writes pass LAVA's own validation (issue 28 item 1):
# `kvbench run --dry-run` writes each unit's definition, and LAVA's dispatcher (`lava-run
# --validate`, Debian's lava-dispatcher 2023.01) checks it against a device of its device type,
# for the three device types of the shipped platforms: qemu (the lab's), hi960-hikey (HiKey960:
# fastboot, a boot image kvbench builds with mkbootimg) and juno-uboot (Juno: TFTP + NFS, U-Boot).
# The device dictionaries (tests/fixtures/field/lava/devices) are rendered from the device-type
# templates lava-server ships, as the server renders them for its worker. The qemu-style
# definition kvbench wrote before (deploy to tmpfs, boot qemu) is refused for hi960-hikey with
# LAVA's words: the check can fail.
# Needs root (lava-run writes under /var/lib/lava) and lava-server + lava-dispatcher
# (scripts/setup --lava); skipped (77) without.
. "$(dirname "$0")/lib.sh"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
dt=/usr/share/lava-server/device-types
if [ "$(id -u)" -ne 0 ] || ! command -v lava-run >/dev/null || [ ! -d "$dt" ]; then
  echo "skipped: needs root, lava-run and lava-server's device types (scripts/setup --lava)" >&2
  exit 77
fi
render() { # DICT.jinja2 CONTEXT-YAML > rendered device dictionary
  /usr/bin/python3 - "$SRC/tests/fixtures/field/lava/devices" "$dt" "$1" "$2" <<'PY'
import sys, jinja2, yaml
env = jinja2.Environment(loader=jinja2.FileSystemLoader([sys.argv[1], sys.argv[2]]), autoescape=False, trim_blocks=True)
sys.stdout.write(env.get_template(sys.argv[3]).render(**(yaml.safe_load(sys.argv[4]) or {})))
PY
}
validate() { # NAME DEVICE.yaml DEFINITION -> LAVA's job result line (lava-run's own output kept in $T)
  lava-run --validate --job-id "$RANDOM" --output-dir "$T/out-$1" --device "$2" "$3" >"$T/$1.log" 2>&1
  grep '"case": "job"' "$T/$1.log" | tail -1
}
# files a variant and the platforms name: any bytes do, LAVA checks they are there
head -c 4096 /dev/urandom >"$T/Image.gz"
head -c 1024 /dev/urandom >"$T/board.dtb"
head -c 1024 /dev/urandom | gzip >"$T/initrd.cpio.gz"
head -c 4096 /dev/urandom >"$T/rootfs.ext4"
tar czf "$T/rootfs.tar.gz" -C "$T" board.dtb
cat >"$T/a.yaml" <<'YAML'
config: {iterations: 1}
workloads:
  - {name: hackbench, params: {groups: 2, loops: 10}}
YAML
# the lab's platform (scripts/lava-lab), its root filesystem a file here
cat >"$T/qemu.yaml" <<YAML
name: lava-qemu
connection: {type: lava, url: 'http://127.0.0.1:1/', token_env: KVB_LAVA_TOKEN, device_type: qemu,
             rootfs: $T/rootfs.ext4, prompt: 'kvb-lava# ', report_host: 10.0.2.2}
flash: {method: lava}
lava:
  device_types:
    qemu:
      context: {arch: amd64}
      deploy:
        to: tmpfs
        images:
          kernel: {url: "\${kernel}", image_arg: '-kernel {kernel} -append "\${cmdline}"'}
          initrd: {url: "\${initrd}", image_arg: "-initrd {initrd}", format: cpio.newc,
                   compression: "\${initrd_compression?}", overlays: {lava: true}}
          rootfs: {url: "\${rootfs}", image_arg: "-drive format=raw,if=virtio,file={rootfs}"}
      boot: {method: qemu, media: tmpfs, prompts: ["\${prompt}"]}
YAML
sed "s|https://files.example.org/debian-bookworm-arm64-nfs.tar.gz|$T/rootfs.tar.gz|" \
  "$SRC/platforms/lava-juno/platform.yaml" >"$T/juno.yaml"
dry() { # NAME PLATFORM -V... : the unit's definition path
  local name=$1 plat=$2; shift 2
  "$KVB" run "$T/a.yaml" -p "$plat" "$@" -d "$T/$name.db" --rounds 1 --dry-run >"$T/$name.out" 2>"$T/$name.err"
}
dry qemu "$T/qemu.yaml" -V "k=$T/Image.gz,initrd=$T/initrd.cpio.gz,cmdline=maxcpus=1"; rc=$?
check "qemu: dry run exits 0 (rc $rc)" test "$rc" -eq 0
check "qemu: the plan names the unit's definition" grep -q "definition: $T/qemu.db.d/dry-run/k-r1.yaml" "$T/qemu.out"
dry hikey lava-hikey960 -V "k=$T/Image.gz,dtb=$T/board.dtb,initrd=$T/initrd.cpio.gz"; rc=$?
check "hi960-hikey: dry run exits 0 (rc $rc)" test "$rc" -eq 0
check "hi960-hikey: the boot image kvbench built (mkbootimg) is what LAVA flashes" \
  grep -q "file://$T/hikey.db.d/dry-run/k-r1/lava-boot-image/boot.img" "$T/hikey.db.d/dry-run/k-r1.yaml"
check "hi960-hikey: that boot image holds the variant's kernel with its dtb appended" \
  sh -c "head -c 8 '$T/hikey.db.d/dry-run/k-r1/lava-boot-image/boot.img' | grep -q ANDROID!"
dry juno "$T/juno.yaml" -V "k=$T/Image.gz,dtb=$T/board.dtb"; rc=$?
check "juno-uboot: dry run exits 0 (rc $rc)" test "$rc" -eq 0

render kvb-qemu-01.jinja2 '{arch: amd64}' >"$T/qemu-dev.yaml"
render kvb-hikey960-01.jinja2 '{}' >"$T/hikey-dev.yaml"
render kvb-juno-01.jinja2 '{}' >"$T/juno-dev.yaml"
for t in qemu hikey juno; do
  r=$(validate "$t" "$T/$t-dev.yaml" "$T/$t.db.d/dry-run/k-r1.yaml")
  check "$t: LAVA's validation passes ($r)" sh -c "echo '$r' | grep -q '\"result\": \"pass\"'"
done
# the definition of a qemu device type is not one for hi960-hikey, and LAVA says so
r=$(validate wrong "$T/hikey-dev.yaml" "$T/qemu.db.d/dry-run/k-r1.yaml")
check "a qemu definition for hi960-hikey is refused with LAVA's words" \
  sh -c "echo '$r' | grep -q 'None of the deployment strategies accepted your deployment parameters'"
[ "$fail" -eq 0 ] || for f in "$T"/*.err "$T"/*.log; do echo "--- $f" >&2; tail -5 "$f" >&2; done
finish
