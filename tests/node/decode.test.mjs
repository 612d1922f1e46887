// decodePte: the WASM module prints exactly what the native CLI prints for
// every reference .pte (`pteforge decode FILE [--json|--flatc-json]`), from
// every input form, and reads only the program part of a file.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { isInteger, parse } from 'lossless-json';

import { pteforge, repo, runCli } from './helpers.mjs';

/** JSON text parsed as the package promises: integers past 2^53 as BigInt, others as numbers. */
function exactJson(text) {
  return parse(text, null, (t) => (isInteger(t) && !Number.isSafeInteger(Number(t)) ? BigInt(t) : Number(t)));
}

const PTE_DIR = 'tests/data/reference/pte';
const FILES = readdirSync(repo(PTE_DIR)).filter((f) => f.endsWith('.pte')).sort();

test('reference .pte files are there', () => {
  assert.ok(FILES.length >= 5, `found ${FILES.join(', ')}`);
});

for (const file of FILES) {
  const path = `${PTE_DIR}/${file}`;
  test(`decodePte ${file}: byte-identical to the native CLI (summary, --json, --flatc-json)`, async () => {
    const pf = await pteforge();
    const bytes = readFileSync(repo(path));
    for (const [format, flag] of [['summary', []], ['json', ['--json']], ['flatc-json', ['--flatc-json']]]) {
      const native = runCli(['decode', path, ...flag]);
      assert.equal(native.status, 0, native.stderr);
      const fromPath = await pf.decodePte({ path: repo(path) }, { format, text: true });
      assert.equal(fromPath, native.stdout.toString(), `${format} from {path}`);
      const fromBytes = pf.decodePteSync(bytes, { format, text: true });
      assert.equal(fromBytes, fromPath, `${format} from bytes`);
    }
    // Default: the readable JSON, parsed.
    const parsed = await pf.decodePte(new Blob([bytes]));
    assert.deepEqual(parsed, exactJson(runCli(['decode', path, '--json']).stdout.toString()));
  });
}

test('decodePte format "check": the runtime\'s load checks, as `pteforge decode --check`', async () => {
  const pf = await pteforge();
  for (const file of FILES) {
    const check = await pf.decodePte({ path: repo(`${PTE_DIR}/${file}`) }, { format: 'check' });
    assert.equal(check.passed, true, file);
    assert.equal(check.total, 0, file);
    assert.deepEqual(check.problems, [], file);
  }
  // arduino_add_model.pte with its add.out call naming value 9 of 4 (as tests/cli/pte_decode.sh makes it).
  const bytes = new Uint8Array(readFileSync(repo(`${PTE_DIR}/arduino_add_model.pte`)));
  const args = new Uint8Array(new Int32Array([5, 1, 0, 3, 2, 2]).buffer);
  let at = -1;
  for (let i = 0; i + args.length <= bytes.length && at < 0; i += 1) {
    if (args.every((b, k) => bytes[i + k] === b)) at = i;
  }
  assert.ok(at >= 0);
  bytes[at + 8] = 9;  // the second argument
  const check = pf.decodePteSync(bytes, { format: 'check' });
  assert.deepEqual(check, {
    passed: false,
    methods: 1,
    total: 1,
    problems: [{
      pointer: '/execution_plan/0/chains/0/instructions/0/instr_args/args/1',
      message: 'argument 9 names no value (the method has 4 values)',
      atExecution: false,
    }],
  });
  const dir = mkdtempSync(join(tmpdir(), 'pteforge-check-'));
  try {
    writeFileSync(join(dir, 'bad.pte'), bytes);
    const native = runCli(['decode', '--check', join(dir, 'bad.pte')]);
    assert.equal(native.status, 1);
    assert.match(native.stdout.toString(), /^\/execution_plan\/0\/chains\/0\/instructions\/0\/instr_args\/args\/1: argument 9 names no value/);
    // text: true gives the lines the CLI prints.
    assert.equal(pf.decodePteSync(bytes, { format: 'check', text: true }), native.stdout.toString());
    assert.equal(await pf.decodePte({ path: repo(`${PTE_DIR}/arduino_add_model.pte`) }, { format: 'check', text: true }),
      'load check passed: 1 method would load\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('decodePte reads only the program part of a file (a 3 GB sparse .pte leaves the heap alone)', async () => {
  const pf = await pteforge();
  // stories260k's program part (18688 bytes by its extended header), then a
  // hole up to 3 GB: segment data the decoder must bound-check but not read.
  const bytes = readFileSync(repo(PTE_DIR, 'stories260k_hybrid_llama_qnn.pte'));
  const programSize = pf.decodePteSync(bytes).file.program_size;
  assert.equal(programSize, 18688);
  const dir = mkdtempSync(join(tmpdir(), 'pteforge-decode-'));
  try {
    const path = join(dir, 'sparse.pte');
    writeFileSync(path, bytes.subarray(0, programSize));
    truncateSync(path, 3 * 2 ** 30);
    const before = await pf.wasmMemoryBytes();
    const decoded = await pf.decodePte({ path }, { text: true });
    assert.equal(decoded, runCli(['decode', path, '--json']).stdout.toString());
    assert.equal(JSON.parse(decoded).file.size, 3 * 2 ** 30);
    assert.ok((await pf.wasmMemoryBytes()) - before <= 16 * 2 ** 20, 'the heap grew by more than 16 MiB');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('decodePte names the input in errors (where.entry) as the CLI names the path', async () => {
  const pf = await pteforge();
  const path = 'tests/data/reference/program.fbs';
  const native = runCli(['decode', path]);
  assert.equal(native.status, 1);
  try {
    await pf.decodePte({ path }, {});
    assert.fail('decodePte accepted a .fbs');
  } catch (e) {
    assert.equal(e.name, 'PteforgeError');
    assert.equal(e.code, 'PTE_INVALID');
    assert.equal(e.where.entry, path);
    assert.equal(`${e}\n`, native.stderr);
  }
});

test('decodePte reads a {path} as the one file it names, with the CLI\'s errors: a folder, a converter input, a symlink loop', async () => {
  const pf = await pteforge();
  const dir = mkdtempSync(join(tmpdir(), 'pteforge-decode-paths-'));
  try {
    const { symlinkSync } = await import('node:fs');
    symlinkSync(join(dir, 'loop2'), join(dir, 'loop1'));
    symlinkSync(join(dir, 'loop1'), join(dir, 'loop2'));
    const inputs = [
      dir,                                                         // a folder: IO_ERROR, not its files
      repo('tests/fixtures/corpus/linear_tanh/json/models/model.json'), // in an unpacked archive: still one file (JSON)
      repo('tests/fixtures/corpus/linear_tanh/linear_tanh.pt2'),   // a .pt2
      join(dir, 'loop1'),
    ];
    for (const path of inputs) {
      const native = runCli(['decode', path]);
      assert.equal(native.status, 1, path);
      await assert.rejects(pf.decodePte({ path }), (e) => {
        assert.equal(`${e}\n`, native.stderr, path);
        return e.name === 'PteforgeError';
      });
    }
    assert.match(runCli(['decode', dir]).stderr, /^IO_ERROR: cannot open ".*": it is a folder \(entry=/);
    assert.match(runCli(['decode', inputs[1]]).stderr, /^PTE_INVALID: the input is JSON \(such as a program JSON\), not a \.pte; convert makes a \.pte of it/);
    assert.match(runCli(['decode', inputs[2]]).stderr, /^PTE_INVALID: the input is a zip archive \(such as a \.pt2\), not a \.pte/);
    assert.match(runCli(['decode', inputs[3]]).stderr, /^IO_ERROR: cannot open ".*": too many levels of symbolic links/);
    // A set of files is no .pte.
    assert.throws(() => pf.decodePteSync({ files: {} }), (e) => e.code === 'OPTION_INVALID' && /not a set of files/.test(e.message));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a .pte whose vector element offset leads backwards fails as in the CLI (it wrapped onto a valid table in 32-bit WebAssembly)', async () => {
  const pf = await pteforge();
  const work = mkdtempSync(join(tmpdir(), 'pteforge-wrap-'));
  try {
    // add.pte's first operator offset (byte 200) made 0xFFFFFF54: 200 + it is byte 28, the root table, modulo 2^32.
    const bytes = Buffer.from(readFileSync(repo(PTE_DIR, 'add.pte')));
    bytes.writeUInt32LE(0xffffff54, 200);
    const path = join(work, 'wrapped.pte');
    writeFileSync(path, bytes);
    const expected = `PTE_INVALID: the flatbuffer failed verification: a table, vector or string is out of bounds, misaligned or nested too deeply (entry=${path} byte_offset=200 pointer=/execution_plan/0/operators/0)\n`;
    assert.equal(runCli(['decode', '--json', path]).stderr.toString(), expected);
    await assert.rejects(pf.decodePte({ path }, { text: true }), (e) => `${e}\n` === expected);
    await assert.rejects(pf.decodePte(bytes, { name: path }), (e) => `${e}\n` === expected);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
