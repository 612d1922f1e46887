#!/usr/bin/env python3
"""Benchmark `pteforge convert` on synthetic transformer programs.

Usage:
  python3 scripts/bench_convert.py [--nodes 1000,10000,100000] [--repeat 3]
                                   [--form folder|pt2] [--pteforge BIN] [--work DIR] [--keep]

For each size, scripts/gen_synthetic.py writes an unpacked archive (weights
included); with --form pt2, scripts/make_pt2.py packs it into a .pt2 ZIP
archive as PyTorch writes one (the form users have), and that is converted
instead. `pteforge convert --bench N` then reports the best of N runs of
  parse    RapidJSON DOM parse of the program JSON bytes (the import baseline),
  convert  the whole conversion: import, bind weights, passes, emit, serialize,
  write    writing the .pte (weights streamed from the archive),
and the script prints per size: the node count, the times, the ratio
(convert + write) / parse (target <= 2.5), the file size, the weight bytes,
and the output overhead = (file size - weight bytes) / node.

Use a release build (default: build/native-release/core/pteforge, else the
debug build with a warning); the numbers of a debug build are not meaningful.
Only the standard library is used.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def find_binary(explicit):
    if explicit:
        return explicit
    for preset in ("native-release", "native-debug"):
        path = os.path.join(ROOT, "build", preset, "core", "pteforge")
        if os.path.exists(path):
            if preset != "native-release":
                print("bench_convert: warning: using the debug build; build native-release for real numbers",
                      file=sys.stderr)
            return path
    sys.exit("bench_convert: no pteforge binary; build it (cmake --build --preset native-release) or pass --pteforge")


def node_count(metadata):
    """Nodes of the imported program: nodes_before of each method's first pass."""
    seen = {}
    for p in metadata["pass_report"]["passes"]:
        seen.setdefault(p["method"], p["nodes_before"])
    return sum(seen.values())


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nodes", default="1000,10000", help="comma-separated node counts (default 1000,10000)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per size; the best is reported")
    ap.add_argument("--pteforge", help="the pteforge binary")
    ap.add_argument("--work", help="folder for the generated programs (default: a temporary folder)")
    ap.add_argument("--keep", action="store_true", help="keep the generated programs")
    ap.add_argument("--form", choices=("folder", "pt2"), default="folder",
                    help="convert the unpacked archive folder (default) or the same program packed as a .pt2")
    args = ap.parse_args()

    binary = find_binary(args.pteforge)
    work = args.work or tempfile.mkdtemp(prefix="pteforge_bench_")
    os.makedirs(work, exist_ok=True)
    rows = []
    try:
        for n in [int(x) for x in args.nodes.split(",") if x]:
            program = os.path.join(work, "synthetic_%d" % n)
            if not os.path.exists(os.path.join(program, "archive_format")):
                subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen_synthetic.py"), "--nodes", str(n),
                                program], check=True, stdout=subprocess.DEVNULL)
            source = program
            if args.form == "pt2":
                source = program + ".pt2"
                if not os.path.exists(source):
                    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "make_pt2.py"), program, source],
                                   check=True, stdout=subprocess.DEVNULL)
            pte = os.path.join(work, "synthetic_%d.pte" % n)
            md_path = os.path.join(work, "synthetic_%d.json" % n)
            out = subprocess.run([binary, "convert", source, "-o", pte, "--metadata", md_path,
                                  "--bench", str(args.repeat)], check=True, capture_output=True, text=True).stdout
            timing = json.loads(out.strip().splitlines()[-1])
            with open(md_path) as f:
                metadata = json.load(f)
            nodes = node_count(metadata)
            weights = metadata["constants"]["bytes"] + metadata["mutable_data"]["bytes"]
            json_bytes = os.path.getsize(os.path.join(program, "models", "model.json"))
            rows.append((nodes, json_bytes, timing, weights))
    finally:
        if not args.keep and not args.work:
            shutil.rmtree(work, ignore_errors=True)

    print("%8s %8s %9s %10s %9s %7s %10s %10s %8s %9s %9s %8s %7s" % (
        "nodes", "json_MB", "parse_ms", "convert_ms", "write_ms", "ratio", "pte_bytes", "weights", "B/node",
        "import", "passes", "emit", "serial"))
    for nodes, json_bytes, t, weights in rows:
        overhead = (t["file_size"] - weights) / max(nodes, 1)
        print("%8d %8.1f %9.1f %10.1f %9.1f %7.2f %10d %10d %8.1f %9.1f %9.1f %8.1f %7.1f" % (
            nodes, json_bytes / 1e6, t["parse_ms"], t["convert_ms"], t["write_ms"], t["ratio"], t["file_size"],
            weights, overhead, t["import_ms"], t["passes_ms"], t["emit_ms"], t["serialize_ms"]))
    print("ratio = (convert + write) / parse; import/passes/emit/serial = stages of convert (ms); "
          "B/node = (pte_bytes - weights) / nodes")


if __name__ == "__main__":
    main()
