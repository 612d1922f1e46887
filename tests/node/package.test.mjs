// The package as users get it: its exports map, its typings (tsc --strict
// on usage files, and the runtime objects and error codes against the d.ts),
// the browser entry (run in Node with wasmBinary, as sql.js tests its browser
// build), and `npm pack` installed into a clean folder and run there.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { unzipSync, zipSync } from 'fflate';

import { PACKAGE_DIR, loadPackage, repo, runCli, scratchProject } from './helpers.mjs';

const pkg = JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8'));
const TSC = repo('node_modules', '.bin', 'tsc');

test('package.json: name, ESM, exports with types first, files whitelist', () => {
  assert.equal(pkg.name, 'pteforge');
  assert.equal(pkg.type, 'module');
  assert.equal(pkg.engines.node, '>=20');
  const root = pkg.exports['.'];
  assert.deepEqual(Object.keys(root), ['node', 'types', 'default']);
  assert.deepEqual(Object.keys(root.node), ['types', 'default']);
  assert.deepEqual(Object.keys(pkg.exports['./browser']), ['types', 'default']);
  assert.equal(pkg.exports['./pteforge.wasm'], './dist/pteforge.wasm');
  assert.deepEqual(pkg.files, ['dist/', 'types/', 'README.md', 'LICENSE']);
  assert.deepEqual(Object.keys(pkg.dependencies), ['@zip.js/zip.js']);
});

test('npm pack ships exactly the package files', () => {
  const [report] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: PACKAGE_DIR }));
  const files = report.files.map((f) => f.path).sort();
  assert.deepEqual(files, [
    'LICENSE', 'README.md',
    'dist/api.mjs', 'dist/errors.mjs', 'dist/index.browser.mjs', 'dist/index.node.mjs',
    'dist/instance.mjs', 'dist/json.mjs',
    'dist/lossless-json/LICENSE.md', 'dist/lossless-json/LosslessNumber.js', 'dist/lossless-json/config.js',
    'dist/lossless-json/index.js', 'dist/lossless-json/numberParsers.js', 'dist/lossless-json/parse.js',
    'dist/lossless-json/revive.js', 'dist/lossless-json/reviveDate.js', 'dist/lossless-json/stringify.js',
    'dist/lossless-json/types.js', 'dist/lossless-json/utils.js',
    'dist/pteforge.mjs', 'dist/pteforge.wasm', 'dist/sources.mjs', 'dist/worker.mjs',
    'dist/zip.mjs', 'dist/zipjs.LICENSE', 'dist/zipjs.mjs',
    'package.json', 'types/index.d.ts', 'types/node.d.ts',
  ]);
});

test('import by name in Node gives the Node entry', async () => {
  const m = await loadPackage();
  assert.deepEqual(Object.keys(m).sort(), ['PteforgeError', 'createPteforge', 'getPteforge']);
  const pf = await m.createPteforge();
  assert.equal(typeof pf.convertToFile, 'function');
  assert.equal(pf.info.name, 'pteforge');
  assert.equal(pf.info.version, pkg.version);
  assert.equal(pf.info.emscripten, '3.1.6');
  assert.equal(await m.getPteforge(), await m.getPteforge(), 'getPteforge memoizes');
});

/** The string literals of the ErrorCode union in types/index.d.ts. */
function declaredErrorCodes() {
  const dts = readFileSync(join(PACKAGE_DIR, 'types', 'index.d.ts'), 'utf8');
  const union = dts.slice(dts.indexOf('export type ErrorCode ='), dts.indexOf(';', dts.indexOf('export type ErrorCode =')));
  return [...union.matchAll(/'([A-Z_]+)'/g)].map((m) => m[1]);
}

test('the ErrorCode type lists exactly the core\'s codes, in table order', async () => {
  const pf = await (await loadPackage()).createPteforge();
  assert.deepEqual(declaredErrorCodes(), pf.info.errorCodes.map((c) => c.code));
  const def = readFileSync(repo('core/support/error_codes.def'), 'utf8');
  assert.deepEqual(declaredErrorCodes(), [...def.matchAll(/^X\(([A-Z_]+),/gm)].map((m) => m[1]));
});

/** Runs tsc --noEmit --strict on `files` inside the scratch project; returns its output ('' when clean). */
function tsc(name, files, compilerOptions) {
  const dir = mkdtempSync(join(scratchProject(), `tsc-${name}-`));
  try {
    for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, target: 'es2022', lib: ['es2022', 'dom'], types: [], ...compilerOptions },
      files: Object.keys(files),
    }));
    try {
      execFileSync(TSC, ['-p', dir], { encoding: 'utf8' });
      return '';
    } catch (e) {
      return `${e.stdout}${e.stderr}`;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('typings compile with tsc --strict (Node and browser usage)', () => {
  const nodeUsage = readFileSync(repo('tests/node/types/node-usage.ts'), 'utf8');
  const browserUsage = readFileSync(repo('tests/node/types/browser-usage.ts'), 'utf8');
  assert.equal(tsc('node', { 'usage.ts': nodeUsage }, { module: 'node16', moduleResolution: 'node16' }), '');
  assert.equal(tsc('browser', { 'usage.ts': browserUsage }, { module: 'esnext', moduleResolution: 'bundler' }), '');
});

test('typings declare exactly the members the runtime objects have', async () => {
  const m = await loadPackage();
  const pf = await m.createPteforge();
  const browser = await (await import(pathToFileURL(join(PACKAGE_DIR, 'dist', 'index.browser.mjs')).href))
    .createPteforge({ worker: false, wasmBinary: readFileSync(join(PACKAGE_DIR, 'dist', 'pteforge.wasm')) });
  const union = (keys) => keys.map((k) => `'${k}'`).join(' | ') || 'never';
  // Both directions: every runtime key is declared, every declared key exists.
  const check = (type, keys) => `
    type Runtime = ${union(keys)};
    const declaredButMissing: [Exclude<keyof ${type}, Runtime>] extends [never] ? true : false = true;
    const presentButUndeclared: [Exclude<Runtime, keyof ${type}>] extends [never] ? true : false = true;
    void [declaredButMissing, presentButUndeclared];`;
  const nodeKeys = Object.keys(pf);
  const errorKeys = Object.keys(new m.PteforgeError('INTERNAL', 'x'));
  assert.equal(tsc('keys-node', {
    'keys.ts': `import type { NodePteforge, PteforgeError } from 'pteforge';
      ${check('NodePteforge', nodeKeys)}
      namespace E { ${check('Pick<PteforgeError, "code" | "where" | "notes" | "name" | "message" | "stack" | "cause">', errorKeys.concat(['message', 'stack', 'cause']))} }`,
  }, { module: 'node16', moduleResolution: 'node16' }), '');
  assert.equal(tsc('keys-browser', {
    'keys.ts': `import type { PteforgeSync } from 'pteforge';\n${check('PteforgeSync<Blob>', Object.keys(browser))}`,
  }, { module: 'esnext', moduleResolution: 'bundler' }), '');
});

test('the browser entry runs in Node (direct mode): Blob output, zip.js loaded on first need', () => {
  // A fresh process: the browser entry loads zip.js when an archive comes.
  const script = `
    import assert from 'node:assert/strict';
    import { readFileSync } from 'node:fs';
    import { unzipSync, zipSync } from 'fflate';
    const { createPteforge, PteforgeError } = await import(${JSON.stringify(pathToFileURL(join(PACKAGE_DIR, 'dist', 'index.browser.mjs')).href)});
    // Node has no global Worker, so the default is direct mode; the .wasm is
    // passed as bytes (Emscripten 3.1.6 cannot fetch a path in Node, E2).
    const pf = await createPteforge({ wasmBinary: readFileSync(${JSON.stringify(join(PACKAGE_DIR, 'dist', 'pteforge.wasm'))}) });
    assert.equal(typeof pf.decodePteSync, 'function');
    const add = readFileSync('tests/data/reference/pte/add.pte');
    const decoded = await pf.decodePte(new Blob([add]), { text: true });
    // A deflated record: the sync call cannot read an archive, the async one
    // reads it with zip.js (which inflates the record), as a Blob too.
    const files = {};
    for (const [name, data] of Object.entries(unzipSync(readFileSync('tests/fixtures/corpus/linear_tanh/linear_tanh.pt2')))) {
      files[name] = [data, { level: name.endsWith('archive_format') ? 6 : 0 }];
    }
    const zip = zipSync(files);
    assert.throws(() => pf.layoutSync(zip), (e) => e instanceof PteforgeError && e.code === 'UNSUPPORTED_FEATURE' && /zip\.js/.test(e.message));
    assert.equal((await pf.layout(zip)).models[0].method, 'forward');
    const { pte } = await pf.convert(new Blob([zip]));
    assert.ok(pte instanceof Blob && pte.size > 0);
    process.stdout.write(decoded);
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: repo(), encoding: 'utf8' });
  assert.equal(out, runCli(['decode', 'tests/data/reference/pte/add.pte', '--json']).stdout.toString());
});

test('npm pack → install into a clean folder → import and run', { timeout: 180_000 }, () => {
  const work = mkdtempSync(join(tmpdir(), 'pteforge-pack-'));
  try {
    const tarball = execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', work], { cwd: PACKAGE_DIR, encoding: 'utf8' }).trim().split('\n').pop();
    // The dependency comes from the workspace's node_modules (packed too), so
    // the install works offline.
    const zipjs = execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', work, repo('node_modules', '@zip.js', 'zip.js')], { encoding: 'utf8' }).trim().split('\n').pop();
    const app = join(work, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), '{ "name": "app", "private": true, "type": "module" }\n');
    execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error',
      join(work, zipjs), join(work, tarball)], { cwd: app, encoding: 'utf8' });
    assert.deepEqual(readdirSync(join(app, 'node_modules')).filter((f) => !f.startsWith('.')).sort(), ['@zip.js', 'pteforge']);
    copyFileSync(repo('tests/data/reference/pte/add.pte'), join(app, 'add.pte'));
    copyFileSync(repo('tests/fixtures/corpus/two_methods/two_methods.pt2'), join(app, 'two_methods.pt2'));
    writeFileSync(join(app, 'main.js'), `
      import { createPteforge, PteforgeError } from 'pteforge';
      const pf = await createPteforge();
      const decoded = await pf.decodePte({ path: 'add.pte' }, { text: true });
      const layout = await pf.layout({ path: 'two_methods.pt2' });
      let code = null;
      try { await pf.layout(new Uint8Array(3), { name: 'x' }); } catch (e) { code = e instanceof PteforgeError && e.code; }
      const { size } = await pf.convertToFile({ path: 'two_methods.pt2' }, 'two_methods.pte');
      process.stdout.write(JSON.stringify({ decoded, methods: layout.models.map((m) => m.method), code, size }));
    `);
    const out = JSON.parse(execFileSync(process.execPath, ['main.js'], { cwd: app, encoding: 'utf8' }));
    assert.equal(out.decoded, runCli(['decode', 'tests/data/reference/pte/add.pte', '--json']).stdout.toString());
    assert.deepEqual(out.methods, ['forward', 'reset']);
    assert.equal(out.code, 'ARCHIVE_INVALID');
    // The installed copy converts to the native CLI's bytes.
    const native = join(work, 'native.pte');
    assert.equal(runCli(['convert', 'tests/fixtures/corpus/two_methods/two_methods.pt2', '-o', native]).status, 0);
    assert.equal(out.size, readFileSync(native).length);
    assert.ok(readFileSync(join(app, 'two_methods.pte')).equals(readFileSync(native)), 'installed package: .pte differs from the CLI');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
