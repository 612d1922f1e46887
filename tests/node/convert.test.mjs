// convert: for every fixture (the corpus archives and the hand-written
// programs in tests/fixtures/programs) the WASM module's .pte is
// byte-identical to the native CLI's from the same run (`pteforge convert IN
// -o OUT.pte --metadata OUT.json`), from every input form; where the CLI
// fails, the package fails with the same error line. Options map to the
// CLI's flags; bad options and bad inputs are PteforgeErrors with code and
// where, and the converter keeps working after them.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, test } from 'node:test';

import { pteforge, repo, runCli } from './helpers.mjs';

let work;
before(() => {
  work = mkdtempSync(join(tmpdir(), 'pteforge-convert-'));
});
after(() => rmSync(work, { recursive: true, force: true }));

/** [name, input path relative to the repo] for every fixture. */
function fixtures() {
  const out = [];
  const corpus = 'tests/fixtures/corpus';
  for (const c of readdirSync(repo(corpus)).sort()) {
    if (!statSync(repo(corpus, c)).isDirectory()) continue;
    for (const f of readdirSync(repo(corpus, c)).sort()) if (f.endsWith('.pt2')) out.push([`corpus/${f}`, `${corpus}/${c}/${f}`]);
  }
  const programs = 'tests/fixtures/programs';
  for (const p of readdirSync(repo(programs)).sort()) {
    if (statSync(repo(programs, p)).isDirectory()) out.push([`programs/${p}`, `${programs}/${p}`]);
  }
  return out;
}

/** Every file below `dir` as {relative path: bytes}. */
function folderFiles(dir) {
  const files = {};
  const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else files[relative(dir, p)] = readFileSync(p);
    }
  };
  walk(dir);
  return files;
}

/** The CLI's result for `input` with `flags`: {ok, pte, metadata} or {ok: false, stderr}. */
function native(name, input, flags = []) {
  const out = join(work, `${name.replace(/\W/g, '_')}-${flags.join('').replace(/\W/g, '_')}`);
  const r = runCli(['convert', input, '-o', `${out}.pte`, '--metadata', `${out}.json`, ...flags]);
  if (r.status !== 0) return { ok: false, status: r.status, stderr: r.stderr };
  return { ok: true, pte: readFileSync(`${out}.pte`), metadata: JSON.parse(readFileSync(`${out}.json`, 'utf8')) };
}

/** `value` without the pass times ("ms" keys), which differ from run to run. */
function withoutTimes(value) {
  if (Array.isArray(value)) return value.map(withoutTimes);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).filter(([k]) => k !== 'ms').map(([k, v]) => [k, withoutTimes(v)]));
  }
  return value;
}

const FIXTURES = fixtures();

test('fixtures: 11 corpus archives and the hand-written programs', () => {
  assert.equal(FIXTURES.filter(([n]) => n.startsWith('corpus/')).length, 11);
  assert.ok(FIXTURES.length >= 25, `${FIXTURES.length}`);
});

for (const [name, input] of FIXTURES) {
  test(`convert ${name}: byte-identical to the native CLI`, async () => {
    const pf = await pteforge();
    const expected = native(name, input);
    const isFolder = statSync(repo(input)).isDirectory();
    const forms = isFolder
      ? [['{files}', { files: folderFiles(repo(input)), name: input }]]
      : [['{path}', { path: input }], ['bytes', { data: readFileSync(repo(input)), name: input }]];
    for (const [form, value] of forms) {
      if (!expected.ok) {
        await assert.rejects(pf.convert(value), (e) => {
          assert.equal(e.name, 'PteforgeError', String(e));
          assert.equal(`${e}\n`, expected.stderr, `${form}: the same error as the CLI`);
          return true;
        });
        continue;
      }
      const result = await pf.convert(value);
      assert.ok(result.pte instanceof Uint8Array);
      assert.equal(Buffer.compare(Buffer.from(result.pte), expected.pte), 0, `${form}: .pte differs from the CLI's`);
      assert.deepEqual(withoutTimes(result.metadata), withoutTimes(expected.metadata), `${form}: metadata`);
      assert.equal(typeof result.report, 'object');
    }
    if (expected.ok && !isFolder) {
      const path = join(work, 'to-file.pte');
      const written = await pf.convertToFile({ path: input }, path);
      assert.equal(written.size, expected.pte.length);
      assert.equal(Buffer.compare(readFileSync(path), expected.pte), 0, 'convertToFile');
    }
  });
}

test('a converted .pte decodes as the CLI decodes it', async () => {
  const pf = await pteforge();
  const input = 'tests/fixtures/corpus/linear_tanh/linear_tanh.pt2';
  const { pte } = await pf.convert({ path: input });
  const expected = native('decode-linear_tanh', input);
  assert.ok(expected.ok, expected.stderr);
  const path = join(work, 'decode-me.pte');
  (await import('node:fs')).writeFileSync(path, pte);
  assert.equal(await pf.decodePte(pte, { text: true }), runCli(['decode', path, '--json']).stdout.toString());
});

test('metadata is parsed when first read, and behaves as a plain property', async () => {
  const pf = await pteforge();
  const input = 'tests/fixtures/corpus/linear_tanh/linear_tanh.pt2';
  const expected = native('lazy', input);
  for (const result of [await pf.convert({ path: input }), await pf.convertToFile({ path: input }, join(work, 'lazy.pte'))]) {
    const keys = Object.keys(result);
    assert.ok(keys.includes('metadata') && keys.indexOf('metadata') < keys.indexOf('report'), keys.join());
    // An accessor until read: converting does not parse the metadata JSON.
    assert.equal(typeof Object.getOwnPropertyDescriptor(result, 'metadata').get, 'function');
    const first = result.metadata;
    assert.equal(result.metadata, first, 'parsed once, then the same object');
    assert.deepEqual(withoutTimes(first), withoutTimes(expected.metadata));
    // Spreading and JSON see the parsed value; assigning replaces it.
    assert.equal({ ...result }.metadata, first);
    assert.deepEqual(JSON.parse(JSON.stringify(result)).metadata, JSON.parse(JSON.stringify(first)));
    result.metadata = 'replaced';
    assert.equal(result.metadata, 'replaced');
  }
});

test('options mirror the CLI flags', async () => {
  const pf = await pteforge();
  const input = 'tests/fixtures/corpus/buffer_running_sum/buffer_running_sum.pt2';
  const cases = [
    [{ memoryPlanning: 'naive' }, ['--memory-planning', 'naive']],
    [{ initBuffers: true }, ['--init-buffers']],
    [{ stackTraces: true }, ['--emit-stacktrace']],
    [{ preserveOps: ['aten.linear.default'] }, ['--preserve-ops', 'aten.linear.default']],
    [{ constantMethods: { get_max_seq_len: 128, get_name: 'tiny' } }, ['--constant-method', 'get_max_seq_len=128', '--constant-method', 'get_name="tiny"']],
  ];
  for (const [options, flags] of cases) {
    const expected = native(`options-${flags[0]}`, input, flags);
    assert.ok(expected.ok, `${flags.join(' ')}: ${expected.stderr}`);
    const { pte } = await pf.convert({ path: input }, options);
    assert.equal(Buffer.compare(Buffer.from(pte), expected.pte), 0, JSON.stringify(options));
  }
  const passes = (await pf.listPasses()).filter((p) => p.default && p.implemented).map((p) => p.name);
  assert.ok(passes.includes('memory_planning'));
  const withDefault = await pf.convert({ path: input }, { passes });
  const plain = await pf.convert({ path: input });
  assert.equal(Buffer.compare(Buffer.from(withDefault.pte), Buffer.from(plain.pte)), 0, 'the default pipeline by name');
});

test('progress is reported in order', async () => {
  const pf = await pteforge();
  const seen = [];
  await pf.convert({ path: 'tests/fixtures/corpus/two_methods/two_methods.pt2' }, { onProgress: (p) => seen.push(p) });
  assert.deepEqual(seen.map((p) => `${p.stage} ${p.done}/${p.total}`), [
    'read 0/1', 'read 1/1', 'import 0/2', 'import 1/2', 'import 2/2', 'passes 0/2', 'passes 1/2', 'passes 2/2',
    'emit 0/1', 'emit 1/1', 'serialize 0/1', 'serialize 1/1', `assemble 0/${seen.at(-1).total}`, `assemble ${seen.at(-1).total}/${seen.at(-1).total}`,
  ]);
  // A throwing progress callback does not break the conversion.
  const r = await pf.convert({ path: 'tests/fixtures/corpus/linear_tanh/linear_tanh.pt2' }, { onProgress: () => { throw new Error('boom'); } });
  assert.ok(r.pte.length > 0);
});

test('bad options and inputs: PteforgeError with code and where; converting again succeeds', async () => {
  const pf = await pteforge();
  const input = { path: 'tests/fixtures/corpus/linear_tanh/linear_tanh.pt2' };
  const good = (await pf.convert(input)).pte;
  const nested = (levels) => {
    let v = 1;
    for (let i = 0; i < levels; ++i) v = [v];
    return v;
  };
  const cases = [
    [input, { passes: ['memory_planning', 7] }, 'OPTION_INVALID', { pointer: '/passes/1' }],
    [input, { preserveOps: ['aten.linear.default', 3] }, 'OPTION_INVALID', { pointer: '/preserveOps/1' }],
    [input, { preserveOps: ['aten.lstm.input'] }, 'OPTION_INVALID', { method: 'forward', pass: 'decompose' }],
    [input, { memoryPlanning: false }, 'OPTION_INVALID', { pointer: '/memoryPlanning' }],
    [input, { initBuffers: 'yes' }, 'OPTION_INVALID', { pointer: '/initBuffers' }],
    [input, { constantMethods: [1] }, 'OPTION_INVALID', { pointer: '/constantMethods' }],
    [input, { frobnicate: true }, 'OPTION_INVALID', { pointer: '/frobnicate' }],
    // Nested values: past 64 levels the CLI's error (its method named); past
    // the JSON reader's 1,024 levels the options as a whole, without an offset.
    [input, { constantMethods: { get_x: nested(100) } }, 'OPTION_INVALID', { method: 'get_x' },
      "constant method 'get_x': value nested deeper than 64 levels"],
    [input, { constantMethods: { get_x: nested(1500) } }, 'OPTION_INVALID', { byte_offset: undefined, pointer: undefined },
      'options are nested deeper than 1024 levels'],
    [input, { passes: ['decompose', 'no_such_pass'] }, 'UNKNOWN_PASS', { pointer: '/passes/1' }],
    // A pass out of the default pipeline's order (the CLI's words), pointed at.
    [input, { passes: ['decompose', 'verify_shapes', 'legalize', 'decompose'] }, 'OPTION_INVALID',
      { pointer: '/passes/3' },
      '--passes lists decompose after verify_shapes, but decompose runs before it in the default pipeline: ' +
      'a pass list may leave passes out or repeat one right after itself, not reorder them (each pass relies ' +
      'on what the earlier ones made, e.g. memory_planning is always last)'],
    // An option that configures a pass an explicit list leaves out (the CLI's words).
    [input, { passes: ['decompose', 'to_out_variant'], memoryPlanning: 'naive' }, 'OPTION_INVALID', {},
      "the memory planning algorithm 'naive' needs the pass memory_planning, which the pass list leaves out " +
      '(add it, or leave the pass list out for the default pipeline)'],
    [input, { passes: ['remove_noops'], preserveOps: ['aten.linear.default'] }, 'OPTION_INVALID', {},
      'preserved ops need the pass decompose, which the pass list leaves out ' +
      '(add it, or leave the pass list out for the default pipeline)'],
    [input, { onProgress: 'loud' }, 'OPTION_INVALID', { pointer: '/onProgress' }],
    [new Uint8Array(0), {}, 'INPUT_EMPTY', { entry: 'input' }],
    ['{"not": "a program"}', { name: 'p.json' }, null, { method: 'forward' }],
  ];
  for (const [value, options, code, where, message] of cases) {
    await assert.rejects(pf.convert(value, options), (e) => {
      assert.equal(e.name, 'PteforgeError', String(e));
      if (code) assert.equal(e.code, code, String(e));
      if (message) assert.equal(e.message, message);
      for (const [k, v] of Object.entries(where)) assert.equal(e.where[k], v, String(e));
      return true;
    }, JSON.stringify(options).slice(0, 200));
    const again = await pf.convert(input);
    assert.equal(Buffer.compare(Buffer.from(again.pte), Buffer.from(good)), 0, 'usable after the error');
  }
});

test('swaps: the same .pte as `pteforge convert --swap`, from every input form of the replacement', async () => {
  const pf = await pteforge();
  const base = 'tests/fixtures/corpus/modules_preserved/modules_preserved.pt2';
  const rep = 'tests/fixtures/corpus/modules_preserved_swap/replacement_1.pt2';
  const expected = native('swap', base, ['--swap', `1=${repo(rep)}`]);
  assert.ok(expected.ok, expected.stderr);
  const plain = native('noswap', base);
  assert.notEqual(Buffer.compare(expected.pte, plain.pte), 0, 'the swap changes the program');
  const forms = [
    ['{path}', { path: rep }],
    ['bytes', readFileSync(repo(rep))],
    ['{files}', { files: folderFiles(repo('tests/fixtures/corpus/modules_preserved_swap/json')) }],
  ];
  for (const [form, value] of forms) {
    const { pte } = await pf.convert({ path: base }, { swaps: { 1: value } });
    assert.equal(Buffer.compare(Buffer.from(pte), expected.pte), 0, `${form}: .pte differs from the CLI's`);
  }
  const path = join(work, 'swapped.pte');
  await pf.convertToFile({ path: base }, path, { swaps: { 1: { path: rep } } });
  assert.equal(Buffer.compare(readFileSync(path), expected.pte), 0, 'convertToFile with swaps');
  // Errors: the CLI's, and the converter stays usable.
  const bad = native('swap-bad', base, ['--swap', `0.0=${repo(rep)}`]);
  await assert.rejects(pf.convert({ path: base }, { swaps: { '0.0': { path: rep } } }), (e) => {
    assert.equal(e.code, 'MODULE_SWAP');
    assert.equal(`${e}\n`, bad.stderr);
    return true;
  });
  // A replacement that does not fit the module: the note names the input it came from.
  await assert.rejects(pf.convert({ path: base }, { swaps: { 0: { path: rep } } }), (e) => {
    assert.equal(e.code, 'MODULE_SWAP');
    assert.deepEqual(e.notes, [`while swapping in the replacement for module '0' (${rep})`]);
    return true;
  });
  await assert.rejects(pf.convert({ path: base }, { swaps: { 1: new Uint8Array(0) } }), (e) => e.code === 'INPUT_EMPTY');
  await assert.rejects(pf.convert({ path: base }, { swaps: [] }), (e) => e.code === 'OPTION_INVALID');
});

test('exportProgram: the programs after the passes, as `pteforge convert --export-program` writes them', async () => {
  const pf = await pteforge();
  const input = 'tests/fixtures/corpus/two_methods/two_methods.pt2';
  const out = join(work, 'exported');
  const r = runCli(['convert', input, '-o', `${out}.pte`, '--export-program', `${out}.json`]);
  assert.equal(r.status, 0, r.stderr.toString());
  const expected = JSON.parse(readFileSync(`${out}.json`, 'utf8'));
  assert.deepEqual(Object.keys(expected), ['forward', 'reset']);
  const result = await pf.convert({ path: input }, { exportProgram: true });
  assert.deepEqual(result.program, expected);
  assert.equal((await pf.convert({ path: input })).program, undefined, 'only when asked');
  // Each program is torch.export JSON again: the out variants the emitter reads, and it imports.
  const targets = expected.forward.graph_module.graph.nodes.map((n) => n.target);
  assert.ok(targets.every((t) => !t.startsWith('torch.ops.aten.') || t.endsWith('.out') || t.includes('_copy')), targets.join(', '));
  const summary = await pf.inspect(JSON.stringify(expected.forward), { name: 'forward.json' });
  assert.equal(summary.methods[0].name, 'forward');
});

test('options that are not JSON values are OPTION_INVALID, not a TypeError', async () => {
  const pf = await pteforge();
  const input = { path: 'tests/fixtures/corpus/linear_tanh/linear_tanh.pt2' };
  await assert.rejects(pf.convert(input, { constantMethods: { a: Symbol('a') } }), (e) => e.name === 'PteforgeError' && e.code === 'OPTION_INVALID' && /JSON values/.test(e.message));
  // A BigInt is an int (as this package's parsed objects hold ints past 2^53).
  assert.ok((await pf.convert(input, { constantMethods: { a: 10n } })).pte.length > 0);
  assert.ok((await pf.convert(input, { memoryPlanning: 'best_fit' })).pte.length > 0, 'best_fit, as the CLI offers it');
});

test('a failed conversion keeps the warnings raised before its error, as the last notes', async () => {
  const pf = await pteforge();
  const program = JSON.parse(readFileSync(repo('tests/fixtures/programs/ref_arduino_add/models/model.json'), 'utf8'));
  delete program.schema_version;  // a warning
  program.graph_module.graph.nodes[0].target = 'torch.ops.aten.no_such_op.default';  // then an error
  await assert.rejects(pf.convert(JSON.stringify(program), { name: 'w.json' }), (e) => {
    assert.equal(e.code, 'UNSUPPORTED_OPERATOR', String(e));
    assert.equal(e.notes.at(-1),
      'earlier warning: the program has no schema_version; reading it as schema 8.x (method=forward entry=w.json pointer="")');
    return true;
  });
});

test('64-bit integers stay exact: the ...Text forms are the CLI\'s bytes, the objects hold BigInt past 2^53', async () => {
  const pf = await pteforge();
  // torch.export writes a slice to the end as end = 2^63 - 1 (the decoder's x[..., a:]).
  const input = 'tests/fixtures/tir/tir_llama_decoder';
  const big = '{"get_max": 9223372036854775807, "get_odd": 9007199254740993, "get_small": 7}';
  const out = join(work, 'int64');
  const r = runCli(['convert', input, '-o', `${out}.pte`, '--metadata', `${out}.meta.json`, '--export-program',
    `${out}.program.json`, '--no-times', '--constant-method', 'get_max=9223372036854775807', '--constant-method',
    'get_odd=9007199254740993', '--constant-method', 'get_small=7']);
  assert.equal(r.status, 0, r.stderr.toString());
  const result = await pf.convert({ path: input }, { exportProgram: true, reportTimes: false, constantMethods: big });
  assert.deepEqual(Buffer.from(result.pte), readFileSync(`${out}.pte`));
  assert.equal(result.metadataText, readFileSync(`${out}.meta.json`, 'utf8'));
  assert.equal(result.programText, readFileSync(`${out}.program.json`, 'utf8'));
  // The parsed objects: BigInt where JSON.parse would round, numbers elsewhere.
  const ends = JSON.stringify(result.program, (_, v) => (typeof v === 'bigint' ? `big:${v}` : v));
  assert.ok(ends.includes('"big:9223372036854775807"'), 'the slice end is exact');
  const getters = JSON.stringify(result.metadata, (_, v) => (typeof v === 'bigint' ? `big:${v}` : v));
  assert.ok(getters.includes('"big:9007199254740993"'), getters.slice(0, 300));
  assert.ok(!getters.includes('9007199254740992'));
  const decoded = await pf.decodePte(result.pte);
  const values = decoded.execution_plan.find((p) => p.name === 'get_max').values;
  assert.equal(values[0].value, 9223372036854775807n);
  assert.equal(decoded.execution_plan.find((p) => p.name === 'get_small').values[0].value, 7);
  // A BigInt option is the same int (as parsed objects give them back).
  const again = await pf.convert({ path: input }, { constantMethods: { get_max: 9223372036854775807n, get_odd: 9007199254740993n, get_small: 7 } });
  assert.deepEqual(Buffer.from(again.pte), readFileSync(`${out}.pte`));
  await assert.rejects(pf.convert({ path: input }, { constantMethods: { x: 2n ** 63n } }),
    (e) => e.code === 'OPTION_INVALID' && e.where.pointer === '/constantMethods/x');
});

test('a swap keyed "__proto__" is a module name like any other (MODULE_SWAP: no such module)', async () => {
  const pf = await pteforge();
  const swaps = JSON.parse('{"__proto__": {"path": "tests/fixtures/corpus/linear_tanh/linear_tanh.pt2"}}');
  await assert.rejects(pf.convert({ path: 'tests/fixtures/corpus/linear_tanh/linear_tanh.pt2' }, { swaps }),
    (e) => e.code === 'MODULE_SWAP' && e.message.includes("'__proto__'"));
});

test('bad options are refused before the input is read (as the CLI refuses a bad flag first)', async () => {
  const pf = await pteforge();
  const missing = { path: join(work, 'no-such-file.pt2') };
  const broken = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3]);  // a truncated zip
  for (const input of [missing, broken]) {
    await assert.rejects(pf.convert(input, { memoryPlanning: 'fastest' }),
      (e) => e.code === 'OPTION_INVALID' && e.where.pointer === '/memoryPlanning');
    await assert.rejects(pf.convert(input, { passes: [] }), (e) => e.code === 'OPTION_INVALID' && e.where.pointer === '/passes');
    await assert.rejects(pf.convert(input, { foo: 1 }), (e) => e.code === 'OPTION_INVALID' && /foo/.test(e.message));
  }
  await assert.rejects(pf.convertToFile(missing, join(work, 'x.pte'), { memoryPlanning: 'fastest' }),
    (e) => e.code === 'OPTION_INVALID' && e.where.pointer === '/memoryPlanning');
  // Good options: the input's own error.
  await assert.rejects(pf.convert(missing, { memoryPlanning: 'naive' }), (e) => e.code === 'IO_ERROR');
});

test('an input file that shrinks while the .pte is assembled: IO_ERROR naming it, from convert and convertToFile', async () => {
  const pf = await pteforge();
  const { existsSync, truncateSync } = await import('node:fs');
  const { execFileSync } = await import('node:child_process');
  for (const method of ['convert', 'convertToFile']) {
    // A 256 KiB weight: read while assembling, past the read-ahead window.
    const input = join(work, `shrinks_${method}.pt2`);
    execFileSync('python3', [repo('tests/node/gen_big_weights.py'), input, '--layers', '1', '--width', '256']);
    let cut = false;
    const onProgress = ({ stage }) => {
      if (stage === 'assemble' && !cut) {
        cut = true;
        truncateSync(input, 100); // the weights (read while assembling) are gone
      }
    };
    const out = join(work, `shrinks_${method}.pte`);
    const run = method === 'convert' ? pf.convert({ path: input }, { onProgress }) : pf.convertToFile({ path: input }, out, { onProgress });
    await assert.rejects(run, (e) => {
      assert.equal(e.name, 'PteforgeError', String(e));
      assert.equal(e.code, 'IO_ERROR');
      assert.equal(e.where.entry, input);
      assert.match(e.message, new RegExp(`^cannot read "${input.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}": short read: \\d+ of \\d+ bytes at offset \\d+ \\(did the file change\\?\\)$`));
      return true;
    }, method);
    assert.ok(cut, 'the assemble stage was reached');
    assert.ok(!existsSync(out), 'no output left behind');
  }
});

test('a replacement that cannot be opened: the error names the swap, as the CLI does', async () => {
  const pf = await pteforge();
  const missing = join(work, 'no_such_replacement.pt2');
  await assert.rejects(pf.convert({ path: 'tests/fixtures/corpus/modules_preserved/modules_preserved.pt2' }, { swaps: { 1: { path: missing } } }), (e) => {
    assert.equal(e.code, 'IO_ERROR', String(e));
    assert.equal(e.message, `cannot open "${missing}": no such file or folder`);
    assert.deepEqual(e.notes, ["while opening the replacement for module '1' (options.swaps)"]);
    return true;
  });
});

test('a string input that reads like a file path: the core\'s error with a note saying how to give a file', async () => {
  const pf = await pteforge();
  await assert.rejects(pf.convert('tests/fixtures/corpus/linear_tanh/linear_tanh.pt2'), (e) => {
    assert.equal(String(e), 'ARCHIVE_INVALID: "model.json" is neither a zip archive (.pt2) nor a program JSON (entry=model.json)\n' +
      '  note: a string input is program JSON text, and this one reads like a file path: give {path: "tests/fixtures/corpus/linear_tanh/linear_tanh.pt2"} (Node), or the File itself (browser)');
    return true;
  });
  // JSON text that is no program keeps the core's own error.
  await assert.rejects(pf.convert('[1]'), (e) => e.code === 'INPUT_SCHEMA' && e.notes.length === 0);
});
