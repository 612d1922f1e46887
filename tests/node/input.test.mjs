// Inputs: every corpus .pt2 opens the same way from bytes, from a path, from
// a Blob and as the files of its unpacked json/ folder; the zip directory is
// read by zip.js, deflated entries are inflated by it and checked; bad
// archives become PteforgeErrors with the code (and, where the core finds the
// fault, the location) of the native reader; the *Sync twins refuse archives
// (zip.js is asynchronous); the converter stays usable after every error.
// (fflate writes the test archives: a zip writer independent of the reader.)
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { unzipSync, zipSync } from 'fflate';

import { CLI, PACKAGE_DIR, loadPackage, pteforge, repo, runCli } from './helpers.mjs';

const CORPUS = 'tests/fixtures/corpus';

/** [case, path of its .pt2 relative to the repo] for every corpus case. */
function corpusArchives() {
  const out = [];
  for (const c of readdirSync(repo(CORPUS)).sort()) {
    if (!statSync(repo(CORPUS, c)).isDirectory()) continue;
    for (const f of readdirSync(repo(CORPUS, c)).sort()) if (f.endsWith('.pt2')) out.push([c, `${CORPUS}/${c}/${f}`]);
  }
  return out;
}

/** Every file below `dir` as {relative path: bytes}. */
function folderFiles(dir) {
  const out = {};
  const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(dir, p)] = readFileSync(p);
    }
  };
  walk(dir);
  return out;
}

/** Entry names without the archive's root folder. */
function withoutRoot(layout) {
  const strip = (name) => (layout.root ? name.slice(layout.root.length + 1) : name);
  return {
    models: layout.models.map((m) => ({ ...m, program_entry: strip(m.program_entry),
      weights_config_entry: m.weights_config_entry && strip(m.weights_config_entry),
      constants_config_entry: m.constants_config_entry && strip(m.constants_config_entry) })),
    entries: layout.entries.map((e) => ({ ...e, name: strip(e.name) })).sort((a, b) => (a.name < b.name ? -1 : 1)),
  };
}

const ARCHIVES = corpusArchives();

test('the corpus has its eleven archives', () => {
  assert.equal(ARCHIVES.length, 11, ARCHIVES.map(([, p]) => p).join(', '));
});

for (const [name, path] of ARCHIVES) {
  test(`layout of ${path}: bytes, {path}, Blob and the unpacked folder agree`, async () => {
    const pf = await pteforge();
    const bytes = readFileSync(repo(path));
    const fromPath = await pf.layout({ path: repo(path) });
    assert.equal(fromPath.kind, 'current');
    assert.ok(fromPath.models.length >= 1);
    assert.ok(fromPath.entries.every((e) => e.stored), 'PyTorch stores every entry');
    assert.deepEqual(await pf.layout(bytes), fromPath);
    assert.deepEqual(await pf.layout(new Blob([bytes])), fromPath);
    const folder = await pf.layout({ files: folderFiles(repo(CORPUS, name, 'json')), name: 'json' });
    assert.equal(folder.root, '');
    assert.deepEqual(withoutRoot(folder), withoutRoot(fromPath));
  });
}

test('a lone program JSON (string or bytes) is method "forward" with no payload folders', async () => {
  const pf = await pteforge();
  const text = readFileSync(repo(CORPUS, 'linear_tanh/json/models/model.json'), 'utf8');
  const expected = {
    kind: 'program_json', root: '', byteorder: 'little',
    models: [{ name: 'model', method: 'forward', program_entry: 'model.json', weights_config_entry: null, constants_config_entry: null }],
    entries: [{ name: 'model.json', size: Buffer.byteLength(text), stored: true }],
  };
  assert.deepEqual(await pf.layout(text), expected);
  assert.deepEqual(await pf.layout(new TextEncoder().encode(`\uFEFF  ${text}`), { name: 'dir/model.json' }),
    { ...expected, entries: [{ ...expected.entries[0], size: Buffer.byteLength(text) + 5 }] });
});

/** linear_tanh.pt2 re-zipped by fflate with every record but the weights deflated. */
function deflatedArchive() {
  const entries = unzipSync(readFileSync(repo(CORPUS, 'linear_tanh/linear_tanh.pt2')));
  const files = {};
  for (const [name, data] of Object.entries(entries)) {
    files[name] = [data, { level: name.includes('/data/weights/weight_') ? 0 : 6 }];
  }
  return zipSync(files);
}

test('deflated entries are inflated (zip.js) and read like stored ones', async () => {
  const pf = await pteforge();
  const zip = deflatedArchive();
  const layout = await pf.layout(zip, { name: 'deflated.pt2' });
  const stored = await pf.layout({ path: repo(CORPUS, 'linear_tanh/linear_tanh.pt2') });
  assert.deepEqual(layout.models, stored.models);
  const byName = Object.fromEntries(layout.entries.map((e) => [e.name, e]));
  assert.equal(byName['archive/archive_format'].stored, false);
  assert.equal(byName['archive/data/weights/weight_0'].stored, true);
});

test('a corrupt deflated entry is ARCHIVE_INVALID naming the entry', async () => {
  const pf = await pteforge();
  const zip = deflatedArchive();
  // Corrupt the data of archive/archive_format (its local header comes first
  // after the weights; find it by name).
  const name = new TextEncoder().encode('archive/archive_format');
  let at = -1;
  for (let i = 0; i + 30 < zip.length && at < 0; i++) {
    if (zip[i] === 0x50 && zip[i + 1] === 0x4b && zip[i + 2] === 3 && zip[i + 3] === 4) {
      const n = zip[i + 26] | (zip[i + 27] << 8);
      if (n === name.length && name.every((b, k) => zip[i + 30 + k] === b)) at = i + 30 + n + (zip[i + 28] | (zip[i + 29] << 8));
    }
  }
  assert.ok(at > 0, 'found the entry');
  const bad = zip.slice();
  bad[at] ^= 0xff;
  bad[at + 1] ^= 0xff;
  await assert.rejects(pf.layout(bad, { name: 'bad.pt2' }), (e) => {
    assert.equal(e.name, 'PteforgeError');
    assert.equal(e.code, 'ARCHIVE_INVALID');
    assert.equal(e.where.entry, 'archive/archive_format');
    assert.match(e.message, /^cannot decompress entry "archive\/archive_format": /);
    return true;
  });
  assert.equal((await pf.layout(zip)).models.length, 1, 'still usable');
});

test('bad inputs: code, message and where, and the converter stays usable', async () => {
  const pf = await pteforge();
  const good = readFileSync(repo(CORPUS, 'linear_tanh/linear_tanh.pt2'));
  const cases = [
    [new Uint8Array(0), 'empty.pt2', 'INPUT_EMPTY', { entry: 'empty.pt2' },
      '"empty.pt2" is empty (0 bytes); expected a .pt2 archive or a program JSON'],
    [new TextEncoder().encode('not a model'), 'x.bin', 'ARCHIVE_INVALID', { entry: 'x.bin' },
      '"x.bin" is neither a zip archive (.pt2) nor a program JSON'],
    // A .pte given to convert is named as one (decode's mirror image).
    [readFileSync(repo('tests/data/reference/pte/add.pte')), 'add.pte', 'ARCHIVE_INVALID', { entry: 'add.pte' },
      '"add.pte" is a .pte (an ExecuTorch program), not a .pt2 archive or a program JSON; decode reads it'],
    // A zip without its end record (truncated) gets the CLI's words (test below), not zip.js's.
    [good.subarray(0, good.length >> 1), 'half.pt2', 'ARCHIVE_INVALID', { entry: 'half.pt2', byte_offset: undefined },
      'the zip archive is truncated: its end-of-central-directory record is missing'],
    // With an end record found, zip.js reads the rest: its message (and no byte_offset:
    // zip.js gives none) replaces the native reader's; code and entry are the CLI's.
    [good.subarray(0, good.length - 10), 'cut.pt2', 'ARCHIVE_INVALID', { entry: 'cut.pt2', byte_offset: undefined },
      '"cut.pt2" is not a readable zip archive: Central directory header not found (zip.js)'],
    [new TextEncoder().encode('PK\x03\x04 and then nothing of a zip'), 'junk.pt2', 'ARCHIVE_INVALID', { entry: 'junk.pt2', byte_offset: undefined },
      'the zip archive is truncated: its end-of-central-directory record is missing'],
    [Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(30), Buffer.from([0x50, 0x4b, 5, 6, 0, 0, 0, 0, 1, 0, 1, 0, 46, 0, 0, 0, 200, 0, 0, 0, 0, 0])]),
      'cd.pt2', 'ARCHIVE_INVALID', { entry: 'cd.pt2', byte_offset: undefined }, null],
    [zipSync({ '../evil': new Uint8Array(1) }, { level: 0 }), 'evil.pt2', 'ARCHIVE_ENTRY_NAME', { entry: '../evil' }, null],
    // A layout error names the input when no entry is at fault (as the CLI's do).
    [zipSync({ 'a/b.txt': new Uint8Array(1) }, { level: 0 }), 'nomodel.pt2', 'ARCHIVE_INVALID', { entry: 'nomodel.pt2' }, null],
  ];
  for (const [bytes, name, code, where, message] of cases) {
    await assert.rejects(pf.layout(bytes, { name }), (e) => {
      assert.equal(e.constructor.name, 'PteforgeError', String(e));
      assert.equal(e.code, code, `${name}: ${e}`);
      for (const [k, v] of Object.entries(where ?? {})) assert.equal(e.where[k], v, `${name}: ${e}`);
      if (message) assert.equal(e.message, message);
      assert.equal(typeof e.where, 'object');
      return true;
    });
    assert.equal((await pf.layout(good)).models[0].method, 'forward', `usable after ${name}`);
  }
});

test('JSON whose top level is an array reaches the JSON reader: a syntax error with its byte offset, or the schema error at the root', async () => {
  const pf = await pteforge();
  await assert.rejects(pf.inspect(new TextEncoder().encode(' [1,'), { name: 'a.json' }), (e) => {
    assert.equal(String(e), 'INPUT_NOT_JSON: JSON syntax error: Invalid value: the JSON text ends too early (method=forward entry=a.json byte_offset=4)');
    return true;
  });
  await assert.rejects(pf.inspect(new TextEncoder().encode('[]'), { name: 'b.json' }), (e) => {
    assert.equal(e.where.pointer, '');
    assert.equal(String(e), 'INPUT_SCHEMA: expected an ExportedProgram object, found an array (method=forward entry=b.json pointer="")');
    return true;
  });
});

test('a File is called by its own name in error locations, unless options.name or {data, name} names it', async () => {
  const pf = await pteforge();
  const entryOf = async (input, options) => {
    try {
      await pf.inspect(input, options);
    } catch (e) {
      return e.where.entry;
    }
    return null;
  };
  const file = new File(['{"a":'], 'prog.json');
  assert.equal(await entryOf(file), 'prog.json');
  assert.equal(await entryOf({ data: file }), 'prog.json');
  assert.equal(await entryOf(file, { name: 'given.json' }), 'given.json');
  assert.equal(await entryOf({ data: file, name: 'wrapped.json' }), 'wrapped.json');
  assert.equal(await entryOf(new Blob(['{"a":'])), 'input');
});

test('an input of only whitespace is INPUT_EMPTY, as in the CLI', async () => {
  const pf = await pteforge();
  await assert.rejects(pf.inspect(new TextEncoder().encode(' \n\t '), { name: 'w.json' }), (e) => {
    assert.equal(e.code, 'INPUT_EMPTY', String(e));
    assert.equal(e.message, '"w.json" holds only whitespace (4 bytes); expected a .pt2 archive or a program JSON');
    return true;
  });
  await assert.rejects(pf.inspect(new Uint8Array([0xef, 0xbb, 0xbf, 0x20]), { name: 'b.json' }), (e) => {
    assert.equal(e.message, '"b.json" holds only a UTF-8 byte order mark and whitespace (4 bytes); expected a .pt2 archive or a program JSON');
    return true;
  });
  // Whitespace past the first 512 bytes (the sniffed head) still leads to the program.
  const program = readFileSync(repo(CORPUS, 'linear_tanh/json/models/model.json'), 'utf8');
  const padded = new TextEncoder().encode(' '.repeat(70000) + program);
  assert.equal((await pf.inspect(padded, { name: 'p.json' })).methods.length, 1);
});

test('a truncated or foreign zip: the CLI\'s error, word for word', async () => {
  const pf = await pteforge();
  const good = readFileSync(repo(CORPUS, 'linear_tanh/linear_tanh.pt2'));
  const dir = mkdtempSync(join(tmpdir(), 'pteforge-zipend-'));
  try {
    const cases = {
      'half.pt2': good.subarray(0, good.length >> 1),
      'tiny.pt2': Buffer.from('PK\x03\x04\x14\x00'),
      'end-only.pt2': Buffer.from([0x50, 0x4b, 5, 6, ...new Array(16).fill(0), 9, 0]),
    };
    for (const [name, bytes] of Object.entries(cases)) {
      const path = join(dir, name);
      writeFileSync(path, bytes);
      const native = runCli(['inspect', path]);
      assert.equal(native.status, 1, `${name}: the CLI accepted it`);
      await assert.rejects(pf.inspect(bytes, { name: path }), (e) => {
        assert.equal(`${e}\n`, native.stderr.toString(), `${name}: ${e}`);
        return true;
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the *Sync twins cannot read a .pt2 (zip.js is asynchronous): UNSUPPORTED_FEATURE naming the input; JSON and folders still work', async () => {
  const pf = await pteforge();
  const { PteforgeError } = await loadPackage();
  const path = repo(CORPUS, 'linear_tanh/linear_tanh.pt2');
  const bytes = readFileSync(path);
  const json = readFileSync(repo(CORPUS, 'linear_tanh/json/models/model.json'), 'utf8');
  const cases = [
    ['layout', path, () => pf.layoutSync({ path })],
    ['inspect', 'm.pt2', () => pf.inspectSync(bytes, { name: 'm.pt2' })],
    ['listModules', 'input', () => pf.listModulesSync(bytes)],
    ['convert', 'given.pt2', () => pf.convertSync({ data: bytes, name: 'given.pt2' })],
    ['convertToFile', path, () => pf.convertToFileSync({ path }, '/nonexistent/never.pte')],
    ['convert', 'input', () => pf.convertSync(json, { swaps: { linear: bytes } })],
  ];
  for (const [method, entry, call] of cases) {
    assert.throws(call, (e) => {
      assert.ok(e instanceof PteforgeError, String(e));
      assert.equal(e.code, 'UNSUPPORTED_FEATURE');
      assert.deepEqual(e.where, { entry });
      assert.equal(e.message, `"${entry}" is a .pt2 (zip) archive, which is read with zip.js, an asynchronous library: use ${method}(), not ${method}Sync()`);
      return true;
    });
  }
  // What the twins do read: program JSON (text, bytes) and unpacked folders.
  assert.equal(pf.layoutSync(json).models[0].method, 'forward');
  assert.equal(pf.layoutSync(new TextEncoder().encode(json)).models[0].method, 'forward');
  const folder = { path: repo(CORPUS, 'linear_tanh/json') };
  assert.deepEqual(pf.inspectSync(folder, { text: true }), await pf.inspect(folder, { text: true }));
  assert.ok(Buffer.from(pf.convertSync(folder).pte).equals(Buffer.from((await pf.convert(folder)).pte)));
  // decodePteSync reads bytes as a .pte, whatever they are.
  assert.throws(() => pf.decodePteSync(bytes), (e) => e instanceof PteforgeError && e.code !== 'UNSUPPORTED_FEATURE');
});

test('a missing {path} is IO_ERROR naming the path, in the CLI\'s words; wrong input types are OPTION_INVALID', async () => {
  const pf = await pteforge();
  await assert.rejects(pf.layout({ path: '/nonexistent/model.pt2' }),
    (e) => e.code === 'IO_ERROR' && e.where.entry === '/nonexistent/model.pt2' &&
      e.message === 'cannot open "/nonexistent/model.pt2": no such file or folder');
  const cli = runCli(['inspect', '/nonexistent/model.pt2']);
  assert.equal(cli.stderr.split('\n')[0], 'IO_ERROR: cannot open "/nonexistent/model.pt2": no such file or folder (entry=/nonexistent/model.pt2)');
  await assert.rejects(pf.layout(42), (e) => e.code === 'OPTION_INVALID' && /number 42/.test(e.message));
  await assert.rejects(pf.convert({ path: 42 }), (e) => e.code === 'OPTION_INVALID' &&
    e.message === 'the input is a {path} whose path is not a string (a file path): got number 42');
  await assert.rejects(pf.layout({ files: { 'a.json': 7 } }), (e) => e.code === 'OPTION_INVALID' && /a\.json/.test(e.message));
  await assert.rejects(pf.decodePte(new Uint8Array(8), { format: 'yaml' }),
    (e) => e.code === 'OPTION_INVALID' && e.where.pointer === '/format');
});

test('{path} to a folder of hundreds of weight files converts with few file descriptors (as the CLI does)', { timeout: 120_000 }, async () => {
  const { execFileSync } = await import('node:child_process');
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const work = mkdtempSync(join(tmpdir(), 'pteforge-fds-'));
  try {
    const dir = join(work, 'synthetic');
    execFileSync('python3', [repo('scripts/gen_synthetic.py'), '--nodes', '1000', dir], { stdio: 'ignore' });
    const weights = readdirSync(join(dir, 'data', 'weights')).length;
    assert.ok(weights > 200, `${weights} weight files`);
    const cli = join(work, 'cli.pte');
    execFileSync(CLI, ['convert', dir, '-o', cli], { stdio: 'ignore' });
    // A child Node with a descriptor limit below the number of files.
    const script = `
      const { createPteforge } = await import(${JSON.stringify(join(PACKAGE_DIR, 'dist', 'index.node.mjs'))});
      const pf = await createPteforge();
      const r = await pf.convertToFile({ path: ${JSON.stringify(dir)} }, ${JSON.stringify(join(work, 'wasm.pte'))});
      process.stdout.write(String(r.size));
    `;
    const out = execFileSync('bash', ['-c', `ulimit -n 128 && exec "${process.execPath}" --input-type=module -e "$0"`, script], { encoding: 'utf8' });
    assert.equal(Number(out), statSync(cli).size);
    assert.ok(readFileSync(join(work, 'wasm.pte')).equals(readFileSync(cli)), 'the .pte differs from the CLI\'s');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test('an input name that is not a string is OPTION_INVALID, in every method, and the converter stays usable', async () => {
  const pf = await pteforge();
  const pt2 = repo('tests/fixtures/corpus/linear_tanh/linear_tanh.pt2');
  const json = readFileSync(repo('tests/fixtures/corpus/linear_tanh/json/models/model.json'), 'utf8');
  const expectInvalid = async (promise, message, pointer) => {
    await assert.rejects(promise, (e) => {
      assert.equal(e.name, 'PteforgeError', String(e));
      assert.equal(e.code, 'OPTION_INVALID');
      assert.equal(e.message, message);
      assert.deepEqual(e.where, pointer ? { pointer } : {});  // input.name is no option: no pointer
      return true;
    });
  };
  await expectInvalid(pf.convert({ path: pt2 }, { name: 42 }), 'options.name must be a string; got number 42', '/name');
  await expectInvalid(pf.inspect(json, { name: ['a'] }), 'options.name must be a string; got an array', '/name');
  await expectInvalid(pf.layout({ path: pt2 }, { name: {} }), 'options.name must be a string; got an object (Object)', '/name');
  await expectInvalid(pf.convert({ data: readFileSync(pt2), name: 7 }), 'input.name must be a string; got number 7', '');
  await expectInvalid(pf.inspect({ files: { 'model.json': json }, name: true }), 'input.name must be a string; got boolean true', '');
  const pte = (await pf.convert({ path: pt2 })).pte;
  await expectInvalid(pf.decodePte(pte, { name: 1n }), 'options.name must be a string; got bigint 1', '/name');
  // null means "no name", as before.
  assert.equal((await pf.layout({ path: pt2 }, { name: null })).models.length, 1);
  assert.equal((await pf.decodePte(pte, { name: 'x.pte' })).execution_plan.length, 1);
});

test('a path with a NUL byte is IO_ERROR saying so, for inputs and the output', async () => {
  const pf = await pteforge();
  const pt2 = repo('tests/fixtures/corpus/linear_tanh/linear_tanh.pt2');
  const cases = [
    [() => pf.convert({ path: 'in\0.pt2' }), 'cannot open "in\0.pt2": the path contains a NUL byte', 'in\0.pt2'],
    [() => pf.decodePte({ path: 'in\0.pte' }), 'cannot open "in\0.pte": the path contains a NUL byte', 'in\0.pte'],
    [() => pf.convertToFile({ path: pt2 }, 'out\0.pte'), 'cannot write "out\0.pte": the path contains a NUL byte', 'out\0.pte'],
  ];
  for (const [call, message, entry] of cases) {
    await assert.rejects(call(), (e) => {
      assert.equal(e.name, 'PteforgeError', String(e));
      assert.equal(e.code, 'IO_ERROR');
      assert.equal(e.message, message);
      assert.equal(e.where.entry, entry);
      return true;
    });
  }
  assert.equal((await pf.layout({ path: pt2 })).models.length, 1);
});

test('a folder input nesting deeper than the CLI allows: the CLI\'s error', async () => {
  const pf = await pteforge();
  const { mkdtempSync, mkdirSync, writeFileSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const root = mkdtempSync(join(tmpdir(), 'pteforge-deep-'));
  try {
    let d = root;
    for (let i = 0; i < 66; ++i) d = join(d, 'd');
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, 'f'), 'x');
    const native = runCli(['inspect', root]);
    assert.equal(native.status, 1);
    assert.match(native.stderr, /nests deeper than 64 folders/);
    await assert.rejects(pf.inspect({ path: root }), (e) => {
      assert.equal(e.code, 'IO_ERROR');
      assert.equal(`${e}\n`, native.stderr);
      return true;
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
