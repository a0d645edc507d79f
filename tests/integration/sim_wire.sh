#!/usr/bin/env bash
# The simulators against the field: adbd_sim's CNXN, OPEN/OKAY/WRTE/CLSE and shell v2 framing
# against a real emulator's CNXN capture, fastboot_sim against the AOSP README's TCP transcript
# and example session (tests/fixtures/field/{adb,fastboot}/PROVENANCE; tests/integration/sim_wire.py).
. "$(dirname "$0")/lib.sh"
SIM=${KVB_BUILD_DIR:-build}/tests/sim
FIX=$SRC/tests/fixtures/field
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$T"' EXIT
waitfile() { for _ in $(seq 200); do [ -s "$1" ] && return 0; sleep 0.05; done; return 1; }

mkdir -p "$T/root"
"$SIM/adbd_sim" --root "$T/root" --state "$T/state" --port-file "$T/adb_port" 2>"$T/adbd.log" &
pids+=($!)
"$SIM/fastboot_sim" --port-file "$T/fb_port" --store "$T/flashed" 2>"$T/fb.log" &
pids+=($!)
check "adbd_sim wrote its port" waitfile "$T/adb_port"
check "fastboot_sim wrote its port" waitfile "$T/fb_port"
check "adbd_sim writes what the emulator's adbd writes" python3 "$SRC/tests/integration/sim_wire.py" adb "$(cat "$T/adb_port")" "$FIX"
check "fastboot_sim writes what the AOSP transcripts show" python3 "$SRC/tests/integration/sim_wire.py" fastboot "$(cat "$T/fb_port")" "$FIX"
finish
