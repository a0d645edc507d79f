#!/usr/bin/env python3
"""Compares what tests/sim/adbd_sim and tests/sim/fastboot_sim put on the wire with real
transcripts and captures (tests/fixtures/field/{adb,fastboot}/PROVENANCE), byte for byte where
the capture fixes the bytes, field by field where a device chooses them (names, versions).

usage: sim_wire.py adb|fastboot PORT FIXTURE_DIR
Prints "ok   NAME" / "FAIL NAME: why" lines; exit status 1 when anything failed.
"""
import re
import socket
import struct
import sys

failures = 0


def check(name, cond, why=""):
    global failures
    if cond:
        print("ok   " + name, file=sys.stderr)
    else:
        failures += 1
        print("FAIL %s: %s" % (name, why), file=sys.stderr)


def recv_exact(s, n):
    out = b""
    while len(out) < n:
        got = s.recv(n - len(out))
        if not got:
            raise EOFError("peer closed after %d of %d bytes" % (len(out), n))
        out += got
    return out


def connect(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=60)
    s.settimeout(60)
    return s


# ---- fastboot ------------------------------------------------------------------------------

def transcript_bytes(text):
    """'[0x00]...[0x07]OKAY0.4' (AOSP README notation) -> bytes."""
    out = b""
    pos = 0
    for m in re.finditer(r"\[0x([0-9A-Fa-f]{2})\]", text):
        out += text[pos:m.start()].encode()
        out += bytes([int(m.group(1), 16)])
        pos = m.end()
    return out + text[pos:].encode()


def fb_frame(payload):
    return struct.pack(">Q", len(payload)) + payload


def fb_read(s):
    n = struct.unpack(">Q", recv_exact(s, 8))[0]
    return recv_exact(s, n)


def fastboot(port, fixtures):
    lines = [l.strip() for l in open(fixtures + "/fastboot/aosp-tcp-example.txt")]
    steps = []
    for l in lines:
        who, _, what = l.partition(" ")
        what = what.strip()
        if not what.startswith("<"):
            steps.append((who, transcript_bytes(what)))
    s = connect(port)
    # The README's TCP example, replayed: the device's bytes must be the README's bytes, except the
    # text after FAIL, which is the bootloader's own (AOSP fastbootd "Unknown variable"; LK/edk2
    # bootloaders "GetVar Variable Not found", as real devices print it, PROVENANCE).
    for who, data in steps:
        if who == "Host":
            s.sendall(data)
            continue
        if data == b"FB01":
            got = recv_exact(s, 4)
            check("fastboot: handshake is FB01", got == data, repr(got))
            continue
        got = recv_exact(s, 8)
        got += recv_exact(s, struct.unpack(">Q", got)[0])
        if data[8:12] == b"FAIL":
            text = got[12:]
            check("fastboot: unknown variable is a framed FAIL with a field text",
                  got[8:12] == b"FAIL" and struct.unpack(">Q", got[:8])[0] == len(got) - 8 and
                  text in (b"Unknown variable", b"GetVar Variable Not found"), repr(got))
        else:
            check("fastboot: %r as in the README" % data[8:], got == data, "got %r" % got)
    # The protocol's example session (README "Example Session"): download, data, flash, unknown command.
    s.sendall(fb_frame(b"download:00001234"))
    got = fb_read(s)
    check("fastboot: DATA00001234, 12 bytes", got == b"DATA00001234", repr(got))
    data = bytes((i * 7 + 3) & 0xFF for i in range(0x1234))
    s.sendall(fb_frame(data[:1000]) + fb_frame(data[1000:]))  # short packets are acceptable
    got = fb_read(s)
    check("fastboot: OKAY after the data, 4 bytes, no NUL", got == b"OKAY", repr(got))
    s.sendall(fb_frame(b"flash:bootloader"))
    infos = []
    got = fb_read(s)
    while got.startswith(b"INFO"):
        infos.append(got)
        got = fb_read(s)
    check("fastboot: flash answers INFO* then OKAY", got == b"OKAY" and
          all(len(i) <= 256 for i in infos), repr(infos + [got]))
    s.sendall(fb_frame(b"powerdown"))
    got = fb_read(s)
    check("fastboot: FAILunknown command as in the README", got == b"FAILunknown command", repr(got))
    s.close()


# ---- adb -----------------------------------------------------------------------------------

A_CNXN, A_OPEN, A_OKAY, A_CLSE, A_WRTE = 0x4E584E43, 0x4E45504F, 0x59414B4F, 0x45534C43, 0x45545257


def adb_msg(cmd, a0, a1, payload=b""):
    return struct.pack("<6I", cmd, a0, a1, len(payload), sum(payload) & 0xFFFFFFFF, cmd ^ 0xFFFFFFFF) + payload


def adb_read(s):
    h = recv_exact(s, 24)
    cmd, a0, a1, n, chk, magic = struct.unpack("<6I", h)
    return cmd, a0, a1, n, chk, magic, recv_exact(s, n)


def banner_keys(banner):
    state, _, rest = banner.partition(b"::")
    keys = [kv.split(b"=", 1)[0] for kv in rest.split(b";") if kv]
    return state, keys


def adb(port, fixtures):
    real = open(fixtures + "/adb/emulator-cnxn.bin", "rb").read()
    r_cmd, r_a0, r_a1, r_n, r_chk, r_magic = struct.unpack("<6I", real[:24])
    r_banner = real[24:]
    # what the capture says a device does (checked here so a wrong fixture cannot pass)
    check("adb: the capture is consistent", r_cmd == A_CNXN and r_magic == r_cmd ^ 0xFFFFFFFF and
          r_n == len(r_banner) and r_chk == sum(r_banner) and not r_banner.endswith(b"\0"))
    s = connect(port)
    host = b"host::features=shell_v2,cmd,stat_v2,ls_v2,fixed_push_mkdir,apex,abb,fixed_push_symlink_timestamp"
    s.sendall(adb_msg(A_CNXN, 0x01000001, 0x100000, host))
    cmd, a0, a1, n, chk, magic, banner = adb_read(s)
    check("adb: CNXN command and magic as the emulator's", cmd == r_cmd and magic == r_magic, hex(cmd))
    check("adb: CNXN version 0x01000001 as the emulator's", a0 == r_a0, hex(a0))
    check("adb: CNXN max payload 1 MiB as the emulator's (host asked 1 MiB)", a1 == r_a1, hex(a1))
    check("adb: CNXN banner length without NUL, as the emulator's", n == len(banner) and
          not banner.endswith(b"\0"), repr(banner[-4:]))
    check("adb: CNXN data_check is the byte sum, as the emulator's", chk == sum(banner), hex(chk))
    st, keys = banner_keys(banner)
    r_st, r_keys = banner_keys(r_banner)
    check("adb: banner 'device::' and key order as the emulator's", st == r_st and keys == r_keys,
          "%r %r" % (st, keys))
    # shell v2 (AOSP shell_protocol.h): WRTE payloads are [id u8][len u32 LE][data] packets,
    # stdout 1, stderr 2, exit 3 (one byte); the stream ends with the device's CLSE.
    s.sendall(adb_msg(A_OPEN, 7, 0, b"shell,v2,raw:echo hi; echo err >&2; exit 3"))
    cmd, dev, host_id, n, chk, magic, p = adb_read(s)
    check("adb: OPEN answered by OKAY(device id, 7), empty", cmd == A_OKAY and dev != 0 and host_id == 7 and
          n == 0 and chk == 0 and magic == A_OKAY ^ 0xFFFFFFFF, repr((hex(cmd), dev, host_id, n)))
    stream = b""
    closed = False
    while not closed:
        cmd, a0, a1, n, chk, magic, p = adb_read(s)
        if cmd == A_WRTE:
            check("adb: WRTE(device id, 7) with its byte sum", a0 == dev and a1 == 7 and chk == sum(p) and
                  magic == A_WRTE ^ 0xFFFFFFFF, repr((a0, a1, chk)))
            stream += p
            s.sendall(adb_msg(A_OKAY, 7, dev))
        elif cmd == A_CLSE:
            closed = True
            check("adb: CLSE(device id, 7)", a0 == dev and a1 == 7 and n == 0, repr((a0, a1, n)))
            s.sendall(adb_msg(A_CLSE, 7, dev))
    pkts = []
    while stream:
        pid, ln = struct.unpack("<BI", stream[:5])
        pkts.append((pid, stream[5:5 + ln]))
        stream = stream[5 + ln:]
    out = b"".join(d for i, d in pkts if i == 1)
    err = b"".join(d for i, d in pkts if i == 2)
    check("adb: shell v2 stdout 'hi\\n' (LF: no pty)", out == b"hi\n", repr(out))
    check("adb: shell v2 stderr apart", err == b"err\n", repr(err))
    check("adb: shell v2 exit packet last: id 3, one byte, 3", pkts and pkts[-1] == (3, b"\x03"), repr(pkts[-1:]))
    s.close()


def main():
    kind, port, fixtures = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    try:
        {"adb": adb, "fastboot": fastboot}[kind](port, fixtures)
    except (OSError, EOFError, struct.error) as e:
        check(kind + ": session completes", False, str(e))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
