// Edges of the web page found by a review that tried to break it
// (2026-12-05): a pass list sent in pipeline order, constant methods sent as
// their JSON text (2.0 stays a float), only swappable modules offered, the
// note for a program JSON without its weights, error snippets from the right
// file with the true column and none for a .pte, one Tab stop per drop zone,
// files dropped while busy named when the work ends, no sideways scrolling on
// a phone-sized screen, and a dead worker failing each request at once.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { serve } from '../../scripts/serve.mjs';
import { download, openPage, pick, repo, runCli, start, whenDone } from './helpers.mjs';

const CORPUS = repo('tests', 'fixtures', 'corpus');
const SCRATCH = mkdtempSync(join(tmpdir(), 'pteforge-web-edges-'));

/** Drops `files` ([{name, bytes}]) on `selector` at once, as one drag and drop. */
async function dropFiles(page, selector, files) {
  const dt = await page.evaluateHandle((list) => {
    const t = new DataTransfer();
    for (const f of list) t.items.add(new File([new Uint8Array(f.bytes)], f.name));
    return t;
  }, files.map((f) => ({ name: f.name, bytes: [...f.bytes] })));
  await page.dispatchEvent(selector, 'drop', { dataTransfer: dt });
}

describe('pteforge web page: edges', () => {
  let env;

  before(async () => {
    env = await start();
    await openPage(env);
  });

  after(async () => {
    try {
      await env?.close();
    } finally {
      rmSync(SCRATCH, { recursive: true, force: true });
    }
  });

  test('unticking one pass sends the rest in pipeline order: the .pte the CLI makes from that list', async () => {
    const file = join(CORPUS, 'layernorm_residual', 'layernorm_residual.pt2');
    const report = join(SCRATCH, 'report.json');
    assert.equal(runCli(['convert', file, '-o', join(SCRATCH, 'default.pte'), '--report', report]).status, 0);
    const pipeline = JSON.parse(readFileSync(report, 'utf8')).passes.map((p) => p.name);
    await pick(env.page, file);
    // The checkboxes read top to bottom in the order the passes run.
    assert.deepEqual(await env.page.$$eval('#passes input[name=pass]', (bs) => bs.map((b) => b.value)), pipeline);
    assert.match(await env.page.textContent('[data-testid=sub-passes]'), /^Run by other passes, not on their own here: legalize, /);
    await env.page.uncheck('#passes input[value=remove_noops]');
    await whenDone(env.page, () => env.page.click('#convert'));
    assert.equal(await env.page.isHidden('#error'), true, await env.page.textContent('#error'));
    const out = join(SCRATCH, 'no_noops.pte');
    const cli = runCli(['convert', file, '-o', out, '--passes', pipeline.filter((p) => p !== 'remove_noops').join(',')]);
    assert.equal(cli.status, 0, cli.stderr);
    assert.ok((await download(env.page, '[data-testid=download-pte]')).equals(readFileSync(out)));
    // The choice stays for the next file, as the other options do.
    await pick(env.page, join(CORPUS, 'linear_tanh', 'linear_tanh.pt2'));
    assert.equal(await env.page.isChecked('#passes input[value=remove_noops]'), false);
    await env.page.check('#passes input[value=remove_noops]');
  });

  test('constant methods go to the core as their JSON text: the .pte of --constant-method f=2.0 (NaN too)', async () => {
    const file = join(CORPUS, 'linear_tanh', 'linear_tanh.pt2');
    const out = join(SCRATCH, 'cm.pte');
    // NaN and infinities are read by the core (the page's early syntax check
    // must not refuse them); a string holding "NaN" stays a string.
    const cli = runCli(['convert', file, '-o', out, '--constant-method', 'f=2.0', '--constant-method', 'x=9007199254740993',
      '--constant-method', 'n=[NaN, -Infinity, "NaN\\" Inf"]']);
    assert.equal(cli.status, 0, cli.stderr);
    await pick(env.page, file);
    await env.page.fill('#constant-methods', '{"f": 2.0, "x": 9007199254740993, "n": [NaN, -Infinity, "NaN\\" Inf"]}');
    await whenDone(env.page, () => env.page.click('#convert'));
    assert.equal(await env.page.isHidden('#error'), true, await env.page.textContent('#error'));
    assert.ok((await download(env.page, '[data-testid=download-pte]')).equals(readFileSync(out)));
    await env.page.fill('#constant-methods', '');
  });

  test('only modules with a preserved call signature are offered for a swap', async () => {
    await pick(env.page, join(CORPUS, 'linear_tanh', 'linear_tanh.pt2'));
    assert.equal(await env.page.isHidden('#swap-drop'), true);
    await pick(env.page, join(CORPUS, 'modules_preserved', 'modules_preserved.pt2'));
    assert.equal(await env.page.isVisible('#swap-drop'), true);
    const replacement = join(CORPUS, 'modules_preserved_swap', 'replacement_1.pt2');
    await dropFiles(env.page, '#swap-drop', [{ name: 'replacement_1.pt2', bytes: readFileSync(replacement) }]);
    assert.deepEqual(await env.page.$$eval('#swap-rows select option', (o) => o.map((x) => x.value)), ['', '0', '1']);
  });

  test('an error in a swap replacement shows that file\'s line, with the true column', async () => {
    const syntax = join(SCRATCH, 'syntax.json');
    writeFileSync(syntax, '{"schema_version": {"major": 8, "minor": 20}, "graph_module": }');
    await pick(env.page, join(CORPUS, 'modules_preserved', 'modules_preserved.pt2'));
    await dropFiles(env.page, '#swap-drop', [{ name: 'syntax.json', bytes: readFileSync(syntax) }]);
    await env.page.selectOption('#swap-rows select', '1');
    await whenDone(env.page, () => env.page.click('#convert'));
    assert.equal(await env.page.textContent('[data-testid=error-where] dd[data-key=entry]'), 'syntax.json');
    const offset = Number(await env.page.textContent('[data-testid=error-where] dd[data-key=byte_offset]'));
    assert.equal(await env.page.textContent('#error figcaption'), `syntax.json, line 1, column ${offset + 1} (byte ${offset})`);
    // A one-line JSON with an error past column 200: the column counts from the line's start.
    const long = readFileSync(join(CORPUS, 'linear_tanh', 'json', 'models', 'model.json'), 'utf8').trimEnd();
    const trailing = join(SCRATCH, 'trailing.json');
    writeFileSync(trailing, `${long} garbage`);
    await pick(env.page, trailing);
    const at = Number(await env.page.textContent('[data-testid=error-where] dd[data-key=byte_offset]'));
    assert.ok(at > 1000, String(at));
    assert.equal(await env.page.textContent('#error figcaption'), `trailing.json, line 1, column ${at + 1} (byte ${at})`);
    const [line, caret] = (await env.page.textContent('[data-testid=error-context]')).split('\n');
    assert.equal(line[caret.length - 1], `${long} garbage`[at]);
    // Columns count characters: an emoji (two UTF-16 units, four bytes) before the error is one.
    const emoji = join(SCRATCH, 'emoji.json');
    writeFileSync(emoji, '{"\u{1F600}": 1,, "x": 2}');
    await pick(env.page, emoji);
    const eat = Number(await env.page.textContent('[data-testid=error-where] dd[data-key=byte_offset]'));
    assert.equal(eat, 11);
    assert.equal(await env.page.textContent('#error figcaption'), 'emoji.json, line 1, column 9 (byte 11)');
  });

  test('two swap files of one name: the error shows no line (which file it is cannot be told)', async () => {
    await pick(env.page, join(CORPUS, 'modules_preserved', 'modules_preserved.pt2'));
    const good = `${' '.repeat(300)}{}`;
    const bad = '{"schema_version": {"major": 8, "minor": 20}, "graph_module": BROKEN}';
    await dropFiles(env.page, '#swap-drop', [{ name: 'r.json', bytes: Buffer.from(good) }, { name: 'r.json', bytes: Buffer.from(bad) }]);
    await env.page.selectOption('#swap-rows select[data-swap="0"]', '1');
    await env.page.selectOption('#swap-rows select[data-swap="1"]', '0');
    await whenDone(env.page, () => env.page.click('#convert'));
    assert.equal(await env.page.textContent('[data-testid=error-where] dd[data-key=entry]'), 'r.json');
    assert.equal(await env.page.locator('[data-testid=error-context]').count(), 0);
  });

  test('no pass ticked is refused on the page, before anything runs', async () => {
    await pick(env.page, join(CORPUS, 'linear_tanh', 'linear_tanh.pt2'));
    for (const box of await env.page.$$('#passes input[name=pass]:not([disabled])')) await box.uncheck();
    await whenDone(env.page, () => env.page.click('#convert'));
    assert.equal(await env.page.textContent('[data-testid=error-code]'), 'OPTION_INVALID');
    assert.equal(await env.page.textContent('[data-testid=error-message]'), 'no pass is ticked: tick the passes to run (all of them is the default pipeline)');
    for (const box of await env.page.$$('#passes input[name=pass]:not([disabled])')) await box.check();
  });

  test('a .wasm the server does not have is IO_ERROR naming its URL (Emscripten reports an abort)', async () => {
    const got = await env.page.evaluate(async () => {
      const m = await import('./pteforge/dist/index.browser.mjs');
      try {
        await m.createPteforge({ worker: false, wasmUrl: '/nope/pteforge.wasm' });
        return null;
      } catch (e) {
        return [e.code, e.message, e.where?.entry];
      }
    });
    assert.equal(got[0], 'IO_ERROR', got[1]);
    assert.match(got[1], /^cannot fetch the WebAssembly module "http:\/\/127\.0\.0\.1:\d+\/nope\/pteforge\.wasm": HTTP 404/);
    assert.match(got[2], /\/nope\/pteforge\.wasm$/);
  });

  test('an option the worker proxy cannot post is OPTION_INVALID naming its pointer; the converter keeps working', async () => {
    const got = await env.page.evaluate(async () => {
      const m = await import('./pteforge/dist/index.browser.mjs');
      const pf = await m.createPteforge();  // the main thread: calls go to the worker
      const bytes = new Uint8Array(8);  // never read: posting the call fails first
      const out = [];
      for (const options of [{ constantMethods: { get_a: 1, get_f: () => 1 } }, { name: Symbol('s') }]) {
        try {
          await pf.convert(bytes, options);
          out.push(null);
        } catch (e) {
          out.push([e.code, e.message, e.where?.pointer ?? null]);
        }
      }
      out.push(Array.isArray(await pf.listPasses()));
      await pf.close();
      return out;
    });
    assert.equal(got[0][0], 'OPTION_INVALID', got[0][1]);
    assert.match(got[0][1], /^option \/constantMethods\/get_f cannot be sent to the pteforge worker \(DataCloneError: .+\); options are JSON values/);
    assert.equal(got[0][2], '/constantMethods/get_f');
    assert.equal(got[1][2], '/name');
    assert.equal(got[2], true);
  });

  test('a .pte error shows its offset but never a line of text, even when its bytes look like text', async () => {
    const bad = join(SCRATCH, 'bad_pte.pte');
    writeFileSync(bad, 'this is not an ExecuTorch program at all\n');
    await pick(env.page, bad);
    assert.equal(await env.page.textContent('[data-testid=error-code]'), 'PTE_INVALID');
    assert.equal(await env.page.locator('[data-testid=error-context]').count(), 0);
  });

  test('a program JSON without its weights says before converting that the .pt2 is needed', async () => {
    await pick(env.page, join(CORPUS, 'linear_tanh', 'json', 'models', 'model.json'));
    assert.match(await env.page.textContent('[data-testid=lone-json]'),
      /^This is a program JSON on its own: the values of its \d+ parameters, buffers and constants \(.+\) are not in it but in the \.pt2 archive it came from\. To convert, drop that \.pt2 instead\.$/);
    await pick(env.page, join(CORPUS, 'linear_tanh', 'linear_tanh.pt2'));
    assert.equal(await env.page.locator('[data-testid=lone-json]').count(), 0);
  });

  test('one Tab stop per drop zone; a second file dropped at once is named as not opened', async () => {
    assert.equal(await env.page.getAttribute('#file', 'tabindex'), '-1');
    assert.equal(await env.page.getAttribute('#swap-file', 'tabindex'), '-1');
    const a = join(CORPUS, 'linear_tanh', 'linear_tanh.pt2');
    const b = join(CORPUS, 'conv_avgpool', 'conv_avgpool.pt2');
    await whenDone(env.page, () => dropFiles(env.page, '#drop', [
      { name: 'linear_tanh.pt2', bytes: readFileSync(a) }, { name: 'conv_avgpool.pt2', bytes: readFileSync(b) }]));
    assert.equal(await env.page.textContent('#status'),
      'linear_tanh.pt2: ready to convert. Not opened (one file at a time): conv_avgpool.pt2; open it again.');
  });

  test('on a 390 px wide screen the page does not scroll sideways, long file names included', async () => {
    await env.page.setViewportSize({ width: 390, height: 800 });
    const width = async (what) => {
      const [scroll, client] = await env.page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
      assert.ok(scroll <= client, `${what}: page is ${scroll} px wide in a ${client} px viewport`);
    };
    try {
      await pick(env.page, join(CORPUS, 'layernorm_residual', 'layernorm_residual.pt2'));
      await whenDone(env.page, () => env.page.click('#convert'));
      assert.equal(await env.page.isVisible('#results'), true);
      await width('layernorm_residual.pt2 converted');
      const long = join(SCRATCH, `${'a_rather_long_model_name_from_an_export_script_'.repeat(2)}v2.pt2`);
      writeFileSync(long, readFileSync(join(CORPUS, 'modules_preserved', 'modules_preserved.pt2')));
      await pick(env.page, long);
      await dropFiles(env.page, '#swap-drop', [{ name: `${'replacement_with_an_equally_long_name_'.repeat(2)}.pt2`,
        bytes: readFileSync(join(CORPUS, 'modules_preserved_swap', 'replacement_1.pt2')) }]);
      await env.page.selectOption('#swap-rows select', '1');
      await whenDone(env.page, () => env.page.click('#convert'));
      assert.equal(await env.page.isHidden('#error'), true, await env.page.textContent('#error'));
      await width('a long name converted with a swap');
    } finally {
      await env.page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  test('a program of thousands of nodes: 500 rows of each long list at first, more per click, the 2,000 largest bars', async () => {
    const dir = join(SCRATCH, 'syn');
    const pt2 = join(SCRATCH, 'syn.pt2');
    execFileSync('python3', [repo('scripts', 'gen_synthetic.py'), '--nodes', '3000', dir], { stdio: 'ignore' });
    execFileSync('python3', [repo('scripts', 'make_pt2.py'), dir, pt2], { stdio: 'ignore' });
    await pick(env.page, pt2);
    await whenDone(env.page, () => env.page.click('#convert'), 120_000);
    assert.equal(await env.page.isHidden('#error'), true, await env.page.textContent('#error'));
    const instructions = '[data-testid=pte-instructions] li';
    assert.equal(await env.page.$$eval(instructions, (l) => l.length), 500);
    const more = env.page.locator('[data-testid=pte-instructions] + [data-testid=show-more]');
    const label = await more.textContent();
    const rest = Number(/ of the ([\d,]+) instructions not shown$/.exec(label)[1].replace(/,/g, ''));
    assert.ok(rest > 500, label);
    assert.equal(label, `Show 500 more of the ${rest.toLocaleString('en-US')} instructions not shown`);
    await more.click();
    assert.equal(await env.page.$$eval(instructions, (l) => l.length), 1000);
    // The numbering goes on: the 501st item is instruction 500.
    assert.equal(await env.page.$eval('[data-testid=pte-instructions]', (ol) => ol.start), 0);
    // The values table (inside its details) shows 500 rows and says how many are left.
    assert.equal(await env.page.$$eval('[data-testid=pte-values] tbody tr', (r) => r.length), 500);
    // The memory chart draws at most 2,000 bars and says so when it draws fewer.
    const bars = await env.page.$$eval('[data-testid=memory-chart] rect', (r) => r.length);
    const arena = await env.page.textContent('[data-testid=arena]');
    const planned = Number(/; (\d+) planned tensors/.exec(arena)[1]);
    assert.equal(bars, Math.min(planned, 2000));
    assert.equal(arena.endsWith('(the 2,000 largest drawn)'), planned > 2000, arena);
  });

  test('when the worker cannot load, opening a file fails at once instead of staying busy', async () => {
    const empty = join(SCRATCH, 'no-package');
    mkdirSync(empty);
    const { server, url } = await serve({ port: 0, packageDir: empty });
    const page = await env.context.newPage();
    try {
      await page.goto(url);
      await page.waitForSelector('#status[data-state="error"]');
      // No drop zone needs the converter to show: pick a file all the same.
      await whenDone(page, () => page.setInputFiles('#file', join(CORPUS, 'linear_tanh', 'linear_tanh.pt2')), 10_000);
      assert.equal(await page.textContent('[data-testid=error-code]'), 'INTERNAL');
      assert.match(await page.textContent('[data-testid=error-message]'), /^the worker failed: the converter is not on this site/);
      assert.equal(await page.textContent('#status'), 'The converter is not built: see the error below.');
    } finally {
      await page.close();
      await new Promise((r) => server.close(r));
    }
  });

  test('a converter module that is there but does not load asks for a reload', async () => {
    const broken = join(SCRATCH, 'broken-package');
    mkdirSync(join(broken, 'dist'), { recursive: true });
    writeFileSync(join(broken, 'dist', 'index.browser.mjs'), 'export const = ;\n');
    const { server, url } = await serve({ port: 0, packageDir: broken });
    const page = await env.context.newPage();
    try {
      await page.goto(url);
      await page.waitForSelector('#status[data-state="error"]', { timeout: 30_000 });
      assert.match(await page.textContent('[data-testid=error-message]'), /^the worker failed: /);
      assert.doesNotMatch(await page.textContent('[data-testid=error-message]'), /not on this site/);
      assert.equal(await page.textContent('#status'), 'The converter could not be loaded; reload the page.');
      assert.equal(await page.textContent('#error .notes'), 'reload the page to try again');
    } finally {
      await page.close();
      await new Promise((r) => server.close(r));
    }
  });
});
