#!/usr/bin/env python3
"""Independent reader of TensorBoard event files, for runlog/track's tests.

Usage: tbcheck.py EVENT_FILE...

Prints one JSON object per event: {"file", "wall_time", "step", "what",
"file_version" | "session_status" | "values": {tag: simple_value}}.

When the `tensorboard` package is importable it reads the files with
TensorBoard's own loader (event_file_loader.EventFileLoader). Otherwise it
checks the TFRecord framing with crcmod's CRC-32C (Debian python3-crcmod)
and decodes the Event protos with Google's protobuf runtime (Debian
python3-protobuf) from tbevent.proto compiled by protoc (Debian
protobuf-compiler). The first output line says which reader ran.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile


def masked(crc):
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def records(path, crc32c):
    with open(path, "rb") as f:
        data = f.read()
    pos = 0
    while pos < len(data):
        if len(data) - pos < 12:
            raise SystemExit("%s: truncated header at byte %d" % (path, pos))
        (n,) = struct.unpack("<Q", data[pos:pos + 8])
        (lcrc,) = struct.unpack("<I", data[pos + 8:pos + 12])
        if masked(crc32c(data[pos:pos + 8])) != lcrc:
            raise SystemExit("%s: length CRC mismatch at byte %d" % (path, pos))
        pos += 12
        payload = data[pos:pos + n]
        if len(payload) != n or len(data) < pos + n + 4:
            raise SystemExit("%s: truncated record at byte %d" % (path, pos))
        (dcrc,) = struct.unpack("<I", data[pos + n:pos + n + 4])
        if masked(crc32c(payload)) != dcrc:
            raise SystemExit("%s: data CRC mismatch at byte %d" % (path, pos))
        pos += n + 4
        yield payload


def with_protobuf(paths):
    import crcmod.predefined
    crc32c = crcmod.predefined.mkCrcFun("crc-32c")
    if crc32c(b"123456789") != 0xE3069283:
        raise SystemExit("crcmod's crc-32c fails its check value")
    here = os.path.dirname(os.path.abspath(__file__))
    out = tempfile.mkdtemp()
    subprocess.run(["protoc", "-I", here, "--python_out", out, os.path.join(here, "tbevent.proto")], check=True)
    sys.path.insert(0, out)
    import tbevent_pb2
    print(json.dumps({"reader": "protobuf+crcmod"}))
    for path in paths:
        for payload in records(path, crc32c):
            ev = tbevent_pb2.Event()
            ev.ParseFromString(payload)
            if ev.SerializeToString() != payload:
                # A canonical proto3 encoding round-trips byte for byte:
                # a difference means fields or types the schema does not have.
                raise SystemExit("%s: event does not re-encode to the same bytes" % path)
            yield path, ev, ev.WhichOneof("what")


def with_tensorboard(paths):
    from tensorboard.backend.event_processing import event_file_loader
    print(json.dumps({"reader": "tensorboard"}))
    for path in paths:
        for ev in event_file_loader.LegacyEventFileLoader(path).Load():
            yield path, ev, ev.WhichOneof("what")


def main(paths):
    try:
        import tensorboard  # noqa: F401
        events = with_tensorboard(paths)
    except ImportError:
        events = with_protobuf(paths)
    for path, ev, what in events:
        o = {"file": os.path.basename(path), "wall_time": ev.wall_time, "step": ev.step, "what": what}
        if what == "file_version":
            o["file_version"] = ev.file_version
        elif what == "session_log":
            o["session_status"] = int(ev.session_log.status)
        elif what == "summary":
            o["values"] = {v.tag: repr(v.simple_value) for v in ev.summary.value}
        print(json.dumps(o))


if __name__ == "__main__":
    main(sys.argv[1:])
