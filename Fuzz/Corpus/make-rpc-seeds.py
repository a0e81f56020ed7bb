#!/usr/bin/env python3
"""Writes the seed corpora of fuzz-frame and fuzz-envelope: escrow.v1 messages (Proto/escrow.proto)
encoded by hand in the protobuf wire format, as a peer would send them.

Run from anywhere: python3 Fuzz/Corpus/make-rpc-seeds.py (it rewrites the gen-* files only).
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def varint(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def zigzag(n):
    return (n << 1) ^ (n >> 63)


def tag(field, wire):
    return varint(field << 3 | wire)


def vfield(field, n):
    return tag(field, 0) + varint(n)


def lfield(field, payload):
    if isinstance(payload, str):
        payload = payload.encode()
    return tag(field, 2) + varint(len(payload)) + payload


def bitmap(nulls):
    if not any(nulls):
        return b""
    out = bytearray((len(nulls) + 7) // 8)
    for row, null in enumerate(nulls):
        if null:
            out[row >> 3] |= 1 << (row & 7)
    return bytes(out)


def column(name, kind, values, nulls=()):
    """kind: 1 int64, 2 double, 3 string, 4 bytes, 5 bool."""
    out = lfield(1, name) if name else b""
    out += vfield(2, kind)
    if nulls and any(nulls):
        out += lfield(3, bitmap(nulls))
    if kind == 1 and values:
        out += lfield(4, b"".join(varint(zigzag(v) & 0xFFFFFFFFFFFFFFFF) for v in values))
    elif kind == 2 and values:
        out += lfield(5, b"".join(struct.pack("<d", v) for v in values))
    elif kind == 3:
        out += b"".join(lfield(6, v) for v in values)
    elif kind == 4:
        out += b"".join(lfield(7, v) for v in values)
    elif kind == 5 and values:
        out += lfield(8, bytes(1 if v else 0 for v in values))
    return out


def frame(columns, rows):
    out = b"".join(lfield(1, c) for c in columns)
    if rows:
        out += vfield(2, rows)
    return out


FRAMES = {
    "empty": frame([], 0),
    "locations": frame([
        column("timestamp", 1, [1700000000, 1700000060, 1700000120]),
        column("latitude", 2, [52.52, 48.8566, 0.0], [False, False, True]),
        column("longitude", 2, [13.405, 2.3522, 0.0], [False, False, True]),
        column("city", 3, ["Berlin", "Paris", ""], [False, False, True]),
    ], 3),
    "contacts": frame([
        column("name", 3, ["Ada Lovelace", "Grace Hopper"]),
        column("phone", 3, ["+44 20 7946 0958", ""], [False, True]),
        column("starred", 5, [True, False]),
    ], 2),
    "photo": frame([
        column("contentHash", 4, [bytes(range(32))]),
        column("pixelWidth", 1, [-1]),
        column("nan", 2, [float("nan")]),
    ], 1),
    "nulls-9-rows": frame([column("n", 1, list(range(-4, 5)), [i % 3 == 0 for i in range(9)])], 9),
}


def envelope(request_id, field, body):
    out = vfield(1, request_id) if request_id else b""
    return out + lfield(field, body)


def length_prefixed(*envelopes):
    return b"".join(struct.pack(">I", len(e)) + e for e in envelopes)


def parameters(field, pairs):
    return b"".join(lfield(field, lfield(1, k) + lfield(2, v)) for k, v in pairs)


ENVELOPES = {
    "hello": envelope(0, 2, lfield(1, "escrow-host") + vfield(2, 1)),
    "catalog": envelope(0, 3, lfield(1, "compute-1") + lfield(2, lfield(1, "location.region") + vfield(2, 1)
                                                             + lfield(3, "ab" * 32) + lfield(4, "The region of each point"))),
    "compute-request": envelope(7, 4, lfield(1, "location.region") + vfield(2, 1) + lfield(3, "ab" * 32)
                                + lfield(4, FRAMES["locations"]) + parameters(5, [("precision", "2"), ("unit", "km")])
                                + vfield(6, 30000)),
    "compute-response": envelope(7, 5, lfield(1, FRAMES["contacts"]) + vfield(2, 1234)),
    "run-request": envelope(3, 10, lfield(1, "weather") + lfield(2, "Show the weather where you are")
                            + lfield(3, "SELECT latitude, longitude FROM Location ORDER BY timestamp DESC LIMIT 1")
                            + lfield(4, "weather.current") + parameters(6, [("units", "metric")]) + vfield(7, 1000)),
    "run-response": envelope(3, 11, lfield(1, FRAMES["photo"]) + lfield(2, "f" * 16) + vfield(3, 42)),
    "error": envelope(7, 6, vfield(1, 5) + lfield(2, "frame of 70000000 bytes is over the maximum")),
    "ping-pong": envelope(9, 8, vfield(1, 99)),
    "cancel": envelope(7, 7, b""),
}


def write(directory, name, payload):
    path = os.path.join(HERE, directory)
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "gen-" + name), "wb") as file:
        file.write(payload)


for name, payload in FRAMES.items():
    write("fuzz-frame", name, payload)
# fuzz-envelope: the first byte is how many bytes arrive per read, less one.
for name, payload in ENVELOPES.items():
    write("fuzz-envelope", name, b"\xff" + length_prefixed(payload))
write("fuzz-envelope", "conversation-by-7-bytes",
      b"\x06" + length_prefixed(ENVELOPES["hello"], ENVELOPES["compute-request"], ENVELOPES["ping-pong"]))
write("fuzz-envelope", "too-large", b"\xff" + struct.pack(">I", 1 << 20) + b"\x00" * 8)
