// scripts/serve.mjs without a browser: the CSP header on every response
// (errors too), MIME types, nothing outside web/ and the package, and
// --export writing the site as plain static files.

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { CSP, exportSite, serve } from '../../scripts/serve.mjs';
import { repo } from './helpers.mjs';

// A package stand-in: what the server and export need of one.
const pkg = mkdtempSync(join(tmpdir(), 'pteforge-serve-pkg-'));
mkdirSync(join(pkg, 'dist'));
writeFileSync(join(pkg, 'dist', 'index.browser.mjs'), 'export {};\n');
writeFileSync(join(pkg, 'dist', 'pteforge.wasm'), new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
writeFileSync(join(pkg, 'package.json'), '{}\n');

let srv;
before(async () => {
  srv = await serve({ port: 0, packageDir: pkg });
});
after(async () => {
  await new Promise((r) => srv.server.close(r));
  rmSync(pkg, { recursive: true, force: true });
});

/** A raw request (fetch would normalise `..` away). */
function get(path, method = 'GET') {
  return new Promise((resolve, reject) => {
    const u = new URL(srv.url);
    const req = request({ host: u.hostname, port: u.port, path, method }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('listens on 127.0.0.1 only', () => {
  assert.match(srv.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
});

test('every response has the CSP header, with the right type', async () => {
  const cases = [
    ['/', 200, 'text/html; charset=utf-8'],
    ['/index.html', 200, 'text/html; charset=utf-8'],
    ['/worker.mjs', 200, 'text/javascript; charset=utf-8'],
    ['/style.css', 200, 'text/css; charset=utf-8'],
    ['/assets/favicon.svg', 200, 'image/svg+xml'],
    ['/pteforge/dist/pteforge.wasm', 200, 'application/wasm'],
    ['/pteforge/dist/index.browser.mjs', 200, 'text/javascript; charset=utf-8'],
    ['/missing.mjs', 404, 'text/plain; charset=utf-8'],
    ['/../package.json', 404, 'text/plain; charset=utf-8'],
    ['/%2e%2e/package.json', 404, 'text/plain; charset=utf-8'],
    ['/pteforge/%2e%2e/%2e%2e/package.json', 404, 'text/plain; charset=utf-8'],
    ['/pteforge/', 404, 'text/plain; charset=utf-8'],
    ['/assets/', 404, 'text/plain; charset=utf-8'],
    ['/%zz', 404, 'text/plain; charset=utf-8'],
  ];
  for (const [path, status, type] of cases) {
    const r = await get(path);
    assert.equal(r.status, status, path);
    assert.equal(r.headers['content-security-policy'], CSP, path);
    assert.equal(r.headers['content-type'], type, path);
  }
  assert.equal((await get('/worker.mjs')).body.toString(), readFileSync(repo('web', 'worker.mjs'), 'utf8'));
  const post = await get('/index.html', 'POST');
  assert.equal(post.status, 405);
  assert.equal(post.headers['content-security-policy'], CSP);
});

test('--export writes the site: web/ plus the package under pteforge/dist/', () => {
  const out = mkdtempSync(join(tmpdir(), 'pteforge-site-'));
  try {
    writeFileSync(join(out, 'stale.txt'), 'old');
    exportSite(out, { packageDir: pkg });
    for (const f of ['index.html', 'app.mjs', 'worker.mjs', 'dom.mjs', 'results.mjs', 'pte_view.mjs', 'sniff.mjs', 'style.css', 'assets/favicon.svg', 'pteforge/dist/index.browser.mjs', 'pteforge/dist/pteforge.wasm']) {
      assert.ok(existsSync(join(out, f)), f);
    }
    assert.equal(existsSync(join(out, 'README.md')), false);
    assert.equal(existsSync(join(out, 'stale.txt')), false);
    assert.throws(() => exportSite(join(out, 'x'), { packageDir: join(out, 'nothing') }), /no dist\/index\.browser\.mjs/);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
