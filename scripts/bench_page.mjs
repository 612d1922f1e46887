#!/usr/bin/env node
// Page responsiveness benchmark: opens the web page in Chromium (the
// browser tests' setup, tests/browser/helpers.mjs), opens and converts a
// synthetic program of N nodes (scripts/gen_synthetic.py + make_pt2.py,
// made once into build/bench/), and prints per step the wall time and the
// page thread's long tasks (PerformanceObserver "longtask": every stretch
// of over 50 ms in which the page could not respond), longest first.
//
// Usage: node scripts/bench_page.mjs [--nodes 30000]
// Needs the npm package (scripts/build-wasm.sh), the debug CLI the helpers
// name, and scripts/setup.sh --browser.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { ROOT, openPage, pick, start, whenDone } from '../tests/browser/helpers.mjs';

const { values } = parseArgs({ options: { nodes: { type: 'string', default: '30000' } } });
const nodes = Number(values.nodes);
const dir = join(ROOT, 'build', 'bench');
const pt2 = join(dir, `synthetic_${nodes}.pt2`);
if (!existsSync(pt2)) {
  mkdirSync(dir, { recursive: true });
  const unpacked = join(dir, `synthetic_${nodes}`);
  execFileSync('python3', [join(ROOT, 'scripts', 'gen_synthetic.py'), '--nodes', String(nodes), unpacked], { stdio: 'ignore' });
  execFileSync('python3', [join(ROOT, 'scripts', 'make_pt2.py'), unpacked, pt2], { stdio: 'inherit' });
}

const env = await start();
try {
  await openPage(env);
  await env.page.evaluate(() => {
    window.longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.longTasks.push(Math.round(e.duration));
    }).observe({ type: 'longtask' });
  });
  for (const [step, action] of [['open', () => pick(env.page, pt2)], ['convert', () => whenDone(env.page, () => env.page.click('#convert'), 600_000)]]) {
    await env.page.evaluate(() => { window.longTasks.length = 0; });
    const t0 = performance.now();
    await action();
    const ms = performance.now() - t0;
    const tasks = (await env.page.evaluate(() => window.longTasks)).sort((a, b) => b - a);
    console.log(`${step}: ${(ms / 1000).toFixed(1)} s, ${tasks.length} long task(s) [${tasks.join(', ')}] ms`);
  }
} finally {
  await env.close();
}
