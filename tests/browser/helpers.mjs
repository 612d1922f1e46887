// Shared helpers of the browser tests: the static server (scripts/serve.mjs)
// on 127.0.0.1 with the built npm package, Debian's Chromium driven by
// playwright-core (engineering-notes D11: the flags below, a fresh
// --user-data-dir), a log of every request the browser makes, and the native
// CLI for byte-identity.
//
// Environment: PTEFORGE_PACKAGE_DIR (default build/wasm-release/wasm/package),
// PTEFORGE_CLI (default build/native-debug/core/pteforge), PTEFORGE_CHROMIUM
// (default /usr/bin/chromium). scripts/test.sh's browser stage builds both.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from '../../scripts/serve.mjs';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI = process.env.PTEFORGE_CLI ?? join(ROOT, 'build', 'native-debug', 'core', 'pteforge');
export const CHROMIUM = process.env.PTEFORGE_CHROMIUM ?? '/usr/bin/chromium';
export const ARTIFACTS = join(ROOT, 'tests', 'browser', 'artifacts');

/** The flags of engineering-notes D11 (Playwright adds --headless itself; listed anyway). */
export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

export function repo(...parts) {
  return join(ROOT, ...parts);
}

/** Runs the native CLI; {status, stdout: Buffer, stderr: string}. */
export function runCli(args) {
  if (!existsSync(CLI)) throw new Error(`native CLI ${CLI} missing: cmake --build --preset native-debug --target pteforge (or set PTEFORGE_CLI)`);
  const r = spawnSync(CLI, args, { cwd: ROOT, maxBuffer: 1 << 30 });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr.toString() };
}

/**
 * Starts the server and the browser. Returns {url, context, page, requests,
 * serverRequests, close}. `requests` lists every URL the browser asked for
 * (page and workers); `serverRequests` every path the server saw.
 */
export async function start() {
  const { server, url, packageDir } = await serve({ port: 0 });
  if (!existsSync(join(packageDir, 'dist', 'index.browser.mjs'))) {
    server.close();
    throw new Error(`${packageDir} has no dist/index.browser.mjs: build the package (scripts/build-wasm.sh) or set PTEFORGE_PACKAGE_DIR`);
  }
  const serverRequests = [];
  server.on('request', (req) => serverRequests.push(req.url));
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} missing: scripts/setup.sh --browser (apt-get install chromium)`);
  const profile = mkdtempSync(join(tmpdir(), 'pteforge-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    acceptDownloads: true,
    viewport: { width: 1280, height: 900 },
  });
  const requests = [];
  context.on('request', (r) => requests.push(r.url()));
  const failed = [];
  context.on('requestfailed', (r) => failed.push({ url: r.url(), error: r.failure()?.errorText ?? '' }));
  // Whatever reaches the network layer is recorded here; anything not for
  // a server on 127.0.0.1 is aborted (and makes the test fail).
  const routed = [];
  await context.route('**/*', (route) => {
    const u = route.request().url();
    routed.push(u);
    return /^http:\/\/127\.0\.0\.1:\d+\//.test(u) ? route.continue() : route.abort('blockedbyclient');
  });
  const page = context.pages()[0] ?? (await context.newPage());
  // File chooser interception on from the start (enabling it is asynchronous,
  // so a waitForEvent('filechooser') just before the key press can miss it).
  page.on('filechooser', () => {});
  const consoleMessages = [];
  page.on('console', (m) => consoleMessages.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => consoleMessages.push(`pageerror: ${e.message}`));
  mkdirSync(ARTIFACTS, { recursive: true });
  return {
    url,
    context,
    page,
    requests,
    failed,
    routed,
    serverRequests,
    consoleMessages,
    async close() {
      await context.close();
      await new Promise((r) => server.close(r));
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Opens the page and waits until the converter has loaded. Returns the worker.mjs response. */
export async function openPage(env) {
  const workerResponse = env.page.waitForResponse((r) => new URL(r.url()).pathname === '/worker.mjs');
  await env.page.goto(env.url);
  await env.page.waitForSelector('#status[data-state="ready"]', { timeout: 60_000 });
  return workerResponse;
}

/** Picks `file` in the main drop zone and waits until the page has finished reading it. */
export async function pick(page, file) {
  await whenDone(page, () => page.setInputFiles('#file', file));
}

/** Runs `action` and waits until the page has finished the operation it starts (<body data-done> grows). */
export async function whenDone(page, action, timeout = 120_000) {
  const before = Number(await page.evaluate(() => document.body.dataset.done ?? 0));
  await action();
  await page.waitForFunction((n) => Number(document.body.dataset.done ?? 0) > n, before, { timeout });
}

/** Clicks a download link; resolves to the downloaded bytes. */
export async function download(page, selector) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  const { readFileSync } = await import('node:fs');
  return readFileSync(await dl.path());
}
