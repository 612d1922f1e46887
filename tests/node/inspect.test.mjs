// inspect: the WASM module prints exactly what `pteforge inspect [--json]`
// prints for every program JSON of the corpus and of tests/fixtures/programs;
// a .pt2 archive, its unpacked folder and its program JSON summarise the same;
// import errors carry the CLI's code, message and location.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { test } from 'node:test';

import { pteforge, repo, runCli } from './helpers.mjs';

/** Every program JSON: corpus json/models/*.json and fixtures/programs/<name>/models/*.json. */
function programJsons() {
  const out = [];
  for (const [base, sub] of [['tests/fixtures/corpus', 'json/models'], ['tests/fixtures/programs', 'models']]) {
    for (const c of readdirSync(repo(base)).sort()) {
      const dir = repo(base, c, sub);
      if (!existsSync(dir)) continue;
      for (const f of readdirSync(dir).sort()) if (f.endsWith('.json')) out.push(`${base}/${c}/${sub}/${f}`);
    }
  }
  return out;
}

const JSONS = programJsons();

test('there are program JSONs to compare', () => {
  assert.ok(JSONS.length >= 25, `${JSONS.length} found`);
});

for (const path of JSONS) {
  test(`inspect ${path}: byte-identical to the native CLI (text and --json)`, async () => {
    const pf = await pteforge();
    const text = runCli(['inspect', path]);
    const json = runCli(['inspect', path, '--json']);
    assert.equal(text.status, 0, text.stderr);
    assert.equal(await pf.inspect({ path }, { text: true }), text.stdout.toString());
    assert.deepEqual(await pf.inspect({ path }), JSON.parse(json.stdout.toString()));
  });
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

for (const c of ['linear_tanh', 'two_methods', 'modules_preserved']) {
  test(`inspect ${c}: the .pt2, its unpacked folder and its program JSONs agree`, async () => {
    const pf = await pteforge();
    const dir = repo('tests/fixtures/corpus', c);
    const pt2 = readdirSync(dir).find((f) => f.endsWith('.pt2'));
    const fromArchive = await pf.inspect({ path: join(dir, pt2) });
    assert.deepEqual(await pf.inspect({ files: folderFiles(join(dir, 'json')) }), fromArchive);
    // Per method: the archive's summary of that method is the lone JSON's.
    for (const f of readdirSync(join(dir, 'json', 'models'))) {
      const method = f.replace(/\.json$/, '') === 'model' ? 'forward' : f.replace(/\.json$/, '');
      const one = await pf.inspect({ path: join(dir, 'json', 'models', f) });
      const fromArchiveOne = await pf.inspect({ path: join(dir, pt2) }, { method });
      assert.deepEqual(fromArchiveOne.methods, one.methods);
      // The same JSON as bytes is a lone program: method "forward", no weights read.
      const lone = await pf.inspect(readFileSync(join(dir, 'json', 'models', f)), { name: f });
      assert.deepEqual(lone.methods.map((m) => m.name), ['forward']);
    }
  });
}

test('inspect errors: the CLI\'s line, and the converter stays usable', async () => {
  const pf = await pteforge();
  const good = 'tests/fixtures/corpus/linear_tanh/json/models/model.json';
  const goodText = await pf.inspect({ path: good }, { text: true });
  const model = JSON.parse(readFileSync(repo(good), 'utf8'));
  const cases = {
    'truncated.json': readFileSync(repo(good), 'utf8').slice(0, 500),
    'schema.json': JSON.stringify({ ...model, graph_module: { ...model.graph_module, graph: { ...model.graph_module.graph, nodes: 7 } } }),
    'version.json': JSON.stringify({ ...model, schema_version: { major: 99, minor: 0 } }),
  };
  const dir = mkdtempSync(join(tmpdir(), 'pteforge-inspect-'));
  try {
    for (const [name, text] of Object.entries(cases)) {
      const path = join(dir, name);
      writeFileSync(path, text);
      const native = runCli(['inspect', path]);
      assert.equal(native.status, 1, `${name}: the CLI accepted it`);
      await assert.rejects(pf.inspect(text, { name: path }), (e) => {
        assert.equal(e.name, 'PteforgeError');
        assert.equal(`${e}\n`, native.stderr, name);
        assert.equal(e.where.method, 'forward');
        return true;
      });
      assert.equal(await pf.inspect({ path: good }, { text: true }), goodText, `usable after ${name}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('raw control characters in strings: the CLI\'s error at every position (the WASM build scans strings with SIMD)', async () => {
  const pf = await pteforge();
  const good = 'tests/fixtures/corpus/linear_tanh/json/models/model.json';
  const text = readFileSync(repo(good), 'utf8');
  // A long string (the first stack trace), so 16-byte blocks of it are
  // scanned at once; the byte goes at several offsets of it and of a short one.
  const long = text.indexOf('"stack_trace": "') + '"stack_trace": "'.length;
  const short = text.indexOf('"x"') + 1;
  assert.ok(long > 100 && short > 0);
  const dir = mkdtempSync(join(tmpdir(), 'pteforge-control-'));
  try {
    for (const byte of [0x19, 0x1a, 0x1c, 0x1f, 0x01]) {
      for (const at of [short, long, long + 17, long + 40, long + 63]) {
        const bad = text.slice(0, at) + String.fromCharCode(byte) + text.slice(at);
        const path = join(dir, `c${byte}-${at}.json`);
        writeFileSync(path, bad);
        const native = runCli(['inspect', path]);
        assert.equal(native.status, 1, `0x${byte.toString(16)} at ${at}: the CLI accepted it`);
        assert.match(native.stderr, new RegExp(`unescaped control character 0x${byte.toString(16).toUpperCase().padStart(2, '0')} in a string`));
        await assert.rejects(pf.inspect(bad, { name: path }), (e) => {
          assert.equal(`${e}\n`, native.stderr, `0x${byte.toString(16)} at ${at}`);
          return true;
        });
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('deeply nested JSON: 1024 levels parse in WASM as natively, a 1025th is refused at its bracket', async () => {
  const pf = await pteforge();
  const text = readFileSync(repo('tests/fixtures/corpus/linear_tanh/json/models/model.json'), 'utf8');
  // The first size of the first tensor_values entry becomes a list of nested
  // arrays: the root object is level 1, that list level 8, so `extra` more
  // levels make 8 + extra in all.
  const at = text.indexOf('{"as_int":');
  assert.ok(at > 0);
  const dir = mkdtempSync(join(tmpdir(), 'pteforge-deep-'));
  try {
    for (const extra of [1016, 1017, 100000]) {
      const bad = `${text.slice(0, at)}{"as_ints": [${'['.repeat(extra)}${']'.repeat(extra)}]}${text.slice(text.indexOf('}', at) + 1)}`;
      const path = join(dir, `deep-${extra}.json`);
      writeFileSync(path, bad);
      const native = runCli(['inspect', path]);
      assert.equal(native.status, 1, `${extra}: the CLI accepted it`);
      if (extra === 1016) {
        assert.doesNotMatch(native.stderr, /nested deeper/);
      } else {
        assert.match(native.stderr, /JSON nested deeper than 1024 levels/);
      }
      await assert.rejects(pf.inspect(bad, { name: path }), (e) => {
        assert.equal(`${e}\n`, native.stderr, `${extra} levels`);
        if (extra !== 1016) assert.equal(e.where.byte_offset, at + '{"as_ints": ['.length + 1016);
        return true;
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('inspect options are checked with JSON pointers', async () => {
  const pf = await pteforge();
  const good = readFileSync(repo('tests/fixtures/corpus/linear_tanh/json/models/model.json'));
  await assert.rejects(pf.inspect(good, { method: 3 }), (e) => e.code === 'OPTION_INVALID' && e.where.pointer === '/method');
  await assert.rejects(pf.inspect(good, { colour: 'red' }), (e) => e.code === 'OPTION_INVALID' && e.where.pointer === '/colour');
  await assert.rejects(pf.inspect(good, { method: 'reset' }), (e) => e.code === 'OPTION_INVALID' && e.where.method === 'reset' &&
    e.message === "the input has no method 'reset'; its methods: forward");
});
