#!/usr/bin/env python3
"""Build a layout-C `.pt2` archive from an unpacked archive folder (the `json/` form).

Usage: python3 scripts/make_pt2.py SRC_DIR OUT.pt2 [--root NAME]

The archive is written the way PyTorch's own ZIP writer lays out a `.pt2`
(torch-export-format.md section 1.2; the corpus README "Layout"):

* every entry STORED (method 0), CRC-32 filled in, all timestamps zero;
* each local header carries an 'FB' extra field (id 0x4246, then a 2-byte
  length, then that many 'Z' bytes) sized so the entry's data starts at a file
  offset that is a multiple of 64;
* ZIP64 end-of-central-directory record and locator are always written, then
  the classic end record (ZIP64 per-entry extra fields only when a size or
  offset does not fit in 32 bits);
* every entry lives under one root folder: the output file's base name without
  its last extension (`out/my_model.pt2` -> `my_model/`), or `--root NAME`
  (PyTorch uses `archive` when saving to a stream);
* record order, per model (models sorted by name): weight payloads, constant
  payloads, `<model>_weights_config.json`, `<model>_constants_config.json`,
  `models/<model>.json`, `data/sample_inputs/<model>.pt`; then any other
  records of the folder (sorted); then `archive_format`, `archive_version`,
  `.data/version`, `byteorder`, `.data/serialization_id`.

Records the folder lacks are filled in with PyTorch's values (`pt2`, `0`,
`6\\n`, `little`). `.data/serialization_id` is copied from the folder when
present. Otherwise it is computed as PyTorch's writer does as far as we know
(a combined hash of the record names, then a combined hash of the record
CRCs, each as 20 zero-padded digits); that value is informational (a cache
key) and the corpus ids do not follow this recipe (the corpus was built
without PyTorch), which is why the folder's own file is preferred.

With the folder's `.data/serialization_id` the output is byte-identical to
the corpus archives (tests/cli/make_pt2.sh checks every case).

Standard library only: `zipfile` cannot write the 'FB' padding field, so the
ZIP structures are written here with `struct`.
"""

import argparse
import json
import os
import re
import struct
import sys
import tempfile
import zlib

ALIGNMENT = 64
U32_MAX = 0xFFFFFFFF
U16_MAX = 0xFFFF
MASK64 = (1 << 64) - 1

# Records written after all model records, in this order, with the value
# used when the folder does not have them.
TRAILER_RECORDS = [
    ("archive_format", b"pt2"),
    ("archive_version", b"0"),
    (".data/version", b"6\n"),
    ("byteorder", b"little"),
]
SERIALIZATION_ID = ".data/serialization_id"


def fail(message):
    sys.stderr.write("make_pt2: " + message + "\n")
    sys.exit(1)


def list_files(src_dir):
    """Relative '/'-separated paths of every regular file under src_dir."""
    files = []
    for dirpath, dirnames, filenames in os.walk(src_dir):
        dirnames.sort()
        for name in filenames:
            full = os.path.join(dirpath, name)
            if not os.path.isfile(full):
                continue
            rel = os.path.relpath(full, src_dir).replace(os.sep, "/")
            files.append(rel)
    return sorted(files)


def trailing_number(name):
    match = re.search(r"(\d+)$", name)
    return int(match.group(1)) if match else -1


def config_payloads(src_dir, config_rel, folder):
    """Payload records (relative paths) named by a PayloadConfig's path_name fields."""
    path = os.path.join(src_dir, config_rel)
    if not os.path.isfile(path):
        return []
    with open(path, "rb") as f:
        try:
            config = json.loads(f.read().decode("utf-8"))
        except ValueError as e:
            fail("%s is not valid JSON: %s" % (config_rel, e))
    names = []
    for fqn, entry in config.get("config", {}).items():
        path_name = entry.get("path_name") if isinstance(entry, dict) else None
        if not isinstance(path_name, str) or "/" in path_name or path_name in ("", ".", ".."):
            fail("%s: entry %r has an invalid path_name %r" % (config_rel, fqn, path_name))
        names.append(folder + path_name)
    # PyTorch numbers payload files in the order it writes them.
    unique = sorted(set(names), key=lambda n: (trailing_number(n), n))
    return unique


def first_existing(files, candidates):
    for name in candidates:
        if name in files:
            return name
    return candidates[0]


def record_order(src_dir, files):
    """The folder's records in the order PyTorch writes them."""
    file_set = set(files)
    models = sorted(f[len("models/"):-len(".json")] for f in files
                    if f.startswith("models/") and f.endswith(".json") and "/" not in f[len("models/"):])
    if not models:
        fail("%s has no models/<name>.json" % src_dir)
    order = []
    seen = set()

    def add(name):
        if name in file_set and name not in seen:
            seen.add(name)
            order.append(name)

    for model in models:
        weights_config = first_existing(file_set, [
            "data/weights/%s_weights_config.json" % model,
            "data/weights/%s_model_param_config.json" % model])
        constants_config = first_existing(file_set, [
            "data/constants/%s_constants_config.json" % model,
            "data/constants/%s_model_constants_config.json" % model])
        for payload in config_payloads(src_dir, weights_config, "data/weights/"):
            if payload not in file_set:
                fail("payload %s named by %s is missing" % (payload, weights_config))
            add(payload)
        for payload in config_payloads(src_dir, constants_config, "data/constants/"):
            if payload not in file_set:
                fail("payload %s named by %s is missing" % (payload, constants_config))
            add(payload)
        add(weights_config)
        add(constants_config)
        add("models/%s.json" % model)
        add("data/sample_inputs/%s.pt" % model)
    trailer = {name for name, _ in TRAILER_RECORDS} | {SERIALIZATION_ID}
    for name in files:
        if name not in trailer:
            add(name)
    return order


def cpp_string_hash(data):
    """std::hash<std::string> of libstdc++ on 64-bit (murmur-style _Hash_bytes)."""
    mul = (0xC6A4A793 << 32) + 0x5BD1E995
    seed = 0xC70F6907

    def shift_mix(v):
        return v ^ (v >> 47)

    length = len(data)
    aligned = length & ~7
    h = (seed ^ (length * mul)) & MASK64
    for i in range(0, aligned, 8):
        d = int.from_bytes(data[i:i + 8], "little")
        d = (shift_mix((d * mul) & MASK64) * mul) & MASK64
        h = ((h ^ d) * mul) & MASK64
    if length & 7:
        h = ((h ^ int.from_bytes(data[aligned:], "little")) * mul) & MASK64
    h = (shift_mix(h) * mul) & MASK64
    return shift_mix(h)


def hash_combine(seed, value):
    return (seed ^ ((value + 0x9E3779B9 + (seed << 6) + (seed >> 2)) & MASK64)) & MASK64


def serialization_id(records):
    """records: list of (name, crc) written before the id."""
    name_hash = 0
    for name in sorted(name for name, _ in records):
        name_hash = hash_combine(name_hash, cpp_string_hash(name.encode("utf-8")))
    crc_hash = 0
    for _, crc in records:
        crc_hash = hash_combine(crc_hash, crc)
    return ("%020d%020d" % (name_hash, crc_hash)).encode("ascii")


class ZipWriter:
    """Writes STORED entries with 64-byte aligned data and ZIP64 end records.

    Field values follow the corpus archives (which follow miniz as PyTorch
    configures it): "version needed"/"made by" 0 in local and central headers
    of stored entries, flags 0, DOS time and date 0, no central extra field
    unless ZIP64 is needed, external attributes 0; the ZIP64 end record says
    made-by 0, needed 45.
    """

    def __init__(self, out):
        self.out = out
        self.pos = 0
        self.central = []

    def _write(self, data):
        self.out.write(data)
        self.pos += len(data)

    def add(self, name, data):
        encoded = name.encode("utf-8")
        size = len(data)
        offset = self.pos
        crc = zlib.crc32(data) & U32_MAX
        zip64_local = b""
        if size >= U32_MAX or offset >= U32_MAX:
            fields = b""
            if size >= U32_MAX:
                fields += struct.pack("<QQ", size, size)
            if offset >= U32_MAX:
                fields += struct.pack("<Q", offset)
            zip64_local = struct.pack("<HH", 0x0001, len(fields)) + fields
        start = offset + 30 + len(encoded) + len(zip64_local) + 4
        padding = (-start) % ALIGNMENT
        extra = zip64_local + b"FB" + struct.pack("<H", padding) + b"Z" * padding
        size32 = U32_MAX if size >= U32_MAX else size
        header = struct.pack("<IHHHHHIIIHH", 0x04034B50, 0, 0, 0, 0, 0, crc, size32, size32,
                             len(encoded), len(extra))
        self._write(header + encoded + extra)
        assert self.pos % ALIGNMENT == 0
        self._write(data)
        self.central.append((encoded, crc, size, offset))
        return crc

    def finish(self):
        cd_offset = self.pos
        for encoded, crc, size, offset in self.central:
            fields = b""
            if size >= U32_MAX:
                fields += struct.pack("<QQ", size, size)
            if offset >= U32_MAX:
                fields += struct.pack("<Q", offset)
            extra = struct.pack("<HH", 0x0001, len(fields)) + fields if fields else b""
            size32 = U32_MAX if size >= U32_MAX else size
            offset32 = U32_MAX if offset >= U32_MAX else offset
            self._write(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0, 0, 0, 0, 0, 0, crc,
                                    size32, size32, len(encoded), len(extra), 0, 0, 0, 0,
                                    offset32) + encoded + extra)
        cd_size = self.pos - cd_offset
        count = len(self.central)
        zip64_eocd_offset = self.pos
        self._write(struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 0, 45, 0, 0, count, count,
                                cd_size, cd_offset))
        self._write(struct.pack("<IIQI", 0x07064B50, 0, zip64_eocd_offset, 1))
        self._write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, min(count, U16_MAX),
                                min(count, U16_MAX), min(cd_size, U32_MAX),
                                min(cd_offset, U32_MAX), 0))


def build(src_dir, out_path, root):
    files = list_files(src_dir)
    order = record_order(src_dir, files)

    def read(name):
        with open(os.path.join(src_dir, name), "rb") as f:
            return f.read()

    out_dir = os.path.dirname(os.path.abspath(out_path))
    fd, tmp_path = tempfile.mkstemp(prefix=".make_pt2.", dir=out_dir)
    try:
        with os.fdopen(fd, "wb") as out:
            writer = ZipWriter(out)
            written = []
            for name in order:
                written.append((name, writer.add(root + "/" + name, read(name))))
            for name, default in TRAILER_RECORDS:
                data = read(name) if name in files else default
                written.append((name, writer.add(root + "/" + name, data)))
            if SERIALIZATION_ID in files:
                sid = read(SERIALIZATION_ID)
            else:
                sid = serialization_id(written)
            writer.add(root + "/" + SERIALIZATION_ID, sid)
            writer.finish()
        os.replace(tmp_path, out_path)
    except BaseException:
        if os.path.exists(tmp_path):
            os.unlink(tmp_path)
        raise


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("src_dir", help="unpacked archive folder (models/, data/, archive_format, ...)")
    parser.add_argument("out", help="output .pt2 path")
    parser.add_argument("--root", help="root folder name (default: output base name without extension)")
    args = parser.parse_args()
    if not os.path.isdir(args.src_dir):
        fail("%s is not a folder" % args.src_dir)
    root = args.root
    if root is None:
        root = os.path.splitext(os.path.basename(args.out))[0]
    if not root or "/" in root or "\\" in root or root in (".", ".."):
        fail("invalid root folder name %r" % root)
    build(args.src_dir, args.out, root)


if __name__ == "__main__":
    main()
