// Where convertToFile writes, and inputs that are not files: as the CLI
// (core/emit/chunks_file.cpp, core/cli/cmd_convert.cpp) — no output replaces
// an input (the .pt2, a swap's, or a file inside an input folder), a symlink
// is written through, a FIFO or folder at the output path is refused, and a
// FIFO as input is refused at once (opening it would block the event loop).
// A deflated entry nothing reads is not inflated ahead of the call.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { unzipSync, zipSync } from 'fflate';

import { CLI, PACKAGE_DIR, pteforge, repo, runCli } from './helpers.mjs';

const PT2 = repo('tests/fixtures/corpus/linear_tanh/linear_tanh.pt2');

function scratch() {
  return mkdtempSync(join(tmpdir(), 'pteforge-output-'));
}

test('convertToFile never overwrites its input: the .pt2, a file in an input folder, a swap', async () => {
  const pf = await pteforge();
  const dir = scratch();
  try {
    const pt2 = join(dir, 'm.pt2');
    copyFileSync(PT2, pt2);
    const before = readFileSync(pt2);
    await assert.rejects(pf.convertToFile({ path: pt2 }, pt2),
      (e) => e.code === 'OPTION_INVALID' && e.where.entry === pt2 && /would overwrite the input/.test(e.message));
    assert.deepEqual(readFileSync(pt2), before);
    // Through another spelling of the same path.
    await assert.rejects(pf.convertToFile({ path: pt2 }, join(dir, '.', 'm.pt2')), (e) => e.code === 'OPTION_INVALID');
    // A file inside an unpacked archive folder given as the input.
    const folder = join(dir, 'unpacked');
    cpSync(repo('tests/fixtures/corpus/linear_tanh/json'), folder, { recursive: true });
    const weight = join(folder, 'data', 'weights', 'weight_0');
    const weightBytes = readFileSync(weight);
    await assert.rejects(pf.convertToFile({ path: folder }, weight), (e) => e.code === 'OPTION_INVALID');
    assert.deepEqual(readFileSync(weight), weightBytes);
    // A new file inside it: refused too, in the CLI's words.
    const inside = join(folder, 'data', 'new.pte');
    await assert.rejects(pf.convertToFile({ path: folder }, inside),
      (e) => e.code === 'OPTION_INVALID' && e.message === `the output '${inside}' would write a file inside the input '${folder}'`);
    assert.equal(existsSync(inside), false);
    // A swap's replacement archive.
    const replacement = join(dir, 'rep.pt2');
    copyFileSync(PT2, replacement);
    await assert.rejects(pf.convertToFile({ path: PT2 }, replacement, { swaps: { 'layer': { path: replacement } } }),
      (e) => e.code === 'OPTION_INVALID' && /would overwrite the input/.test(e.message));
    assert.deepEqual(readFileSync(replacement), before);
    // The CLI refuses the same.
    const r = runCli(['convert', pt2, '-o', pt2]);
    assert.equal(r.status, 1, 'the CLI overwrote its input');
    assert.match(r.stderr, /^OPTION_INVALID: -o '.*m\.pt2' would overwrite the input/);
    assert.deepEqual(readFileSync(pt2), before);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('convertToFile writes through a symlink, refuses a FIFO or folder at the output path', async () => {
  const pf = await pteforge();
  const dir = scratch();
  try {
    const target = join(dir, 'real.pte');
    writeFileSync(target, 'old');
    const link = join(dir, 'link.pte');
    symlinkSync(target, link);
    await pf.convertToFile({ path: PT2 }, link);
    assert.ok(lstatSync(link).isSymbolicLink(), 'the link was replaced');
    assert.equal(readFileSync(target).subarray(4, 8).toString(), 'ET12');
    const fifo = join(dir, 'out.fifo');
    execFileSync('mkfifo', [fifo]);
    await assert.rejects(pf.convertToFile({ path: PT2 }, fifo),
      (e) => e.code === 'IO_ERROR' && /exists and is not a regular file/.test(e.message));
    assert.ok(lstatSync(fifo).isFIFO(), 'the FIFO was replaced');
    await assert.rejects(pf.convertToFile({ path: PT2 }, dir), (e) => e.code === 'IO_ERROR');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a FIFO as input is IO_ERROR at once (CLI and package), never a blocked read', { timeout: 60_000 }, async () => {
  const pf = await pteforge();
  const dir = scratch();
  try {
    const fifo = join(dir, 'in.pt2');
    execFileSync('mkfifo', [fifo]);
    await assert.rejects(pf.convert({ path: fifo }),
      (e) => e.code === 'IO_ERROR' && e.where.entry === fifo && /not a regular file/.test(e.message));
    for (const args of [['convert', fifo, '-o', join(dir, 'x.pte')], ['inspect', fifo], ['decode', fifo]]) {
      const r = runCli(args, { timeout: 20_000 });
      assert.equal(r.status, 1, `${args[0]}: expected exit 1`);
      assert.match(r.stderr, /^IO_ERROR: .*not a regular file/);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a deflated entry over the inflate-ahead limit that nothing reads costs nothing', { timeout: 120_000 }, async () => {
  const pf = await pteforge();
  const files = unzipSync(readFileSync(PT2));
  const stored = {};
  for (const [name, bytes] of Object.entries(files)) stored[name] = [bytes, { level: 0 }];
  // 300 MiB of zeros, deflated to a few hundred KB: over the 256 MiB limit.
  stored['archive/extra/junk.bin'] = [new Uint8Array(300 * 1024 * 1024), { level: 1 }];
  const bomb = zipSync(stored);
  const before = await pf.wasmMemoryBytes();
  const { pte } = await pf.convert(bomb, { name: 'junk.pt2' });
  const { pte: plain } = await pf.convert({ path: PT2 });
  assert.deepEqual(pte, plain);
  assert.ok((await pf.wasmMemoryBytes()) - before < 64 * 1024 * 1024, 'the WASM heap grew');
});

test('convertToFile into a missing folder: the CLI\'s words, nothing written', async () => {
  const pf = await pteforge();
  const dir = scratch();
  try {
    const out = join(dir, 'no', 'such', 'm.pte');
    await assert.rejects(pf.convertToFile({ path: PT2 }, out), (e) => {
      assert.equal(e.code, 'IO_ERROR');
      assert.equal(e.message, `cannot write "${out}": its folder does not exist`);
      assert.deepEqual(e.where, { entry: out });
      return true;
    });
    const cli = runCli(['convert', PT2, '-o', out]);
    assert.equal(cli.status, 1, 'the CLI wrote into a missing folder');
    assert.equal(cli.stderr, `IO_ERROR: cannot write "${out}": its folder does not exist (entry=${out})\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an unpacked folder: a weight linked to a file is read through the link; a FIFO weight is IO_ERROR, as the CLI says', async () => {
  const pf = await pteforge();
  const dir = scratch();
  try {
    const folder = join(dir, 'm');
    cpSync(repo('tests/fixtures/corpus/linear_tanh/json'), folder, { recursive: true });
    const weight = join(folder, 'data', 'weights', 'weight_0');
    copyFileSync(weight, join(dir, 'real'));
    rmSync(weight);
    symlinkSync(join(dir, 'real'), weight);
    const expected = await pf.convert({ path: repo('tests/fixtures/corpus/linear_tanh/json') });
    const linked = await pf.convert({ path: folder });
    assert.equal(Buffer.compare(Buffer.from(linked.pte), Buffer.from(expected.pte)), 0);
    rmSync(weight);
    execFileSync('mkfifo', [weight]);
    const message = 'cannot open "data/weights/weight_0": it is a FIFO, not a regular file';
    await assert.rejects(pf.convert({ path: folder }), (e) => {
      assert.equal(e.code, 'IO_ERROR');
      assert.equal(e.message, message);
      assert.deepEqual(e.where, { entry: 'data/weights/weight_0', method: 'forward' });
      return true;
    });
    const cli = runCli(['convert', folder, '-o', join(dir, 'o.pte')]);
    assert.equal(cli.status, 1, 'the CLI converted a FIFO weight');
    assert.equal(cli.stderr, `IO_ERROR: ${message} (method=forward entry=data/weights/weight_0)\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('convertToFile: a name near the 255-byte limit, the replaced file\'s mode kept, as the CLI does', async () => {
  const pf = await pteforge();
  const dir = scratch();
  try {
    const { pte } = await pf.convert({ path: PT2 });
    // 250 bytes: a temporary named after it ("NAME.123.tmp") would pass the limit.
    const long = join(dir, `${'x'.repeat(246)}.pte`);
    await pf.convertToFile({ path: PT2 }, long);
    assert.deepEqual(new Uint8Array(readFileSync(long)), pte);
    const cliLong = join(dir, `${'y'.repeat(246)}.pte`);
    assert.equal(runCli(['convert', PT2, '-o', cliLong]).status, 0, 'the CLI refused a 250-byte name');
    // A private file stays private.
    const out = join(dir, 'm.pte');
    writeFileSync(out, 'earlier');
    chmodSync(out, 0o600);
    await pf.convertToFile({ path: PT2 }, out);
    assert.equal(statSync(out).mode & 0o777, 0o600);
    assert.deepEqual(new Uint8Array(readFileSync(out)), pte);
    const cliOut = join(dir, 'c.pte');
    writeFileSync(cliOut, 'earlier');
    chmodSync(cliOut, 0o600);
    assert.equal(runCli(['convert', PT2, '-o', cliOut]).status, 0);
    assert.equal(statSync(cliOut).mode & 0o777, 0o600);
    // No temporary is left.
    assert.deepEqual(readdirSync(dir).filter((f) => f.startsWith('.')), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('convertToFile where no temporary can be created: IO_ERROR in the CLI\'s words, not a bare Node error', async () => {
  const pf = await pteforge();
  const dir = scratch();
  try {
    const file = join(dir, 'plain.txt');
    writeFileSync(file, 'x');
    const inside = join(file, 'm.pte');
    const long = join(dir, `${'n'.repeat(300)}`, 'm.pte');
    for (const [out, words] of [[inside, 'a part of the path is not a folder'], [long, 'file name too long']]) {
      await assert.rejects(pf.convertToFile({ path: PT2 }, out), (e) => {
        assert.equal(e.code, 'IO_ERROR');
        assert.equal(e.message, `cannot write "${out}": ${words}`);
        assert.deepEqual(e.where, { entry: out });
        return true;
      });
      const cli = runCli(['convert', PT2, '-o', out]);
      assert.equal(cli.status, 1);
      assert.equal(cli.stderr, `IO_ERROR: cannot write "${out}": ${words} (entry=${out})\n`);
    }
    assert.deepEqual(readdirSync(dir), ['plain.txt']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('past the file-size limit (ulimit -f): IO_ERROR in the same words from the CLI and the package, nothing left behind', async () => {
  const dir = scratch();
  try {
    const out = join(dir, 'out.pte');
    // bash sets the limit (2 KiB; the .pte is 2,536 bytes) and then becomes the CLI.
    const r = spawnSync('bash', ['-c', 'ulimit -f 2 && exec "$@"', 'bash', CLI, 'convert', PT2, '-o', out]);
    assert.equal(r.signal, null, 'the CLI was killed (SIGXFSZ)');
    assert.equal(r.status, 1);
    const expected = `cannot write "${out}": file too large for the file system or the file-size limit (ulimit -f)`;
    assert.ok(r.stderr.toString().startsWith(`IO_ERROR: ${expected}`), r.stderr.toString());
    assert.deepEqual(readdirSync(dir), []);
    // The package under the same limit, in a Node process of its own.
    const script = `const { createPteforge } = await import(${JSON.stringify(join(PACKAGE_DIR, 'dist/index.node.mjs'))});
      const pf = await createPteforge();
      try { await pf.convertToFile({ path: ${JSON.stringify(PT2)} }, ${JSON.stringify(out)}); console.log('written'); }
      catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message, entry: e.where.entry })); }`;
    const n = spawnSync('bash', ['-c', 'ulimit -f 2 && exec "$@"', 'bash', process.execPath, '--input-type=module', '-e', script]);
    assert.equal(n.status, 0, n.stderr.toString());
    assert.deepEqual(JSON.parse(n.stdout.toString()), { code: 'IO_ERROR', message: expected, entry: out });
    assert.deepEqual(readdirSync(dir), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
