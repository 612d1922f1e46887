#!/usr/bin/env python3
"""Count the instructions of one `pteforge convert` under callgrind, by stage.

Usage:
  python3 scripts/bench_instructions.py [--nodes 10000] [--form pt2|folder] [--pteforge BIN]
                                        [--work DIR] [--keep] [--passes N]

Timings on a shared or virtual machine drift by tens of percent from one
minute to the next (README, Performance); instruction counts do not. This
runs `pteforge convert IN -o OUT --bench 1` once under valgrind's callgrind
(threads are run one at a time there, each counted on its own) and prints, in
millions of instructions (M):
  parse        the benchmark's baseline: RapidJSON DOM parse of the program JSON,
  convert      convert() on the calling thread (what the wall time waits for),
               and its stages: import (load_method: read, parse, build the IR,
               payload configs when they ran there), passes (with the N
               costliest passes), emit, serialize,
  threads      work on the second threads (the tokenizer of a two-thread
               import, the weights' hashes, the metadata draft, the live-bytes
               bound), counted apart: on two cores it overlaps the calling thread,
  write        writing the .pte,
and two ratios to the parse: calling thread (convert + write) and all threads.
The issue's target is a wall-time ratio (scripts/bench_convert.py); these
counts say where instructions go and whether a change removed any, not how
fast they run (cache misses and page faults cost time, not instructions).

The synthetic program is made as scripts/bench_convert.py makes it (same
generator, same --form). Needs valgrind (`apt-get install valgrind`) and a
release build (build/native-release/core/pteforge). About 15 s at 10k nodes.
Only the standard library is used.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Calling-tree lines of callgrind_annotate: "  1,234 (12.3%)  *  file:function [binary]"
# for a function, "  1,234 (12.3%)  >   file:function (3x) [binary]" for one of its calls.
LINE = re.compile(r"^\s*([\d,]+)\s+\([^)]*\)\s+([*<>])\s+(.*)$")


def find_binary(explicit):
    if explicit:
        return explicit
    path = os.path.join(ROOT, "build", "native-release", "core", "pteforge")
    if not os.path.exists(path):
        sys.exit("bench_instructions: no release build; run cmake --preset native-release && "
                 "cmake --build --preset native-release, or pass --pteforge")
    return path


def make_program(work, nodes, form):
    program = os.path.join(work, "synthetic_%d" % nodes)
    if not os.path.exists(os.path.join(program, "archive_format")):
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen_synthetic.py"), "--nodes", str(nodes),
                        program], check=True, stdout=subprocess.DEVNULL)
    if form == "folder":
        return program
    pt2 = program + ".pt2"
    if not os.path.exists(pt2):
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "make_pt2.py"), program, pt2], check=True,
                       stdout=subprocess.DEVNULL)
    return pt2


def function_name(text):
    """'???:ns::f(args) (3x) [/bin]' -> 'ns::f(args)'."""
    text = re.sub(r"\s+\[[^\]]*\]$", "", text)
    text = re.sub(r"\s+\(\d+x\)$", "", text)
    m = re.match(r"^(\?\?\?|[^:\s]*[/.][^:\s]*):(.*)$", text)  # "???:" or a source file's path
    return m.group(2) if m else text


def read_tree(annotated):
    """{function: (inclusive, [(callee, cost), ...])} from a calling tree."""
    tree = {}
    current = None
    for line in annotated.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        cost = int(m.group(1).replace(",", ""))
        name = function_name(m.group(3))
        if m.group(2) == "*":
            current = name
            tree[current] = (cost, [])
        elif m.group(2) == ">" and current is not None:
            tree[current][1].append((name, cost))
    return tree


def find(tree, pattern):
    """The one function whose name matches `pattern` (a regular expression)."""
    hits = [name for name in tree if re.search(pattern, name)]
    if len(hits) != 1:
        sys.exit("bench_instructions: expected one function matching %r in the profile, found %d%s" %
                 (pattern, len(hits), (": " + "; ".join(h[:80] for h in hits[:4])) if hits else ""))
    return hits[0]


def callee_cost(tree, caller, pattern):
    """Summed cost of caller's calls to functions matching `pattern` (0 when none)."""
    return sum(cost for name, cost in tree[caller][1] if re.search(pattern, name))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nodes", type=int, default=10000, help="program size (default 10000)")
    ap.add_argument("--form", choices=("folder", "pt2"), default="pt2", help="the input's form (default pt2)")
    ap.add_argument("--pteforge", help="the pteforge binary (default: the native-release build)")
    ap.add_argument("--work", help="folder for the generated program (default: a temporary folder)")
    ap.add_argument("--keep", action="store_true", help="keep the generated program and the callgrind output")
    ap.add_argument("--passes", type=int, default=8, help="how many of the costliest passes to list (default 8)")
    args = ap.parse_args()
    for tool in ("valgrind", "callgrind_annotate"):
        if not shutil.which(tool):
            sys.exit("bench_instructions: %s is not installed (apt-get install valgrind)" % tool)

    binary = find_binary(args.pteforge)
    work = args.work or tempfile.mkdtemp(prefix="pteforge_instr_")
    os.makedirs(work, exist_ok=True)
    try:
        source = make_program(work, args.nodes, args.form)
        out = os.path.join(work, "callgrind.out")
        subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out, binary, "convert", source,
                        "-o", os.path.join(work, "out.pte"), "--bench", "1"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        annotated = subprocess.run(["callgrind_annotate", "--tree=calling", "--inclusive=yes", "--threshold=100",
                                    out], check=True, capture_output=True, text=True).stdout
    finally:
        if not args.keep and not args.work:
            shutil.rmtree(work, ignore_errors=True)

    tree = read_tree(annotated)
    bench = find(tree, r"::run_bench\(")
    parse = callee_cost(tree, bench, r"^void rapidjson::GenericReader<.*>::ParseValue<0u,")
    convert = callee_cost(tree, bench, r"^pteforge::convert\(")
    write = callee_cost(tree, bench, r"^pteforge::emit::write_chunks_to_file\(")
    reporting = find(tree, r"^pteforge::\(anonymous namespace\)::convert_reporting\(")
    stages = [
        ("import", callee_cost(tree, reporting, r"::load_method\(")),
        ("passes", callee_cost(tree, reporting, r"^pteforge::passes::PassManager::run\(")),
        ("emit", callee_cost(tree, reporting, r"^pteforge::emit::emit_program\(")),
        ("serialize", callee_cost(tree, reporting, r"^pteforge::emit::serialize_program\(")),
    ]
    threads = tree[find(tree, r"^pteforge::BackgroundJob::BackgroundJob\(.*\)::\{lambda\(void\*\)#1\}::_FUN")][0]
    passes = sorted(((tree[name][0], re.sub(r"^.*::([A-Za-z0-9_]+)::run\(.*$", r"\1", name))
                     for name in tree if re.search(r"^pteforge::passes::\(anonymous namespace\)::[A-Za-z0-9_]+::run\("
                                                   r"pteforge::ir::ExportedProgram&, pteforge::passes::PassContext&\)$",
                                                   name)), reverse=True)
    if parse == 0 or convert == 0:
        sys.exit("bench_instructions: the profile has no baseline parse or convert (a build with other symbols?)")

    mi = lambda n: "%.1f" % (n / 1e6)
    print("%s (%d nodes, %s): millions of instructions" % (os.path.basename(source), args.nodes, args.form))
    print("  parse      %8s   (RapidJSON DOM parse, the baseline)" % mi(parse))
    print("  convert    %8s   calling thread: %s" % (mi(convert), ", ".join("%s %s" % (k, mi(v)) for k, v in stages)))
    for cost, name in passes[:args.passes]:
        print("    %-28s %8s" % (name, mi(cost)))
    print("  threads    %8s   (second threads; they overlap the calling thread)" % mi(threads))
    print("  write      %8s" % mi(write))
    print("  ratio      %8.2f   calling thread (convert + write) / parse" % ((convert + write) / parse))
    print("  ratio all  %8.2f   all threads (convert + threads + write) / parse" % ((convert + threads + write) / parse))


if __name__ == "__main__":
    main()
