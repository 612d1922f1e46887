// Edges of the JS API found by trying to break it: option values that JSON
// would silently change, an empty pass list, huge constant methods, File
// lists, Blobs and detached buffers in the wrong places, inherited property
// names as option values, file descriptors left open by a bad option, calls
// in flight when another call poisons the instance, and options whose getters
// or Proxy traps throw.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';

import { PACKAGE_DIR, loadPackage, pteforge, repo } from './helpers.mjs';

const FOLDER = repo('tests/fixtures/corpus/linear_tanh/json');
const PT2 = repo('tests/fixtures/corpus/linear_tanh/linear_tanh.pt2');

/** Every file below `dir`, as [path relative to dir, absolute path]. */
function walk(dir, root = dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p, root));
    else out.push([relative(root, p), p]);
  }
  return out;
}

function rejectsWith(promise, code, pointer, message) {
  return assert.rejects(promise, (e) => {
    assert.equal(e.constructor.name, 'PteforgeError', String(e));
    assert.equal(e.code, code, String(e));
    if (pointer !== undefined) assert.equal(e.where.pointer, pointer, String(e));
    if (message !== undefined) assert.equal(e.message, message);
    return true;
  });
}

test('option values JSON would change or drop are OPTION_INVALID with their pointer', async () => {
  const pf = await pteforge();
  const pt2 = readFileSync(PT2);
  const hint = '; options are JSON values (finite numbers, strings, booleans, null, lists and plain objects)';
  await rejectsWith(pf.convert(pt2, { memoryPlanning: NaN }), 'OPTION_INVALID', '/memoryPlanning',
    `option /memoryPlanning is NaN${hint}`);
  await rejectsWith(pf.convert(pt2, { initBuffers: Infinity }), 'OPTION_INVALID', '/initBuffers');
  await rejectsWith(pf.convert(pt2, { constantMethods: { get_a: Symbol('x') } }), 'OPTION_INVALID',
    '/constantMethods/get_a');
  await rejectsWith(pf.convert(pt2, { constantMethods: { get_a: () => 1 } }), 'OPTION_INVALID', '/constantMethods/get_a');
  await rejectsWith(pf.convert(pt2, { constantMethods: new Map([['get_a', 1]]) }), 'OPTION_INVALID',
    '/constantMethods', `option /constantMethods is an object (Map)${hint}`);
  await rejectsWith(pf.convert(pt2, { memoryPlanning: new Date(0) }), 'OPTION_INVALID', '/memoryPlanning');
  await rejectsWith(pf.convert(pt2, { passes: ['spec_prop', undefined] }), 'OPTION_INVALID', '/passes/1',
    'option /passes/1 is undefined (a list item needs a value)');
  await rejectsWith(pf.convert(pt2, { constantMethods: { 'a/b~c': Symbol('s') } }), 'OPTION_INVALID', '/constantMethods/a~1b~0c');
  // Nesting: 65 levels reach the core's own limit; 100,000 stop in the wrapper
  // with the core's JSON-depth message (no stack overflow).
  const nest = (n) => { let v = 1; for (let i = 0; i < n; i += 1) v = [v]; return v; };
  await rejectsWith(pf.convert(pt2, { constantMethods: { get_x: nest(65) } }), 'OPTION_INVALID', undefined,
    "constant method 'get_x': value nested deeper than 64 levels");
  await rejectsWith(pf.convert(pt2, { constantMethods: { get_x: nest(100000) } }), 'OPTION_INVALID', undefined,
    'options are nested deeper than 1024 levels');
  await rejectsWith(pf.inspect(pt2, { text: 'no' }), 'OPTION_INVALID', '/text', 'options.text must be a boolean; got string "no"');
  // An empty pass list would silently mean the default pipeline (the CLI refuses --passes '' too).
  await rejectsWith(pf.convert(pt2, { passes: [] }), 'OPTION_INVALID', '/passes',
    'option passes is an empty list: name the passes to run, or leave passes out for the default pipeline');
  // null and undefined stay "not given", swaps included.
  const plain = await pf.convert(pt2);
  for (const options of [{ swaps: null }, { swaps: undefined, memoryPlanning: undefined }, { initBuffers: null }]) {
    assert.ok(Buffer.from((await pf.convert(pt2, options)).pte).equals(Buffer.from(plain.pte)), JSON.stringify(options));
  }
  await rejectsWith(pf.convert(pt2, { swaps: 5 }), 'OPTION_INVALID', '/swaps', 'options.swaps must be an object');
});

test('constant methods past 100,000 values are refused, not an out-of-memory abort', async () => {
  const pf = await pteforge();
  const pt2 = readFileSync(PT2);
  await rejectsWith(pf.convert(pt2, { constantMethods: { a: new Array(200001).fill(1) } }), 'OPTION_INVALID', undefined,
    "constant method 'a': more than 100000 values, lists and objects (constant methods return a few values, e.g. get_eos_ids=[2,3])");
  const ok = await pf.convert(pt2, { constantMethods: { a: new Array(1000).fill(1) } });
  assert.ok(ok.pte.length > (await pf.convert(pt2)).pte.length);
  // A number without a fraction is an int: one past int64 is refused with its option's pointer
  // (the CLI refuses the same integers; JSON.stringify writes 2 ** 63 as 9223372036854776000).
  const tooBig = (pointer, text) =>
    `option ${pointer} is ${text}, an integer that does not fit int64 (a number without a fraction is an int)`;
  await rejectsWith(pf.convert(pt2, { constantMethods: { get_a: 1, get_max: 2 ** 63 } }), 'OPTION_INVALID',
    '/constantMethods/get_max', tooBig('/constantMethods/get_max', '9223372036854776000'));
  await rejectsWith(pf.convert(pt2, { constantMethods: { get_ids: [1, 1e19] } }), 'OPTION_INVALID',
    '/constantMethods/get_ids/1', tooBig('/constantMethods/get_ids/1', '10000000000000000000'));
  // Past uint64 too (the core would read them as floats), and past 1e21 (written with an exponent).
  await rejectsWith(pf.convert(pt2, { constantMethods: { get_big: 2 ** 64 } }), 'OPTION_INVALID',
    '/constantMethods/get_big', tooBig('/constantMethods/get_big', '18446744073709552000'));
  await rejectsWith(pf.convert(pt2, { constantMethods: { get_neg: [-(2 ** 70)] } }), 'OPTION_INVALID',
    '/constantMethods/get_neg/0', tooBig('/constantMethods/get_neg/0', '-1.1805916207174113e+21'));
  // Below 2 ** 63 a number without a fraction is an Int; one with a fraction a Double.
  const ints = await pf.convert(pt2, { constantMethods: { get_top: 2 ** 62, get_half: 0.5 } });
  const decoded = await pf.decodePte(ints.pte, { format: 'json' });
  const values = (name) => decoded.execution_plan.find((p) => p.name === name).values;
  // (Past 2^53 the decoded int is a BigInt: exact, where a number would round.)
  assert.deepEqual(values('get_top'), [{ index: 0, type: 'Int', value: 2n ** 62n }]);
  assert.deepEqual(values('get_half'), [{ index: 0, type: 'Double', value: 0.5 }]);
});

test('decodePte: an inherited property name is no format', async () => {
  const pf = await pteforge();
  const pte = (await pf.convert(readFileSync(PT2))).pte;
  for (const format of ['toString', 'constructor', 'valueOf', '__proto__']) {
    await rejectsWith(pf.decodePte(pte, { format }), 'OPTION_INVALID', '/format',
      `options.format must be "json", "flatc-json", "summary" or "check"; got string ${JSON.stringify(format)}`);
  }
  assert.equal(typeof (await pf.decodePte(pte, { format: 'summary' })), 'string');
});

test('a File list keeps its names (async and Sync), and names one path once', async () => {
  const pf = await pteforge();
  const files = walk(FOLDER).map(([rel, abs]) => new File([readFileSync(abs)], rel));
  const fromList = await pf.convert({ files });
  const fromObject = await pf.convert({ files: Object.fromEntries(walk(FOLDER).map(([rel, abs]) => [rel, readFileSync(abs)])) });
  assert.ok(Buffer.from(fromList.pte).equals(Buffer.from(fromObject.pte)));
  await rejectsWith(pf.convert({ files: [files[0], files[0]] }), 'OPTION_INVALID', undefined,
    `input.files names "${files[0].name}" twice`);
  // Node has no FileReaderSync: the Sync twins say what to do instead.
  assert.throws(() => pf.convertSync({ files }), (e) => e.code === 'OPTION_INVALID' &&
    /is a Blob\/File, which only the async methods can read here: use convert\(\), not convertSync\(\)$/.test(e.message));
  assert.throws(() => pf.convertSync(new Blob(['{}'])), (e) => e.code === 'OPTION_INVALID' &&
    e.message === 'the input is a Blob/File, which only the async methods can read here: use convert(), not convertSync()');
});

test('a detached ArrayBuffer is OPTION_INVALID, not a raw TypeError', async () => {
  const pf = await pteforge();
  const buffer = new ArrayBuffer(8);
  structuredClone(buffer, { transfer: [buffer] });
  await rejectsWith(pf.convert(buffer), 'OPTION_INVALID', undefined,
    'the ArrayBuffer given is detached (transferred elsewhere, e.g. by postMessage): it holds no bytes to read');
  // A view of a detached buffer too (it reads as 0 bytes, which is not "empty").
  const viewed = new ArrayBuffer(8);
  const view = new Uint8Array(viewed, 2, 4);
  structuredClone(viewed, { transfer: [viewed] });
  await rejectsWith(pf.convert(view), 'OPTION_INVALID', undefined,
    'the Uint8Array given views a detached ArrayBuffer (transferred elsewhere, e.g. by postMessage): it holds no bytes to read');
  await rejectsWith(pf.convert(new Uint8Array(0)), 'INPUT_EMPTY');
  assert.equal((await pf.layout(readFileSync(PT2))).models[0].method, 'forward');
});

test('a bad option leaves no file descriptor open', async () => {
  const pf = await pteforge();
  const model = join(FOLDER, 'models', 'model.json');
  const fds = () => readdirSync('/proc/self/fd').length;
  await pf.convert({ path: model });  // warm up (module, zip.js)
  const before = fds();
  for (let i = 0; i < 5; i += 1) {
    await rejectsWith(pf.convert({ path: model }, { swaps: 5 }), 'OPTION_INVALID', '/swaps');
    assert.throws(() => pf.convertSync({ path: model }, { swaps: [1] }), (e) => e.code === 'OPTION_INVALID');
    await rejectsWith(pf.convert({ path: model }, { passes: NaN }), 'OPTION_INVALID', '/passes');
  }
  assert.equal(fds(), before);
});

test('options whose getters or Proxy traps throw are OPTION_INVALID naming the option', async () => {
  const pf = await pteforge();
  const pt2 = readFileSync(PT2);
  const noKeys = new Proxy({}, { ownKeys() { throw new TypeError('no keys'); } });
  const top = 'options could not be read: TypeError: no keys';
  await rejectsWith(pf.convert(pt2, noKeys), 'OPTION_INVALID', undefined, top);
  await rejectsWith(pf.inspect(pt2, noKeys), 'OPTION_INVALID', undefined, top);
  await rejectsWith(pf.decodePte(pt2, noKeys), 'OPTION_INVALID', undefined, top);
  assert.throws(() => pf.convertSync(pt2, noKeys), (e) => e.code === 'OPTION_INVALID' && e.message === top);
  await rejectsWith(pf.convert(pt2, { get memoryPlanning() { throw new Error('boom'); } }), 'OPTION_INVALID', undefined,
    'options could not be read: Error: boom');
  await rejectsWith(pf.convert(pt2, { swaps: noKeys }), 'OPTION_INVALID', '/swaps',
    'options.swaps could not be read: TypeError: no keys');
  await rejectsWith(pf.convert(pt2, { constantMethods: { get n() { throw 'thrown text'; } } }), 'OPTION_INVALID',
    '/constantMethods/n', 'option /constantMethods/n could not be read: thrown text');
  // A hole in a list is a missing value, like an undefined item.
  await rejectsWith(pf.convert(pt2, { constantMethods: { ids: [1, , 3] } }), 'OPTION_INVALID', '/constantMethods/ids/1',
    'option /constantMethods/ids/1 is undefined (a list item needs a value)');
  const revoked = Proxy.revocable({}, {});
  revoked.revoke();
  await rejectsWith(pf.convert(pt2, { constantMethods: [revoked.proxy] }), 'OPTION_INVALID', '/constantMethods/0',
    "option /constantMethods/0 could not be read: TypeError: Cannot perform 'IsArray' on a proxy that has been revoked");
  const work = mkdtempSync(join(tmpdir(), 'pteforge-trap-'));
  try {
    await rejectsWith(pf.convertToFile(pt2, join(work, 'out.pte'), noKeys), 'OPTION_INVALID', undefined, top);
    assert.deepEqual(readdirSync(work), []);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  // An error about the options as a whole carries no pointer (String(e) has no "pointer=").
  await assert.rejects(pf.convert(pt2, 'greedy'), (e) => String(e) === 'OPTION_INVALID: options must be an object');
  // The instance is unharmed.
  assert.ok((await pf.convert(pt2, { memoryPlanning: 'greedy' })).pte.length > 0);
});

test('calls in flight survive another call poisoning the instance (they wait for the reload)', async () => {
  // The wrapper over a stand-in module: `_layout` of an input reading "boom"
  // traps (as an abort would); every other input answers. The good calls
  // are held in prepare() until the bad one has poisoned the instance.
  const { Core } = await import(pathToFileURL(join(PACKAGE_DIR, 'dist', 'api.mjs')).href);
  const { makeConverter } = await import(pathToFileURL(join(PACKAGE_DIR, 'dist', 'instance.mjs')).href);
  let loads = 0;
  let poisoned;
  const poisonedOnce = new Promise((resolve) => { poisoned = resolve; });
  const fakeModule = () => ({
    HEAPU8: new Uint8Array(16),
    _version: () => JSON.stringify({ name: 'fake', features: ['layout'] }),
    _layout: (description) => {
      if (JSON.parse(description).name === 'boom') {
        poisoned();
        throw new WebAssembly.RuntimeError('unreachable');
      }
      return { ok: true, text: '{"models": []}' };
    },
  });
  const core = new Core({
    loadModule: async () => {
      loads += 1;
      // A reload takes a while (compiling the module): longer than the good calls' own waits.
      if (loads > 1) await new Promise((resolve) => { setTimeout(resolve, 50); });
      return fakeModule();
    },
    openSource: () => null,
    prepare: async (value) => {
      if (value !== '{"boom": 1}') await poisonedOnce;
      return value;
    },
  });
  const pf = makeConverter(core, { assemble: () => new Uint8Array(0) });
  const good = Array.from({ length: 6 }, (_, i) => pf.layout('{}', { name: `good${i}` }));
  const bad = pf.layout('{"boom": 1}', { name: 'boom' });
  await assert.rejects(bad, (e) => e.code === 'INTERNAL' && /the instance was reset/.test(e.message));
  for (const r of await Promise.all(good)) assert.deepEqual(r, { models: [] });
  assert.equal(loads, 2);
  // The public package still loads and answers (the stand-in did not touch it).
  assert.equal(typeof (await loadPackage()).createPteforge, 'function');
});

test('String(error) escapes control characters as the CLI does', async () => {
  const pf = await pteforge();
  await assert.rejects(pf.inspect(new TextEncoder().encode('x'), { name: 'a\x1b[31mb.json' }), (e) => {
    assert.equal(e.where.entry, 'a\x1b[31mb.json');  // the value itself is kept
    assert.equal(String(e),
      'ARCHIVE_INVALID: "a\\x1b[31mb.json" is neither a zip archive (.pt2) nor a program JSON (entry=a\\x1b[31mb.json)');
    return true;
  });
});

test('constantMethods as JSON text: 2.0 stays a float and 2^53 + 1 exact, the same .pte as the CLI', async () => {
  const pf = await pteforge();
  const dir = mkdtempSync(join(tmpdir(), 'pteforge-cm-'));
  try {
    const cli = join(dir, 'cli.pte');
    const { runCli } = await import('./helpers.mjs');
    const r = runCli(['convert', PT2, '-o', cli, '--constant-method', 'f=2.0', '--constant-method', 'x=9007199254740993']);
    assert.equal(r.status, 0, r.stderr);
    const ours = await pf.convert(readFileSync(PT2), { constantMethods: '{"f": 2.0, "x": 9007199254740993}' });
    assert.ok(Buffer.from(ours.pte).equals(readFileSync(cli)));
    // The object form cannot say either: 2.0 is 2 in JavaScript, an int.
    const obj = await pf.convert(readFileSync(PT2), { constantMethods: { f: 2.0 } });
    const decoded = await pf.decodePte(obj.pte);
    const f = decoded.execution_plan.find((p) => p.name === 'f');
    assert.deepEqual(f.values.map((v) => [v.type, v.value]), [['Int', 2]]);
    const text = await pf.decodePte(ours.pte);
    assert.deepEqual(text.execution_plan.find((p) => p.name === 'f').values.map((v) => [v.type, v.value]), [['Double', 2]]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const pt2 = readFileSync(PT2);
  await rejectsWith(pf.convert(pt2, { constantMethods: '{"": 1}' }), 'OPTION_INVALID', '/constantMethods/',
    'constant methods: empty method name');
  await rejectsWith(pf.convert(pt2, { constantMethods: '{"a": 1, "a": 2}' }), 'OPTION_INVALID', '/constantMethods/a',
    "constant method 'a': given twice");
  await rejectsWith(pf.convert(pt2, { constantMethods: 5 }), 'OPTION_INVALID', '/constantMethods',
    'option constantMethods must be an object {name: value} or its JSON text');
  // Errors about the whole text point at the option too.
  await rejectsWith(pf.convert(pt2, { constantMethods: '{"a": [1,' }), 'OPTION_INVALID', '/constantMethods',
    'constant methods: value is not JSON (Invalid value: the JSON text ends too early at byte 9)');
  await rejectsWith(pf.convert(pt2, { constantMethods: '[1]' }), 'OPTION_INVALID', '/constantMethods',
    'constant methods must be a JSON object {"name": value, ...}');
  // A name of one of the program's methods is pointed at in the map.
  await rejectsWith(pf.convert(pt2, { constantMethods: '{"forward": 1}' }), 'OPTION_INVALID', '/constantMethods/forward',
    "constant method 'forward': a method of that name already exists");
  // NaN and infinities are read, as the CLI's --constant-method reads them.
  const nan = await pf.decodePte((await pf.convert(pt2, { constantMethods: '{"n": [NaN, -Infinity]}' })).pte);
  assert.deepEqual(nan.execution_plan.find((p) => p.name === 'n').values.map((v) => v.type), ['Double', 'Double']);
});

test('a review of the API (2026-12-05): early, located OPTION_INVALID errors instead of INTERNAL or raw errors', async () => {
  const pf = await pteforge();
  const pt2 = readFileSync(PT2);
  const lone = 'option /passes/0 holds a lone UTF-16 surrogate (half of a pair), which is no Unicode text';
  await rejectsWith(pf.convert(pt2, { passes: ['\ud800'] }), 'OPTION_INVALID', '/passes/0', lone);
  await rejectsWith(pf.convert('', { name: 'a\ud800b' }), 'OPTION_INVALID', '/name',
    'options.name holds a lone UTF-16 surrogate (half of a pair), which is no Unicode text');
  await rejectsWith(pf.convert({ files: { 'models/\udc00.json': '{}' } }), 'OPTION_INVALID', undefined,
    'a path of input.files holds a lone UTF-16 surrogate (half of a pair), which is no Unicode text');
  // An unknown memory planning algorithm is refused before the input is read (the CLI refuses it at parsing).
  await rejectsWith(pf.convert(new Uint8Array(0), { memoryPlanning: 'fast' }), 'OPTION_INVALID', '/memoryPlanning',
    'unknown memory planning algorithm "fast" (expected greedy, naive, best_fit or best)');
  // decodePte and layout check their options like the other methods.
  await rejectsWith(pf.decodePte(new Uint8Array(8), { formt: 'summary' }), 'OPTION_INVALID', '/formt', 'unknown option "formt"');
  await rejectsWith(pf.decodePte(new Uint8Array(8), { text: 1 }), 'OPTION_INVALID', '/text', 'options.text must be a boolean; got number 1');
  await rejectsWith(pf.layout(pt2, { method: 'forward' }), 'OPTION_INVALID', '/method', 'unknown option "method"');
  await rejectsWith(pf.inspect(pt2, { format: 'text' }), 'OPTION_INVALID', '/format', 'unknown option "format"');
  // null options are "not given".
  assert.deepEqual(await pf.inspect(pt2, null), await pf.inspect(pt2));
  // A swap value that is no input names its swap; null is "not given".
  await rejectsWith(pf.convert(pt2, { swaps: { 1: 5 } }), 'OPTION_INVALID', '/swaps/1');
  assert.ok(Buffer.from((await pf.convert(pt2, { swaps: { 1: null } })).pte).equals(Buffer.from((await pf.convert(pt2)).pte)));
  // A throwing getter on the input object is OPTION_INVALID, not the caller's error.
  await rejectsWith(pf.convert({ get data() { throw new Error('trap'); } }), 'OPTION_INVALID', undefined,
    'the input could not be read: Error: trap');
  // The *Sync twin named is the one called.
  assert.throws(() => pf.decodePteSync(new Blob([new Uint8Array(8)])), (e) => e.code === 'OPTION_INVALID' &&
    e.message === 'the input is a Blob/File, which only the async methods can read here: use decodePte(), not decodePteSync()');
  // listModules of a two-method program needs its method.
  const two = repo('tests/fixtures/corpus/two_methods/two_methods.pt2');
  await rejectsWith(pf.listModules({ path: two }), 'OPTION_INVALID', '/method',
    'the input has 2 methods (forward, reset); listModules lists one: give options.method');
  assert.ok(Array.isArray(await pf.listModules({ path: two }, { method: 'reset' })));
  // convertToFile: '' and '-' as the CLI's -o; its progress ends with the assemble stage.
  await rejectsWith(pf.convertToFile(pt2, '-'), 'OPTION_INVALID', undefined,
    "convertToFile path '-': outputs are written to files, not to standard output; name a file ('./-' for a file called '-')");
  await rejectsWith(pf.convertToFile(pt2, ''), 'OPTION_INVALID', undefined, 'convertToFile needs an output path, not an empty string');
  const dir = mkdtempSync(join(tmpdir(), 'pteforge-ctf-'));
  try {
    const stages = [];
    await pf.convertToFile(pt2, join(dir, 'o.pte'), { onProgress: (p) => stages.push(p.stage) });
    assert.deepEqual([...new Set(stages)], ['read', 'import', 'passes', 'emit', 'serialize', 'assemble']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // A missing .wasm is IO_ERROR naming it.
  const { createPteforge } = await loadPackage();
  await rejectsWith(createPteforge({ wasmPath: '/no/such/pteforge.wasm' }), 'IO_ERROR', undefined,
    'cannot read the WebAssembly module "/no/such/pteforge.wasm": no such file or folder');
});

test('the module prints nothing by default: a .wasm that does not compile is INTERNAL with what it printed as notes', async () => {
  const { createPteforge } = await loadPackage();
  const written = [];
  const original = console.warn;
  const originalError = console.error;
  console.warn = (...a) => written.push(a.join(' '));
  console.error = (...a) => written.push(a.join(' '));
  try {
    await assert.rejects(createPteforge({ wasmBinary: new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 255]) }), (e) => {
      assert.equal(e.code, 'INTERNAL', String(e));
      assert.match(e.message, /^the pteforge WebAssembly module failed to load: /);
      assert.ok(e.notes.some((n) => n.startsWith('the module printed: ')), JSON.stringify(e.notes));
      return true;
    });
  } finally {
    console.warn = original;
    console.error = originalError;
  }
  assert.deepEqual(written, []);
  // A printErr of the caller's gets the lines instead.
  const mine = [];
  await assert.rejects(createPteforge({ wasmBinary: new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 255]), printErr: (t) => mine.push(t) }));
  assert.ok(mine.length > 0);
});

test('a {files} input has files and name only: an unknown field is OPTION_INVALID, not obeyed', async () => {
  const pf = await pteforge();
  const files = Object.fromEntries(walk(FOLDER).map(([rel, abs]) => [rel, readFileSync(abs)]));
  assert.throws(() => pf.convertSync({ files, program: 'models/nope.json' }), (e) => e.code === 'OPTION_INVALID' &&
    e.message === 'unknown field "program" in a {files} input (it has files and name)');
  assert.throws(() => pf.inspectSync({ files, nmae: 'x' }), (e) => e.code === 'OPTION_INVALID' &&
    e.message === 'unknown field "nmae" in a {files} input (it has files and name)');
  // A folder path still picks its models/*.json (the wrapper's own {files}).
  assert.equal(pf.inspectSync({ path: join(FOLDER, 'models', 'model.json') }).methods[0].name, 'forward');
  assert.equal(pf.inspectSync({ files, name: 'linear_tanh' }).methods[0].name, 'forward');
});

test('{data} and {path} inputs have only their own fields: a misspelt one is OPTION_INVALID, not dropped', async () => {
  const pf = await pteforge();
  const json = readFileSync(join(FOLDER, 'models', 'model.json'));
  assert.throws(() => pf.inspectSync({ data: json, nmae: 'x' }), (e) => e.code === 'OPTION_INVALID' &&
    e.message === 'unknown field "nmae" in a {data} input (it has data and name)');
  await assert.rejects(pf.convert({ path: PT2, foo: 1 }), (e) => e.code === 'OPTION_INVALID' &&
    e.message === 'unknown field "foo" in a {path} input (it has path)');
  // undefined is "not given", as for options.
  assert.equal(pf.inspectSync({ data: json, name: 'n.json', extra: undefined }).methods[0].name, 'forward');
  assert.ok((await pf.convert({ path: PT2, extra: undefined })).pte.length > 0);
});

test('second review: paths with lone surrogates, DataViews of detached buffers, swaps that cannot be read, blank constant-method text', async () => {
  const pf = await pteforge();
  const pt2 = readFileSync(PT2);
  await rejectsWith(pf.convert({ path: '/tmp/\ud800.pt2' }), 'OPTION_INVALID', undefined,
    'the input path holds a lone UTF-16 surrogate (half of a pair), which is no Unicode text (no file has that name)');
  await rejectsWith(pf.convertToFile(pt2, '/tmp/out\ud800.pte'), 'OPTION_INVALID', undefined,
    'convertToFile path holds a lone UTF-16 surrogate (half of a pair), which is no Unicode text');
  const ab = new ArrayBuffer(8);
  const dv = new DataView(ab);
  structuredClone(ab, { transfer: [ab] });
  await rejectsWith(pf.convert(dv), 'OPTION_INVALID', undefined,
    'the DataView given views a detached ArrayBuffer (transferred elsewhere, e.g. by postMessage): it holds no bytes to read');
  // A swap that cannot be read names its swap, in the async path as in the sync one.
  await assert.rejects(pf.convert(pt2, { swaps: { a: { get data() { throw new Error('trap'); } } } }), (e) => {
    assert.equal(e.code, 'OPTION_INVALID', String(e));
    assert.equal(e.where.pointer, '/swaps/a');
    assert.deepEqual(e.notes, ["while opening the replacement for module 'a' (options.swaps)"]);
    return true;
  });
  // A class instance's throwing getter too (it is read, not snapshotted).
  const Trap = class { get data() { throw new Error('trap'); } };
  await rejectsWith(pf.convert(new Trap()), 'OPTION_INVALID', undefined, 'the input could not be read: Error: trap');
  // Blank constant-method text gives no methods, as '' does.
  const plain = Buffer.from((await pf.convert(pt2)).pte);
  assert.ok(Buffer.from((await pf.convert(pt2, { constantMethods: ' \n ' })).pte).equals(plain));
  // The map's syntax errors carry no note about the CLI's --constant-method.
  await assert.rejects(pf.convert(pt2, { constantMethods: '{"a": }' }), (e) => e.code === 'OPTION_INVALID' && e.notes.length === 0);
});

test('program JSON over 1 GiB is UNSUPPORTED_FEATURE for every reader of a program (sparse file: nothing is read)', async () => {
  const pf = await pteforge();
  const { openSync, ftruncateSync, writeSync, closeSync } = await import('node:fs');
  const dir = mkdtempSync(join(tmpdir(), 'pteforge-big-'));
  const big = join(dir, 'big.json');
  try {
    const fd = openSync(big, 'w');
    writeSync(fd, '{"schema_version": {"major": 8, "minor": 20}}');
    ftruncateSync(fd, 2 ** 30 + 101);
    closeSync(fd);
    const message = 'the program JSON is 1073741925 bytes; the npm package and the page read program JSON of up to 1 GiB ' +
      '(WebAssembly memory ends at 4 GiB, and reading a program holds its JSON twice): use the native pteforge CLI for this program';
    for (const call of [() => pf.convert({ path: big }), () => pf.inspect({ path: big }), () => pf.listModules({ path: big }),
      () => pf.convert({ path: repo('tests/fixtures/corpus/modules_preserved/modules_preserved.pt2') }, { swaps: { 1: { path: big } } })]) {
      await assert.rejects(call(), (e) => {
        assert.equal(e.code, 'UNSUPPORTED_FEATURE', String(e));
        assert.equal(e.message, message);
        assert.equal(e.where.entry, 'big.json');
        return true;
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
