// Memory: the WASM heap stays bounded on large programs and never holds
// weights whole.
//  - a .pt2 whose weights total 1 GiB (a sparse file, tests/node/gen_big_weights.py)
//    is read, inspected and converted with the heap growing by at most 64 MiB;
//  - the synthetic 100k-node program (scripts/gen_synthetic.py --nodes 100000)
//    is inspected and converted with the heap below the bounds stated in
//    wasm/README.md.
// Generated inputs are cached in build/node-tests/data/ (regenerated when the
// generator scripts change). Each measurement uses a fresh converter, whose
// heap starts at 16 MiB; WebAssembly memory never shrinks, so its size after
// a call is the call's peak.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { cliHas, loadPackage, repo, runCli } from './helpers.mjs';

const MiB = 2 ** 20;
const DATA = repo('build', 'node-tests', 'data');
/** Heap bounds (bytes) for the 100k-node program; wasm/README.md states the same numbers. */
const BOUND_100K_INSPECT = 768 * MiB;
const BOUND_100K_CONVERT = 1536 * MiB;
/** Largest heap growth allowed while converting the 1 GiB-weights archive. */
const BOUND_BIG_WEIGHTS_GROWTH = 64 * MiB;

/** Runs `make(out)` unless `out` exists and was made by the same generator sources. */
function cached(name, sources, make) {
  mkdirSync(DATA, { recursive: true });
  const key = createHash('sha256');
  for (const s of sources) key.update(readFileSync(repo(s)));
  const out = join(DATA, name);
  const stamp = `${out}.key`;
  const digest = key.digest('hex');
  if (existsSync(out) && existsSync(stamp) && readFileSync(stamp, 'utf8') === digest) return out;
  rmSync(out, { recursive: true, force: true });
  make(out);
  writeFileSync(stamp, digest);
  return out;
}

function bigWeightsPt2() {
  return cached('big_weights.pt2', ['tests/node/gen_big_weights.py', 'scripts/pt2_builder.py', 'scripts/make_pt2.py'],
    (out) => execFileSync('python3', [repo('tests/node/gen_big_weights.py'), out], { stdio: 'ignore' }));
}

function synthetic100k() {
  return cached('synthetic-100k.pt2', ['scripts/gen_synthetic.py', 'scripts/gen_fixtures.py', 'scripts/pt2_builder.py', 'scripts/make_pt2.py'],
    (out) => {
      const dir = `${out}.d`;
      execFileSync('python3', [repo('scripts/gen_synthetic.py'), '--nodes', '100000', dir], { stdio: 'ignore' });
      execFileSync('python3', [repo('scripts/make_pt2.py'), dir, `${out}.tmp`, '--root', 'synthetic'], { stdio: 'ignore' });
      renameSync(`${out}.tmp`, out);
      rmSync(dir, { recursive: true, force: true });
    });
}

async function freshConverter() {
  return (await loadPackage()).createPteforge();
}

async function sha256File(path) {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk);
  return hash.digest('hex');
}

test('1 GiB of weights: layout and inspect read only records, not payloads', { timeout: 120_000 }, async () => {
  const path = bigWeightsPt2();
  assert.ok(statSync(path).size > 2 ** 30);
  const pf = await freshConverter();
  const before = await pf.wasmMemoryBytes();
  const layout = await pf.layout({ path });
  assert.equal(layout.entries.filter((e) => e.name.includes('/data/weights/weight_')).reduce((n, e) => n + e.size, 0), 2 ** 30);
  const summary = await pf.inspect({ path });
  assert.deepEqual(summary.methods[0].state.parameters, { count: 4, bytes: 2 ** 30 });
  assert.ok((await pf.wasmMemoryBytes()) - before <= 16 * MiB, `heap grew to ${(await pf.wasmMemoryBytes()) / MiB} MiB`);
});

test('1 GiB of weights: convert streams them (heap growth <= 64 MiB), byte-identical to the CLI',
  { timeout: 600_000 }, async (t) => {
    const pf = await freshConverter();
    if (!pf.info.features.includes('convert')) return t.skip('convert is not in the core yet');
    const path = bigWeightsPt2();
    const work = join(DATA, `big-${process.pid}`);
    mkdirSync(work, { recursive: true });
    try {
      const before = await pf.wasmMemoryBytes();
      const stages = new Set();
      const result = await pf.convertToFile({ path }, join(work, 'wasm.pte'), { onProgress: (p) => stages.add(p.stage) });
      const growth = (await pf.wasmMemoryBytes()) - before;
      assert.ok(growth <= BOUND_BIG_WEIGHTS_GROWTH, `heap grew by ${growth / MiB} MiB`);
      assert.ok(result.size > 2 ** 30);
      assert.ok(stages.size > 0, 'progress was reported');
      if (cliHas('convert')) {
        const native = runCli(['convert', path, '-o', join(work, 'native.pte')]);
        assert.equal(native.status, 0, native.stderr);
        assert.equal(await sha256File(join(work, 'wasm.pte')), await sha256File(join(work, 'native.pte')));
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

test('100k-node program: inspect keeps the heap below the stated bound', { timeout: 600_000 }, async () => {
  const path = synthetic100k();
  const pf = await freshConverter();
  const summary = await pf.inspect({ path });
  assert.ok(summary.methods[0].node_count >= 100000);
  const heap = await pf.wasmMemoryBytes();
  assert.ok(heap <= BOUND_100K_INSPECT, `heap ${heap / MiB} MiB > ${BOUND_100K_INSPECT / MiB} MiB`);
});

test('100k-node program: convert keeps the heap below the stated bound', { timeout: 600_000 }, async (t) => {
  const pf = await freshConverter();
  if (!pf.info.features.includes('convert')) return t.skip('convert is not in the core yet');
  const path = synthetic100k();
  const { pte } = await pf.convert({ path });
  assert.ok(pte.length > 0);
  const heap = await pf.wasmMemoryBytes();
  assert.ok(heap <= BOUND_100K_CONVERT, `heap ${heap / MiB} MiB > ${BOUND_100K_CONVERT / MiB} MiB`);
});
