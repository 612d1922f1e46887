// The package in a real browser (Debian's Chromium through playwright-core,
// engineering-notes D11), served with a strict CSP (script-src 'self'
// 'wasm-unsafe-eval': no eval, no inline scripts) and application/wasm:
//  - main thread: createPteforge() forwards to the internal module worker;
//    a File converts to a Blob byte-identical to the native CLI's .pte,
//    progress arrives, decodePte/inspect print what the CLI prints, errors
//    arrive as PteforgeError (code, where) and the converter keeps working;
//  - out of WebAssembly memory (a Chromium whose V8 gives an instance at most
//    64 MiB): OUT_OF_MEMORY arrives from the worker, which replaced its instance;
//  - a user's own module worker: the package runs there directly
//    (FileReaderSync range reads, convert → Blob; convertSync refuses a .pt2,
//    which zip.js reads asynchronously);
//  - a .pt2 with deflated entries: zip.js is found without a bundler (the
//    package's dist/zipjs.mjs) and inflates them;
//  - nothing is requested from anywhere but the page's origin.
// Skipped when /usr/bin/chromium (scripts/setup.sh --browser) is missing, and
// for the wasm-debug flavour (Node only).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, resolve, sep } from 'node:path';
import { after, before, test } from 'node:test';

import { PACKAGE_DIR, PRESET, repo, runCli } from './helpers.mjs';

const CHROMIUM = process.env.PTEFORGE_CHROMIUM ?? '/usr/bin/chromium';
// The debug flavour's glue imports node: modules (wasm/node_esm_shim.mjs): Node only.
const SKIP = PRESET === 'wasm-debug' ? 'the wasm-debug flavour runs in Node only'
  : existsSync(CHROMIUM) ? false : `${CHROMIUM} missing (scripts/setup.sh --browser)`;
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'";
const TYPES = { '.html': 'text/html', '.mjs': 'text/javascript', '.js': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };

const PAGE = `<!doctype html><meta charset="utf-8"><title>pteforge package test</title>
<script type="module" src="/page.mjs"></script>`;

// Runs in the page: everything the tests ask for, as one function per case.
const PAGE_SCRIPT = `
import { createPteforge, PteforgeError } from '/pkg/dist/index.browser.mjs';
const hex = async (blob) => [...new Uint8Array(await crypto.subtle.digest('SHA-256', await blob.arrayBuffer()))]
  .map((b) => b.toString(16).padStart(2, '0')).join('');
const file = async (url, name) => new File([await (await fetch(url)).blob()], name);
window.cases = {
  async mainThread(url, name) {
    const pf = await createPteforge();
    const f = await file(url, name);
    const stages = [];
    const { pte, metadata } = await pf.convert(f, { onProgress: (p) => stages.push(p.stage) });
    const out = { isBlob: pte instanceof Blob, size: pte.size, sha: await hex(pte), methods: Object.keys(metadata).length > 0, stages };
    out.decoded = await pf.decodePte(pte, { text: true });
    out.inspect = await pf.inspect(f, { text: true });
    out.passes = (await pf.listPasses()).length;
    try {
      await pf.convert(new File([new Uint8Array([1, 2, 3])], 'bad.pt2'));
    } catch (e) {
      out.error = { isPteforgeError: e instanceof PteforgeError, code: e.code, where: e.where, text: String(e) };
    }
    const trap = new Proxy({}, { ownKeys() { throw new TypeError('no keys'); } });
    const pending = pf.convert(f, trap);  // a promise, even when the options cannot be read
    out.trapIsPromise = pending instanceof Promise;
    try { await pending; } catch (e) { out.trap = String(e); }
    out.again = await hex((await pf.convert(f)).pte);
    // close() lets a call under way finish, then stops the worker; a later
    // call starts a new one (the converter works after close(), as in Node).
    const order = [];
    const inFlight = pf.convert(f).then((r) => { order.push('convert'); return r; });
    await Promise.all([pf.close().then(() => order.push('close 1')), pf.close().then(() => order.push('close 2'))]);
    out.closeOrder = order;
    out.finishedAcrossClose = await hex((await inFlight).pte);
    out.afterClose = await hex((await pf.convert(f)).pte);
    await pf.close();
    await pf.close(); // twice is fine
    return out;
  },
  async deflated(url) {
    const pf = await createPteforge();
    try { return { ok: (await pf.layout(await file(url, 'deflated.pt2'))).models.length }; }
    catch (e) { return { code: e.code, message: e.message, notes: e.notes }; }
    finally { await pf.close(); }
  },
  async outOfMemory(url) {
    const pf = await createPteforge();
    const pte = new Uint8Array(62 * 2 ** 20);
    pte.set([0, 0, 0, 0, 0x45, 0x54, 0x31, 0x32]);  // root offset 0, identifier "ET12"
    const out = {};
    try {
      await pf.decodePte(pte);
    } catch (e) {
      out.error = { isPteforgeError: e instanceof PteforgeError, code: e.code, message: e.message, where: e.where, notes: e.notes };
    }
    out.next = await pf.decodePte(new Uint8Array(await (await fetch(url)).arrayBuffer()), { format: 'summary' });
    out.memory = await pf.wasmMemoryBytes();
    await pf.close();
    return out;
  },
  userWorker(url, name, json) {
    return new Promise((resolve, reject) => {
      const w = new Worker('/user-worker.mjs', { type: 'module' });
      w.onmessage = (e) => { resolve(e.data); w.terminate(); };
      w.onerror = (e) => reject(new Error(e.message));
      w.postMessage({ url, name, json });
    });
  },
};
window.ready = true;
`;

const USER_WORKER = `
import { createPteforge } from '/pkg/dist/index.browser.mjs';
self.onmessage = async ({ data }) => {
  const pf = await createPteforge();
  const f = new File([await (await fetch(data.url)).blob()], data.name);
  let syncError = null;
  try { pf.convertSync(f); } catch (e) { syncError = e.code; }
  const { pte } = await pf.convert(f);
  const sha = [...new Uint8Array(await crypto.subtle.digest('SHA-256', await pte.arrayBuffer()))]
    .map((b) => b.toString(16).padStart(2, '0')).join('');
  const jsonMethods = pf.layoutSync(new File([data.json], 'model.json')).models.map((m) => m.method);
  self.postMessage({ sync: typeof pf.convertSync, syncError, isBlob: pte instanceof Blob, sha, size: pte.size, jsonMethods });
};
`;

let server;
let origin;
let browser;
let page;
const requests = [];
const problems = [];
let work;

function sendFile(res, file) {
  const st = existsSync(file) ? statSync(file) : null;
  if (!st?.isFile()) {
    res.writeHead(404, { 'Content-Security-Policy': CSP });
    res.end();
    return;
  }
  res.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream', 'Content-Length': st.size, 'Content-Security-Policy': CSP });
  createReadStream(file).pipe(res);
}

/** A file under `dir` for URL path `rel`, or null when it would leave `dir`. */
function under(dir, rel) {
  const file = resolve(dir, `.${sep}${decodeURIComponent(rel)}`);
  return file.startsWith(dir + sep) ? file : null;
}

/** A headless Chromium; `args` are added to the usual flags. */
async function launch(args = []) {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', ...args],
  });
}

before(async () => {
  if (SKIP) return;
  work = mkdtempSync(join(tmpdir(), 'pteforge-browser-'));
  server = createServer((req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    const text = { '/': PAGE, '/page.mjs': PAGE_SCRIPT, '/user-worker.mjs': USER_WORKER }[path];
    if (text !== undefined) {
      res.writeHead(200, { 'Content-Type': path === '/' ? 'text/html' : 'text/javascript', 'Content-Security-Policy': CSP });
      res.end(text);
    } else if (path.startsWith('/pkg/')) {
      sendFile(res, under(PACKAGE_DIR, path.slice(5)) ?? '');
    } else if (path.startsWith('/repo/')) {
      sendFile(res, under(repo('tests'), path.slice(6)) ?? '');
    } else if (path.startsWith('/work/')) {
      sendFile(res, under(work, path.slice(6)) ?? '');
    } else if (path === '/favicon.ico') {
      res.writeHead(204, { 'Content-Security-Policy': CSP }); // the browser asks on its own
      res.end();
    } else {
      problems.push(`404 ${path}`);
      res.writeHead(404, { 'Content-Security-Policy': CSP });
      res.end();
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${server.address().port}`;
  browser = await launch();
  const context = await browser.newContext();
  context.on('request', (r) => requests.push(r.url()));
  page = await context.newPage();
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  await page.goto(`${origin}/`);
  await page.waitForFunction(() => window.ready === true);
});

after(async () => {
  await browser?.close();
  server?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

function sha256(bytes) {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The native CLI's .pte for `input` (a repo path). */
function nativePte(input) {
  const out = join(work, 'native.pte');
  const r = runCli(['convert', input, '-o', out]);
  assert.equal(r.status, 0, r.stderr);
  return readFileSync(out);
}

const FIXTURE = 'tests/fixtures/corpus/two_methods/two_methods.pt2';

test('main thread: convert a File through the internal worker, byte-identical to the CLI', { skip: SKIP, timeout: 120_000 }, async () => {
  const expected = nativePte(FIXTURE);
  const out = await page.evaluate(([u, n]) => window.cases.mainThread(u, n), [`/repo/${FIXTURE.slice(6)}`, 'two_methods.pt2']);
  assert.equal(out.isBlob, true);
  assert.equal(out.size, expected.length);
  assert.equal(out.sha, sha256(expected));
  assert.equal(out.again, out.sha, 'converting again after an error');
  assert.ok(out.methods);
  // Each stage reports its start and every unit done (methods for import/passes), in this order.
  assert.deepEqual(out.stages.filter((s, i) => s !== out.stages[i - 1]), ['read', 'import', 'passes', 'emit', 'serialize', 'assemble']);
  assert.ok(out.stages.filter((s) => s === 'import').length >= 2);
  const decodePath = join(work, 'native.pte');
  assert.equal(out.decoded, runCli(['decode', decodePath, '--json']).stdout.toString());
  assert.equal(out.inspect, runCli(['inspect', FIXTURE]).stdout.toString());
  assert.ok(out.passes > 10);
  assert.deepEqual(out.error, {
    isPteforgeError: true, code: 'ARCHIVE_INVALID', where: { entry: 'bad.pt2' },
    text: 'ARCHIVE_INVALID: "bad.pt2" is neither a zip archive (.pt2) nor a program JSON (entry=bad.pt2)',
  });
  assert.equal(out.trapIsPromise, true);
  assert.equal(out.trap, 'OPTION_INVALID: options could not be read: TypeError: no keys');
  assert.equal(out.finishedAcrossClose, out.again, 'a call under way when close() came finishes');
  assert.deepEqual(out.closeOrder, ['convert', 'close 1', 'close 2'], 'both close() calls wait for the call under way');
  assert.equal(out.afterClose, out.again, 'a call after close() starts a new worker');
});

test('main thread: running out of WebAssembly memory in the worker is OUT_OF_MEMORY, and the converter works after it', { skip: SKIP, timeout: 120_000 }, async () => {
  // A browser whose engine gives a WebAssembly instance at most 64 MiB (V8's
  // --wasm-max-mem-pages, as a device short of memory would), and a .pte whose
  // 62 MiB program decodePte must copy into the worker's instance, which
  // holds its initial 16 MiB (tests/node/out_of_memory.test.mjs does the same in Node).
  const small = await launch(['--js-flags=--wasm-max-mem-pages=1024']);
  try {
    const p = await small.newPage();
    await p.goto(`${origin}/`);
    await p.waitForFunction(() => window.ready === true);
    const out = await p.evaluate((u) => window.cases.outOfMemory(u), '/repo/data/reference/pte/add.pte');
    assert.deepEqual(out.error, {
      isPteforgeError: true, code: 'OUT_OF_MEMORY', where: {}, notes: [],
      message: 'the converter ran out of WebAssembly memory: it held 16 MiB and could not get 62 MiB more (WebAssembly memory ' +
        'is limited to 4095.9 MiB here, less where the engine gives less, and to under 2 GiB in one block); use a smaller ' +
        'model, or the native pteforge CLI, which has no such limit',
    });
    // The worker replaced its instance: the same converter answers, from a fresh 16 MiB.
    assert.equal(out.next, runCli(['decode', 'tests/data/reference/pte/add.pte']).stdout.toString());
    assert.equal(out.memory, 16 * 2 ** 20);
  } finally {
    await small.close();
  }
});

test('a user\'s module worker runs the core directly (FileReaderSync; *Sync for JSON, convert for a .pt2)', { skip: SKIP, timeout: 120_000 }, async () => {
  const input = 'tests/fixtures/corpus/linear_tanh/linear_tanh.pt2';
  const expected = nativePte(input);
  const json = readFileSync(repo('tests/fixtures/corpus/linear_tanh/json/models/model.json'), 'utf8');
  const out = await page.evaluate(([u, n, j]) => window.cases.userWorker(u, n, j), [`/repo/${input.slice(6)}`, 'linear_tanh.pt2', json]);
  assert.deepEqual(out, { sync: 'function', syncError: 'UNSUPPORTED_FEATURE', isBlob: true, sha: sha256(expected), size: expected.length, jsonMethods: ['forward'] });
});

test('a deflated entry without a bundler: zip.js comes from the package (dist/zipjs.mjs) and inflates it', { skip: SKIP, timeout: 120_000 }, async () => {
  const { unzipSync, zipSync } = await import('fflate');
  const files = {};
  for (const [name, data] of Object.entries(unzipSync(readFileSync(repo('tests/fixtures/corpus/linear_tanh/linear_tanh.pt2'))))) {
    files[name] = [data, { level: name.endsWith('archive_format') ? 6 : 0 }];
  }
  (await import('node:fs')).writeFileSync(join(work, 'deflated.pt2'), zipSync(files));
  const out = await page.evaluate((u) => window.cases.deflated(u), '/work/deflated.pt2');
  // The worker cannot resolve the bare specifier '@zip.js/zip.js' (no
  // bundler, no import map in workers): zip.mjs falls back to ./zipjs.mjs.
  assert.deepEqual(out, { ok: 1 });
});

test('only same-origin requests, and a clean console', { skip: SKIP }, () => {
  assert.ok(requests.length > 0);
  assert.deepEqual(requests.filter((u) => !u.startsWith(`${origin}/`)), []);
  assert.ok(requests.includes(`${origin}/pkg/dist/pteforge.wasm`), 'the .wasm next to the glue');
  assert.deepEqual(problems, []);
});
