#!/usr/bin/env node
// A tiny static server for the pteforge web page (web/), for development and
// the browser tests. It serves:
//   /            → web/ (index.html, app.mjs, worker.mjs, style.css)
//   /pteforge/   → the npm package the wasm-release build assembles
//                  (build/wasm-release/wasm/package, or --package DIR); its
//                  dist/zipjs.mjs is zip.js, which reads .pt2 archives on a
//                  page without a bundler
// on 127.0.0.1 only, with the page's Content-Security-Policy as a response
// header on EVERY response (a <meta> CSP does not govern a worker loaded from
// a URL, engineering-notes D10), `application/wasm` for .wasm (E12), and
// nothing outside those two folders (no directory listings, no `..`).
//
// Usage: node scripts/serve.mjs [--port N] [--host 127.0.0.1] [--package DIR]
//        node scripts/serve.mjs --export DIR [--package DIR]
//          (writes the site as plain static files: web/ plus pteforge/)
// Prints "serving http://HOST:PORT/" once listening (port 0 = any free port).

import { cpSync, createReadStream, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The policy the page needs: nothing may be sent anywhere but this origin. */
export const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'";

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.md': 'text/plain; charset=utf-8',
};

/** Headers sent with every response, errors included. */
function baseHeaders() {
  return {
    'Content-Security-Policy': CSP,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
  };
}

/** Maps a URL path to a file under one of the mounts, or null. */
function resolvePath(mounts, urlPath) {
  let path;
  try {
    path = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (path.includes('\0')) return null;
  for (const [prefix, dir] of mounts) {
    if (!path.startsWith(prefix)) continue;
    if (!prefix.endsWith('/')) {
      if (path === prefix) return dir; // a single file mounted at its URL
      continue;
    }
    let rel = path.slice(prefix.length);
    if (rel === '' || rel.endsWith('/')) rel += 'index.html';
    const file = resolve(dir, '.' + sep + rel);
    if (file !== dir && !file.startsWith(dir + sep)) return null;
    return file;
  }
  return null;
}

/** Starts the server; resolves to {server, url}. */
export function serve({ host = '127.0.0.1', port = 0, webDir = join(ROOT, 'web'), packageDir } = {}) {
  const pkg = resolve(packageDir ?? process.env.PTEFORGE_PACKAGE_DIR ?? join(ROOT, 'build', 'wasm-release', 'wasm', 'package'));
  const mounts = [['/pteforge/', pkg], ['/', resolve(webDir)]];
  const server = createServer((req, res) => {
    const headers = baseHeaders();
    const url = new URL(req.url ?? '/', 'http://localhost');
    const file = req.method === 'GET' || req.method === 'HEAD' ? resolvePath(mounts, url.pathname) : null;
    let st = null;
    try {
      st = file ? statSync(file) : null;
    } catch {
      st = null;
    }
    if (!st || !st.isFile()) {
      res.writeHead(req.method === 'GET' || req.method === 'HEAD' ? 404 : 405, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('not found\n');
      return;
    }
    res.writeHead(200, {
      ...headers,
      'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
      'Content-Length': st.size,
    });
    if (req.method === 'HEAD') return res.end();
    createReadStream(file).pipe(res);
  });
  return new Promise((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const { port: p } = server.address();
      resolvePromise({ server, url: `http://${host}:${p}/`, packageDir: pkg });
    });
  });
}

/** Writes the site (web/ + the package under pteforge/) to `out` as static files. */
export function exportSite(out, { webDir = join(ROOT, 'web'), packageDir } = {}) {
  const pkg = resolve(packageDir ?? process.env.PTEFORGE_PACKAGE_DIR ?? join(ROOT, 'build', 'wasm-release', 'wasm', 'package'));
  if (!existsSync(join(pkg, 'dist', 'index.browser.mjs'))) throw new Error(`${pkg}: no dist/index.browser.mjs; run scripts/build-wasm.sh first`);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  cpSync(webDir, out, { recursive: true, filter: (src) => !src.endsWith('README.md') });
  cpSync(join(pkg, 'dist'), join(out, 'pteforge', 'dist'), { recursive: true });
}

function main(argv) {
  const opts = {};
  let exportDir = null;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) usage();
      return argv[++i];
    };
    if (a === '--port') opts.port = Number(value());
    else if (a === '--host') opts.host = value();
    else if (a === '--package') opts.packageDir = value();
    else if (a === '--export') exportDir = value();
    else usage();
  }
  if (exportDir) {
    exportSite(resolve(exportDir), opts);
    console.log(`wrote ${resolve(exportDir)}`);
    return;
  }
  opts.port ??= 8080;
  serve(opts).then(({ url, packageDir }) => {
    if (!existsSync(join(packageDir, 'dist', 'index.browser.mjs'))) {
      console.error(`warning: ${packageDir} has no dist/index.browser.mjs; run scripts/build-wasm.sh`);
    }
    console.log(`serving ${url}`);
  });
}

function usage() {
  console.error('usage: node scripts/serve.mjs [--port N] [--host H] [--package DIR] | --export DIR [--package DIR]');
  process.exit(2);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
