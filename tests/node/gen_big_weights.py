#!/usr/bin/env python3
"""Write a .pt2 whose weights total about 1 GB, as a sparse file (tests/node/memory.test.mjs).

Usage: python3 tests/node/gen_big_weights.py OUT.pt2 [--layers 4] [--width 8192]

The program is x[1, W] -> LAYERS x (Linear(W, W) without bias, in core-ATen form:
permute(w, [1, 0]) + mm) -> relu, with float32 weights of W*W*4 bytes each
(4 x 256 MiB = 1 GiB by default). Each weight payload is a distinct 64-byte
head (so no two weights are equal and nothing may be de-duplicated) followed
by zeros that are written as a hole: the file takes a few MB of disk however
large the weights are. The archive is a layout-C .pt2 written with
scripts/make_pt2.py's ZipWriter conventions (stored entries, 64-byte aligned
data, CRC-32 filled in, ZIP64 end records). Standard library only (plus the
repo's scripts/pt2_builder.py for the program JSON).
"""

import argparse
import os
import struct
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))

import make_pt2 as M  # noqa: E402
import pt2_builder as B  # noqa: E402

PERMUTE = "torch.ops.aten.permute.default"
MM = "torch.ops.aten.mm.default"
RELU = "torch.ops.aten.relu.default"
HEAD = 64
ZEROS = bytes(1 << 24)


def crc_of(head, size):
    """CRC-32 of `head` followed by zeros up to `size` bytes."""
    crc = zlib.crc32(head)
    left = size - len(head)
    while left > 0:
        n = min(left, len(ZEROS))
        crc = zlib.crc32(ZEROS[:n] if n < len(ZEROS) else ZEROS, crc)
        left -= n
    return crc & M.U32_MAX


class SparseZipWriter(M.ZipWriter):
    """make_pt2's writer plus entries whose bytes after a head are a hole."""

    def add_sparse(self, name, head, size):
        encoded = name.encode("utf-8")
        offset = self.pos
        crc = crc_of(head, size)
        assert size < M.U32_MAX and offset < M.U32_MAX
        start = offset + 30 + len(encoded) + 4
        padding = (-start) % M.ALIGNMENT
        extra = b"FB" + struct.pack("<H", padding) + b"Z" * padding
        header = struct.pack("<IHHHHHIIIHH", 0x04034B50, 0, 0, 0, 0, 0, crc, size, size,
                             len(encoded), len(extra))
        self._write(header + encoded + extra)
        self._write(head)
        self.out.seek(size - len(head), os.SEEK_CUR)
        self.pos += size - len(head)
        self.central.append((encoded, crc, size, offset))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--width", type=int, default=8192)
    args = parser.parse_args()
    width, layers = args.width, args.layers

    archive = B.Archive()
    P = archive.add("model", B.Program("__main__.Big", metadata=False))
    weights = []
    for i in range(layers):
        P.module("fc%d" % i, "torch.nn.modules.linear.Linear")
        # The payload bytes are written by add_sparse; the builder only needs the sizes.
        weights.append(P.parameter("fc%d.weight" % i, [width, width], b""))
    x = P.user_input("x", [1, width])
    for w in weights:
        x = P.call(MM, x, P.call(PERMUTE, w, [1, 0]))
    P.output(P.call(RELU, x))

    size = width * width * 4
    tmp = args.out + ".tmp"
    with open(tmp, "wb") as out:
        writer = SparseZipWriter(out)
        for name, data in archive.records():
            entry = "big/" + name
            if name.startswith("data/weights/weight_"):
                index = int(name.rsplit("_", 1)[1])
                head = struct.pack("<16f", *[float(index * 16 + k + 1) for k in range(16)])
                writer.add_sparse(entry, head, size)
            else:
                writer.add(entry, data)
        writer.finish()
        out.truncate()
    os.replace(tmp, args.out)
    print("%s: %d weights of %d bytes (%d in all)" % (args.out, layers, size, layers * size))


if __name__ == "__main__":
    main()
