#!/usr/bin/env node
// WASM ÷ native time on the synthetic programs (issue 6: target <= 1.5x).
//
// Usage: node scripts/bench_wasm.mjs [--runs N] [--warmup N] [--warmup-ms MS]
//          [--op convert|inspect] [--sizes 1000,10000,100000]
//   (scripts/bench_wasm.sh builds what this needs and runs it.)
//
// For each synthetic program (scripts/gen_synthetic.py --nodes N, packed with
// scripts/make_pt2.py, cached in build/bench/) it times the same operation on
// the same file (convert: the .pt2; inspect: the program JSON):
//   native: build/native-release/core/pteforge OP FILE (a process: start,
//           read, work, write; the output goes to a file / /dev/null)
//   wasm:   the npm package in this Node process (build/wasm-release/wasm/package),
//           instantiated once beforehand; convertToFile / inspect on {path}
// and prints the median of N runs of each, their ratio, the package's first
// call (V8 runs WebAssembly in its baseline compiler until it has optimized
// the hot functions, which for a small program takes dozens of calls: the
// untimed warm-up lasts --warmup calls and --warmup-ms milliseconds, default
// 2 and 3000), and the WASM heap after the runs. `--op` defaults to convert
// when both sides have it, else inspect. Timing only: nothing here asserts
// (benchmarks stay out of tests).

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const NATIVE = process.env.PTEFORGE_NATIVE_CLI ?? join(ROOT, 'build', 'native-release', 'core', 'pteforge');
const PACKAGE = process.env.PTEFORGE_PACKAGE_DIR ?? join(ROOT, 'build', 'wasm-release', 'wasm', 'package');
const WORK = join(ROOT, 'build', 'bench');

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
}
const runs = Number(arg('runs', '3'));
const warmup = Number(arg('warmup', '2'));
const warmupMs = Number(arg('warmup-ms', '3000'));
const sizes = arg('sizes', '1000,10000,100000').split(',').map(Number);

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/**
 * build/bench/synthetic-N/ (the unpacked archive) and build/bench/synthetic-N.pt2,
 * generated once. Returns {pt2, json}: json is the program JSON inside the folder
 * (the CLI's inspect reads program JSON files).
 */
function program(nodes) {
  const dir = join(WORK, `synthetic-${nodes}`);
  const pt2 = `${dir}.pt2`;
  if (!existsSync(pt2)) {
    mkdirSync(WORK, { recursive: true });
    process.stderr.write(`generating ${nodes}-node program...\n`);
    rmSync(dir, { recursive: true, force: true });
    execFileSync('python3', [join(ROOT, 'scripts/gen_synthetic.py'), '--nodes', String(nodes), dir], { stdio: 'ignore' });
    execFileSync('python3', [join(ROOT, 'scripts/make_pt2.py'), dir, `${pt2}.tmp`, '--root', 'synthetic'], { stdio: 'ignore' });
    renameSync(`${pt2}.tmp`, pt2);
  }
  return { pt2, json: join(dir, 'models', 'model.json') };
}

function nativeHas(sub) {
  const help = spawnSync(NATIVE, ['--help'], { encoding: 'utf8' }).stdout ?? '';
  return new RegExp(`^\\s+${sub}\\s`, 'm').test(help.slice(help.indexOf('Subcommands:')));
}

if (!existsSync(NATIVE)) throw new Error(`${NATIVE} missing: cmake --build --preset native-release`);
const { createPteforge } = await import(pathToFileURL(join(PACKAGE, 'dist', 'index.node.mjs')).href);
let t0 = performance.now();
const pf = await createPteforge();
const instantiateMs = performance.now() - t0;
const op = arg('op', pf.info.features.includes('convert') && nativeHas('convert') ? 'convert' : 'inspect');

console.log(`pteforge bench: ${op}, median of ${runs} runs after ${warmup} untimed; native ${NATIVE}; wasm ${PACKAGE}`);
console.log(`wasm module instantiation: ${instantiateMs.toFixed(0)} ms (not counted below)`);
console.log('| nodes | native ms | wasm ms | wasm/native | wasm first call ms | wasm heap MiB |');
console.log('|---:|---:|---:|---:|---:|---:|');
for (const nodes of sizes) {
  const files = program(nodes);
  // Warm-up conversions, not timed: V8 starts WebAssembly in its baseline
  // compiler and tiers hot functions up while they run, so the first calls of
  // a fresh instance measure the JIT, not the code (the native CLI has no such
  // phase). Instantiation is reported above.
  // Small programs need many calls before the hot code is optimized, so the
  // warm-up lasts at least `warmup` calls and `warmup-ms` milliseconds. The
  // first call (baseline code) is reported too.
  let first = null;
  const warmStart = performance.now();
  for (let i = 0; i < warmup || performance.now() - warmStart < warmupMs; i++) {
    const w = join(WORK, `warm-${process.pid}.pte`);
    const t = performance.now();
    if (op === 'convert') await pf.convertToFile({ path: files.pt2 }, w);
    else await pf.inspect({ path: files.json }, { text: false });
    first ??= performance.now() - t;
    rmSync(w, { force: true });
  }
  const path = op === 'convert' ? files.pt2 : files.json;
  const out = join(WORK, `out-${process.pid}.pte`);
  const nativeArgs = op === 'convert' ? ['convert', path, '-o', out] : ['inspect', path, '--json'];
  const native = [];
  const wasm = [];
  for (let i = 0; i < runs; i++) {
    t0 = performance.now();
    const r = spawnSync(NATIVE, nativeArgs, { stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 30 });
    native.push(performance.now() - t0);
    if (r.status !== 0) throw new Error(`native ${nativeArgs.join(' ')} failed: ${r.stderr}`);
    t0 = performance.now();
    if (op === 'convert') await pf.convertToFile({ path }, out);
    else await pf.inspect({ path }, { text: false });
    wasm.push(performance.now() - t0);
  }
  rmSync(out, { force: true });
  const n = median(native);
  const w = median(wasm);
  const heap = (await pf.wasmMemoryBytes()) / 2 ** 20;
  const cold = first === null ? '-' : first.toFixed(0);
  console.log(`| ${nodes} | ${n.toFixed(0)} | ${w.toFixed(0)} | ${(w / n).toFixed(2)} | ${cold} | ${heap.toFixed(0)} |`);
}
