// The pteforge web page in Chromium (issue 7): served by scripts/serve.mjs on
// 127.0.0.1 with the CSP header; every program fixture's summary against the
// native CLI; a .pt2 against its program JSON; the .pte viewer's decoded JSON
// byte-identical to `pteforge decode --json`; errors shown with their location;
// conversion (when the package has it) byte-identical to the native .pte;
// the CSP blocking requests elsewhere, from the page and from the worker;
// and no request leaving 127.0.0.1. Screenshots go to tests/browser/artifacts/.

import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { unzipSync, zipSync } from 'fflate';
import { after, before, describe, test } from 'node:test';
import { CSP, serve } from '../../scripts/serve.mjs';
import { ARTIFACTS, download, openPage, pick, repo, runCli, start, whenDone } from './helpers.mjs';

const CORPUS = repo('tests', 'fixtures', 'corpus');
const cases = readdirSync(CORPUS, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
const programJsons = cases.flatMap((c) => readdirSync(join(CORPUS, c, 'json', 'models')).filter((f) => f.endsWith('.json')).map((f) => join(CORPUS, c, 'json', 'models', f)));
const archives = cases.flatMap((c) => readdirSync(join(CORPUS, c)).filter((f) => f.endsWith('.pt2')).map((f) => join(CORPUS, c, f)));
const ptes = readdirSync(repo('tests', 'data', 'reference', 'pte')).filter((f) => f.endsWith('.pte')).map((f) => repo('tests', 'data', 'reference', 'pte', f));

/** What the page shows of a program summary, read from the DOM. */
function readSummary(page) {
  return page.evaluate(() => {
    const rows = (el) => el ? [...el.querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((td) => td.textContent)) : [];
    return {
      file: document.querySelector('[data-testid=file-info]').textContent,
      methods: [...document.querySelectorAll('#summary .method')].map((m) => ({
        name: m.dataset.method,
        inputs: rows(m.querySelector('[data-testid=inputs]')),
        outputs: rows(m.querySelector('[data-testid=outputs]')),
        ops: rows(m.querySelector('[data-testid=ops]')),
        state: rows(m.querySelector('[data-testid=state]')).map((r) => r.slice(0, 2)),
        modules: [...m.querySelectorAll('[data-testid=modules] li')].map((li) => li.querySelector('code').textContent),
        warnings: [...m.querySelectorAll('[data-testid=warnings] li')].map((li) => li.textContent),
      })),
    };
  });
}

/** The same view computed from `pteforge inspect --json`. */
function expectedSummary(json) {
  const io = (list) => list.map((x) => [x.name, x.kind, x.target ?? '', x.dtype ?? x.type ?? '', x.shape ? `[${x.shape.join(', ')}]` : '']);
  return json.methods.map((m) => ({
    name: m.name,
    inputs: io(m.inputs),
    outputs: io(m.outputs),
    ops: m.ops.map((o) => [o.target, String(o.count)]),
    state: [['parameters', String(m.state.parameters.count)], ['buffers', String(m.state.buffers.count)], ['constants', String(m.state.constants.count)], ['custom objects', String(m.state.custom_objects)]],
    modules: m.modules.map((x) => (x.path === '' ? '(root)' : x.path)),
    warningCount: m.warnings.length,
  }));
}

/** Scratch folder for the files these tests make; removed when the suite ends. */
const SCRATCH = mkdtempSync(join(tmpdir(), 'pteforge-web-'));

/** A copy of a program JSON in a folder of its own (what the page gets: the file alone). */
function loneCopy(file) {
  const dir = mkdtempSync(join(SCRATCH, 'lone-'));
  const copy = join(dir, basename(file));
  copyFileSync(file, copy);
  return copy;
}

describe('pteforge web page', () => {
  let env;
  let workerResponse;

  before(async () => {
    env = await start();
    workerResponse = await openPage(env);
  });

  after(async () => {
    try {
      await env?.close();
    } finally {
      rmSync(SCRATCH, { recursive: true, force: true });
    }
  });

  test('every response carries the CSP header, the worker included; .wasm is application/wasm', async () => {
    assert.equal(CSP, "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'");
    assert.equal(workerResponse.status(), 200);
    assert.equal(workerResponse.headers()['content-security-policy'], CSP);
    assert.match(workerResponse.headers()['content-type'], /^text\/javascript/);
    for (const path of ['/', '/app.mjs', '/style.css', '/pteforge/dist/pteforge.wasm', '/pteforge/dist/index.browser.mjs', '/no-such-file', '/../package.json']) {
      const r = await fetch(new URL(path, env.url));
      assert.equal(r.headers.get('content-security-policy'), CSP, path);
      if (path.endsWith('.wasm')) assert.equal(r.headers.get('content-type'), 'application/wasm');
      if (path.startsWith('/no') || path.startsWith('/..')) assert.equal(r.status, 404, path);
      await r.arrayBuffer();
    }
    // The module ran in the worker: the page says which build it is.
    assert.match(await env.page.textContent('#version'), /^pteforge \S+ \(Emscripten 3\.1\.6\)\.$/);
    // No console errors or warnings (a wrong .wasm MIME type would warn, E12).
    assert.deepEqual(env.consoleMessages.filter((m) => /^(error|warning|pageerror)/.test(m)), []);
  });

  test('the summary of every program JSON is what `pteforge inspect --json` says', async () => {
    assert.ok(programJsons.length >= 10);
    for (const file of programJsons) {
      // The page reads the JSON alone (method "forward"); the CLI would read
      // it as a program of its unpacked folder, so it inspects a lone copy.
      const cli = runCli(['inspect', '--json', loneCopy(file)]);
      assert.equal(cli.status, 0, `${file}: ${cli.stderr}`);
      const expected = expectedSummary(JSON.parse(cli.stdout));
      await pick(env.page, file);
      assert.equal(await env.page.isHidden('#error'), true, `${file}: ${await env.page.textContent('#error')}`);
      const shown = await readSummary(env.page);
      assert.match(shown.file, new RegExp(`^${file.split('/').pop().replace('.', '\\.')} — [\\d,]+ B`));
      assert.equal(shown.methods.length, expected.length, file);
      shown.methods.forEach((m, i) => {
        const { warningCount, ...want } = expected[i];
        const { warnings, ...got } = m;
        assert.deepEqual(got, want, file);
        assert.equal(warnings.length, warningCount, file);
      });
    }
  });

  test('a .pt2 shows the same program as its program JSON; a screenshot of the page', async () => {
    assert.ok(archives.length >= 10);
    for (const archive of archives) {
      const dir = join(archive, '..', 'json', 'models');
      const models = readdirSync(dir);
      if (models.length !== 1 || !archive.includes(`/${archive.split('/').at(-2)}.pt2`)) continue; // one-model archives
      await pick(env.page, join(dir, models[0]));
      const fromJson = (await readSummary(env.page)).methods;
      await pick(env.page, archive);
      assert.equal(await env.page.isHidden('#error'), true, `${archive}: ${await env.page.textContent('#error')}`);
      const fromArchive = (await readSummary(env.page)).methods;
      assert.deepEqual(fromArchive, fromJson, archive);
    }
    await pick(env.page, join(CORPUS, 'modules_preserved', 'modules_preserved.pt2'));
    const modules = await env.page.$$eval('#summary [data-testid=modules] li code', (els) => els.map((e) => e.textContent));
    assert.deepEqual(modules, ['(root)', '0', '0.0', '0.1', '1', '1.0', '1.1']);
    // The tree is indented by depth (CSSOM custom property; the CSP forbids style attributes).
    const indents = await env.page.$$eval('#summary [data-testid=modules] li', (els) => els.map((e) => parseFloat(getComputedStyle(e).paddingLeft)));
    assert.deepEqual(indents, [0, 18, 36, 36, 18, 36, 36]);
    assert.equal(await env.page.isVisible('#options'), true);
    assert.equal(await env.page.isVisible('#swap-drop'), true);
    await env.page.screenshot({ path: join(ARTIFACTS, 'page-program.png'), fullPage: true });
  });

  test('a re-zipped .pt2 with deflated entries opens too (zip.js from the package\'s dist/zipjs.mjs inflates them)', async () => {
    const stored = join(CORPUS, 'linear_tanh', 'linear_tanh.pt2');
    const entries = unzipSync(readFileSync(stored));
    const deflated = join(SCRATCH, 'deflated.pt2');
    writeFileSync(deflated, zipSync(entries, { level: 6 }));
    await pick(env.page, stored);
    const expected = (await readSummary(env.page)).methods;
    await pick(env.page, deflated);
    assert.equal(await env.page.isHidden('#error'), true, await env.page.textContent('#error'));
    assert.deepEqual((await readSummary(env.page)).methods, expected);
  });

  test('files come in by drag and drop, and by keyboard (Enter on the drop zone opens the picker)', async () => {
    const pte = repo('tests', 'data', 'reference', 'pte', 'add.pte');
    const dropFile = (selector, path) => whenDone(env.page, async () => {
      const bytes = [...readFileSync(path)];
      const name = path.split('/').pop();
      const dt = await env.page.evaluateHandle(({ bytes, name }) => {
        const t = new DataTransfer();
        t.items.add(new File([new Uint8Array(bytes)], name));
        return t;
      }, { bytes, name });
      await env.page.dispatchEvent(selector, 'drop', { dataTransfer: dt });
    });
    await dropFile('#drop', pte);
    assert.equal(await env.page.isVisible('#decoded'), true);
    assert.match(await env.page.textContent('[data-testid=pte-info]'), /^add\.pte — 728 B/);

    await env.page.focus('#drop');
    const [chooser] = await Promise.all([env.page.waitForEvent('filechooser'), env.page.keyboard.press('Enter')]);
    await whenDone(env.page, () => chooser.setFiles(join(CORPUS, 'modules_preserved', 'modules_preserved.pt2')));
    assert.match(await env.page.textContent('[data-testid=file-info]'), /^modules_preserved\.pt2 — /);

    // A replacement program dropped on the second zone gets a row that picks the submodule it replaces.
    const replacement = join(CORPUS, 'modules_preserved_swap', 'replacement_1.pt2');
    const rowsBefore = await env.page.$$eval('#swap-rows .swap', (r) => r.length);
    const bytes = [...readFileSync(replacement)];
    const dt = await env.page.evaluateHandle(({ bytes }) => {
      const t = new DataTransfer();
      t.items.add(new File([new Uint8Array(bytes)], 'replacement_1.pt2'));
      return t;
    }, { bytes });
    await env.page.dispatchEvent('#swap-drop', 'drop', { dataTransfer: dt });
    assert.equal(rowsBefore, 0);
    assert.equal(await env.page.isVisible('#swaps'), true);
    const options = await env.page.$$eval('#swap-rows select option', (o) => o.map((x) => x.value));
    // Only the modules exported with a preserved call signature can be swapped.
    assert.deepEqual(options, ['', '0', '1']);
    assert.match(await env.page.textContent('#swap-rows .swap'), /replacement_1\.pt2/);
  });

  test('the .pte viewer: decoded JSON byte-identical to `pteforge decode --json`', async () => {
    assert.ok(ptes.length >= 4);
    for (const pte of ptes) {
      const cli = runCli(['decode', '--json', pte]);
      assert.equal(cli.status, 0, `${pte}: ${cli.stderr}`);
      const want = JSON.parse(cli.stdout);
      await pick(env.page, pte);
      assert.equal(await env.page.isHidden('#error'), true, `${pte}: ${await env.page.textContent('#error')}`);
      assert.equal(await env.page.isHidden('#summary'), true);
      const bytes = await download(env.page, '[data-testid=download-decoded]');
      assert.ok(bytes.equals(cli.stdout), `${pte}: decoded JSON differs from the CLI's`);
      // The load check, as `pteforge decode --check` (every reference file passes).
      const methods = want.execution_plan.length;
      assert.equal(await env.page.textContent('[data-testid=pte-check]'),
        `ExecuTorch load check passed: ${methods} method${methods === 1 ? '' : 's'} would load`);
      const shown = await env.page.evaluate(() => [...document.querySelectorAll('#decoded .plan')].map((p) => ({
        name: p.dataset.plan,
        operators: [...p.querySelectorAll('[data-testid=pte-operators] tbody tr')].map((tr) => tr.children[1].textContent + '.' + tr.children[2].textContent),
        instructions: [...p.querySelectorAll('[data-testid=pte-instructions] li')].map((li) => li.textContent),
        values: p.querySelectorAll('[data-testid=pte-values] tbody tr').length,
      })));
      assert.deepEqual(shown, want.execution_plan.map((plan) => ({
        name: plan.name,
        operators: plan.operators.map((o) => `${o.name}.${o.overload}`),
        instructions: plan.chains.flatMap((c) => c.instructions.map((i) => i.text ?? `${i.type} ${JSON.stringify(i)}`)),
        values: plan.values.length,
      })), pte);
      assert.match(await env.page.textContent('[data-testid=pte-info]'), new RegExp(`^${pte.split('/').pop().replace('.', '\\.')} — [\\d,]+ B.*identifier ${want.file.identifier}`));
    }
    await pick(env.page, repo('tests', 'data', 'reference', 'pte', 'add.pte'));
    await env.page.screenshot({ path: join(ARTIFACTS, 'page-pte.png'), fullPage: true });
  });

  test('errors appear in the page with their code and location, as the CLI reports them', async () => {
    const bad = join(SCRATCH, 'bad.json');
    writeFileSync(bad, '{\n  "schema_version":\n}\n');
    const cli = runCli(['inspect', '--json', bad]);
    assert.notEqual(cli.status, 0);
    const [code, message] = cli.stderr.split('\n')[0].match(/^([A-Z_]+): (.*?) \(/).slice(1);
    await pick(env.page, bad);
    assert.equal(await env.page.isVisible('#error'), true);
    assert.equal(await env.page.isHidden('#summary'), true);
    assert.equal(await env.page.textContent('[data-testid=error-code]'), code);
    assert.equal(await env.page.textContent('[data-testid=error-message]'), message);
    const offset = Number(cli.stderr.match(/byte_offset=(\d+)/)[1]);
    assert.equal(await env.page.textContent('[data-testid=error-where] dd[data-key=byte_offset]'), String(offset));
    assert.equal(await env.page.textContent('[data-testid=error-where] dd[data-key=entry]'), bad.split('/').pop());
    // The line of the input around the offset, with a caret under it.
    const context = await env.page.textContent('[data-testid=error-context]');
    const [line, caret] = context.split('\n');
    assert.equal(line, '}');
    assert.equal(caret, '^');
    assert.match(await env.page.textContent('#error figcaption'), /line 3, column 1 \(byte 22\)/);
    await env.page.screenshot({ path: join(ARTIFACTS, 'page-error.png'), fullPage: true });

    // A truncated .pte: PTE_INVALID, shown; then the page still works.
    const trunc = join(SCRATCH, 'trunc.pte');
    writeFileSync(trunc, readFileSync(repo('tests', 'data', 'reference', 'pte', 'add.pte')).subarray(0, 100));
    const cliPte = runCli(['decode', '--json', trunc]);
    await pick(env.page, trunc);
    assert.equal(await env.page.textContent('[data-testid=error-code]'), cliPte.stderr.split(':')[0]);
    assert.equal(await env.page.textContent('[data-testid=error-code]'), 'PTE_INVALID');
    // A .pte error at a byte offset: the offset is shown, but no "line" of the binary file.
    const badId = join(SCRATCH, 'bad_identifier.pte');
    const pteBytes = Buffer.from(readFileSync(repo('tests', 'data', 'reference', 'pte', 'add.pte')));
    pteBytes.write('ET13', 4, 'latin1');
    writeFileSync(badId, pteBytes);
    assert.match(runCli(['decode', '--json', badId]).stderr, /^PTE_INVALID: file identifier is "ET13"; "ET12" expected \(entry=.* byte_offset=4\)/);
    await pick(env.page, badId);
    assert.equal(await env.page.textContent('[data-testid=error-where] dd[data-key=byte_offset]'), '4');
    assert.equal(await env.page.locator('[data-testid=error-context]').count(), 0);
    await pick(env.page, repo('tests', 'data', 'reference', 'pte', 'add.pte'));
    assert.equal(await env.page.isHidden('#error'), true);
    assert.equal(await env.page.isVisible('#decoded'), true);
  });

  test('convert: the downloaded .pte is byte-identical to the native CLI output', async (t) => {
    const features = await env.page.evaluate(async () => {
      const m = await import('./pteforge/dist/index.browser.mjs');
      const pf = await m.createPteforge();
      const f = pf.info.features;
      await pf.close();
      return f;
    });
    const canConvert = features.includes('convert');
    assert.equal(await env.page.isDisabled('#convert'), !canConvert);
    if (!canConvert) {
      await pick(env.page, programJsons[0]);
      assert.match(await env.page.textContent('#convert-note'), /cannot convert yet/);
      t.skip(`the package has no convert yet (features: ${features.join(', ')})`);
      return;
    }
    let compared = 0;
    for (const file of [...programJsons, ...archives]) {
      const out = join(SCRATCH, 'saved.pte');
      // The page gets a program JSON alone; the CLI would read the weights of
      // its unpacked folder, so it converts a copy on its own.
      const cli = runCli(['convert', file.endsWith('.json') ? loneCopy(file) : file, '-o', out, '--export-program', `${out}.program.json`]);
      if (cli.status !== 0) continue; // a JSON whose weights are in its folder, or not convertible natively either
      await pick(env.page, file);
      await env.page.check('#export-program');
      await whenDone(env.page, () => env.page.click('#convert'));
      assert.equal(await env.page.isHidden('#error'), true, `${file}: ${await env.page.textContent('#error')}`);
      const pte = await download(env.page, '[data-testid=download-pte]');
      assert.ok(pte.equals(readFileSync(out)), `${file}: .pte differs from the native one`);
      // The program JSON byte for byte as the CLI writes it (64-bit ints exact).
      const program = await download(env.page, '[data-testid=download-program]');
      assert.ok(program.equals(readFileSync(`${out}.program.json`)), `${file}: transformed program JSON`);
      assert.ok((await env.page.$$('[data-testid=pass-report] tbody tr')).length > 0);
      assert.equal(await env.page.isVisible('#decoded'), true);
      compared += 1;
    }
    assert.ok(compared >= archives.length, `only ${compared} inputs compared`);
    await env.page.screenshot({ path: join(ARTIFACTS, 'page-converted.png'), fullPage: true });
  });

  test('the result views: pass report table and memory plan chart from a real metadata JSON', async () => {
    // tests/browser/fake-package/dist/metadata.json: `pteforge convert
    // --metadata` output for the corpus case layernorm_residual.
    const metadata = JSON.parse(readFileSync(repo('tests', 'browser', 'fake-package', 'dist', 'metadata.json'), 'utf8'));
    const shown = await env.page.evaluate(async (md) => {
      const { renderMemory, renderReport } = await import('./results.mjs');
      const host = document.createElement('div');
      host.append(renderReport(md.pass_report), ...md.methods.map(renderMemory));
      document.body.append(host);
      const bars = [...host.querySelectorAll('[data-testid=memory-chart] rect')].map((r) => ({
        title: r.querySelector('title').textContent,
        x: +r.getAttribute('x'), w: +r.getAttribute('width'), y: +r.getAttribute('y'), h: +r.getAttribute('height'),
      }));
      const out = {
        rows: [...host.querySelectorAll('[data-testid=pass-report] tbody tr')].map((tr) => [...tr.children].map((td) => td.textContent)),
        diagnostics: [...host.querySelectorAll('.warnings li')].map((li) => li.textContent),
        arena: host.querySelector('[data-testid=arena]').textContent,
        bars,
      };
      host.remove();
      return out;
    }, metadata);
    const passes = metadata.pass_report.passes;
    assert.equal(shown.rows.length, passes.length);
    shown.rows.forEach((row, i) => {
      const p = passes[i];
      assert.deepEqual(row.slice(0, 2), [p.method, p.name]);
      assert.equal(row[2], p.skipped ? 'skipped' : p.changed ? 'changed' : '—');
      assert.equal(row[3], p.ms.toFixed(2));
      assert.deepEqual(row.slice(4, 6), [String(p.nodes_before), String(p.nodes_after)]);
    });
    assert.equal(shown.diagnostics.length, metadata.pass_report.diagnostics.length);
    const plan = metadata.methods[0].memory_plan;
    assert.equal(shown.arena, `greedy: arena 1,216 B (1.2 KiB), lower bound 1,216 B (1.2 KiB), ratio 1.000; ${plan.tensors.length} planned tensors`);
    assert.deepEqual(shown.bars.map((b) => b.title), plan.tensors.map((t) =>
      `${t.names.join(', ')}: ${t.size} B at mem${t.mem_id}+${t.offset}, lifetime ${t.lifetime[0]}–${t.lifetime[1]}`));
    // Geometry: x grows with the first node, width with the lifetime's length,
    // y falls (SVG) as the offset grows, height grows with the size.
    const unitX = shown.bars[0].w / (plan.tensors[0].lifetime[1] - plan.tensors[0].lifetime[0] + 1);
    const unitY = shown.bars[0].h / plan.tensors[0].size;
    plan.tensors.forEach((t, i) => {
      const b = shown.bars[i];
      assert.ok(Math.abs(b.w - unitX * (t.lifetime[1] - t.lifetime[0] + 1)) < 1e-6, b.title);
      assert.ok(Math.abs(b.x - shown.bars[0].x - unitX * (t.lifetime[0] - plan.tensors[0].lifetime[0])) < 1e-6, b.title);
      assert.ok(Math.abs(b.h - unitY * t.size) < 1e-6, b.title);
      assert.ok(Math.abs(b.y + b.h - (shown.bars[0].y + shown.bars[0].h) + unitY * (t.offset - plan.tensors[0].offset)) < 1e-6, b.title);
    });
    // How it looks in the page (artifact).
    await pick(env.page, join(CORPUS, 'layernorm_residual', 'layernorm_residual.pt2'));
    await env.page.evaluate(async (md) => {
      const { renderMemory, renderReport } = await import('./results.mjs');
      document.getElementById('report').replaceChildren(renderReport(md.pass_report));
      document.getElementById('memory').replaceChildren(...md.methods.map(renderMemory));
      document.getElementById('results').hidden = false;
    }, metadata);
    await env.page.locator('#results').screenshot({ path: join(ARTIFACTS, 'page-results.png') });
    await env.page.evaluate(() => { document.getElementById('results').hidden = true; });
  });

  test('the convert flow, against a stand-in package with a scripted convert (tests/browser/fake-package)', async () => {
    const fake = repo('tests', 'browser', 'fake-package', 'dist');
    const { server, url } = await serve({ port: 0, packageDir: repo('tests', 'browser', 'fake-package') });
    const page = await env.context.newPage();
    const problems = [];
    page.on('console', (m) => ['error', 'warning'].includes(m.type()) && problems.push(m.text()));
    try {
      await page.goto(url);
      await page.waitForSelector('#status[data-state="ready"]');
      await whenDone(page, () => page.setInputFiles('#file', join(CORPUS, 'layernorm_residual', 'layernorm_residual.pt2')));
      assert.equal(await page.isEnabled('#convert'), true);
      assert.equal(await page.textContent('#convert-note'), '');
      // A bad constant-methods field is reported before anything runs.
      await page.fill('#constant-methods', '{"get_max_seq_len": }');
      await whenDone(page, () => page.click('#convert'));
      assert.equal(await page.isVisible('#error'), true);
      assert.equal(await page.textContent('[data-testid=error-code]'), 'OPTION_INVALID');
      assert.equal(await page.textContent('[data-testid=error-where] dd[data-key=pointer]'), '/constantMethods');
      // Options as chosen in the form reach convert().
      await page.fill('#constant-methods', '{"get_max_seq_len": 128}');
      // The pass list: checkboxes of the default pipeline in its order, under
      // the group of each run of passes, with descriptions; the others named.
      const passes = await page.$$eval('#passes label.pass', (ls) => ls.map((l) => [l.querySelector('input').value, l.querySelector('input').checked, l.querySelector('input').disabled, l.querySelector('.desc').textContent]));
      assert.deepEqual(passes, [
        ['remove_tensor_metadata_asserts', true, false, 'drops _assert_tensor_metadata nodes'],
        ['decompose', false, true, 'training IR to Core ATen (not implemented yet)'],
        ['spec_prop', true, false, 'tensor specs for every value'],
        ['memory_planning', true, false, 'places tensors in the arena'],
      ]);
      assert.deepEqual(await page.$$eval('#passes h4', (hs) => hs.map((x) => x.textContent)), ['to_edge', 'to_executorch']);
      assert.equal(await page.textContent('[data-testid=sub-passes]'),
        "Run by other passes, not on their own here: legalize (the CLI's --passes can place them).");
      await page.uncheck('#passes input[value=remove_tensor_metadata_asserts]');
      assert.deepEqual(await page.$$eval('#memory-planning option', (os) => os.map((o) => o.value)), ['greedy', 'naive', 'best_fit', 'best']);
      await page.selectOption('#memory-planning', 'naive');
      await page.check('#init-buffers');
      await page.check('#export-program');
      await page.dispatchEvent('#swap-drop', 'drop', { dataTransfer: await page.evaluateHandle(() => {
        const t = new DataTransfer();
        t.items.add(new File(['{}'], 'replacement.json'));
        return t;
      }) });
      await page.selectOption('#swap-rows select', 'proj');
      // A second replacement file: the first row keeps its choice; two rows
      // replacing one module are refused before anything runs.
      await page.dispatchEvent('#swap-drop', 'drop', { dataTransfer: await page.evaluateHandle(() => {
        const t = new DataTransfer();
        t.items.add(new File(['{}'], 'other.json'));
        return t;
      }) });
      assert.deepEqual(await page.$$eval('#swap-rows select', (ss) => ss.map((x) => x.value)), ['proj', '']);
      await page.selectOption('#swap-rows select[data-swap="1"]', 'proj');
      await whenDone(page, () => page.click('#convert'));
      assert.equal(await page.isVisible('#error'), true);
      assert.equal(await page.textContent('[data-testid=error-code]'), 'OPTION_INVALID');
      assert.equal(await page.textContent('[data-testid=error-message]'),
        "module 'proj' is replaced twice (by replacement.json and by other.json); choose one");
      assert.equal(await page.textContent('[data-testid=error-where] dd[data-key=pointer]'), '/swaps/proj');
      await page.selectOption('#swap-rows select[data-swap="1"]', '');
      await whenDone(page, () => page.click('#convert'));
      assert.equal(await page.isHidden('#error'), true, await page.textContent('#error'));
      assert.equal(await page.textContent('#status'), 'Converted layernorm_residual.pt2.');
      // One full progress bar per stage.
      const bars = await page.$$eval('#progress .stage', (rows) => rows.map((r) => [r.dataset.stage, r.querySelector('progress').value, r.querySelector('progress').max]));
      assert.deepEqual(bars, [['read', 2, 2], ['passes', 2, 2], ['emit', 2, 2], ['assemble', 2, 2]]);
      // Downloads: the .pte byte for byte as convert() returned it, and the metadata.
      const pte = await download(page, '[data-testid=download-pte]');
      assert.ok(pte.equals(readFileSync(join(fake, 'output.pte'))));
      assert.equal(await page.getAttribute('[data-testid=download-pte]', 'download'), 'layernorm_residual.pte');
      const metadata = JSON.parse(await download(page, '[data-testid=download-metadata]'));
      assert.deepEqual(metadata.received_options, {
        memoryPlanning: 'naive', initBuffers: true, stackTraces: false, exportProgram: true,
        passes: ['spec_prop', 'memory_planning'], constantMethods: '{"get_max_seq_len": 128}',
        name: 'layernorm_residual.pt2', swaps: { proj: 'replacement.json' },
      });
      // The transformed program JSON, as convert() returned it.
      assert.deepEqual(JSON.parse(await download(page, '[data-testid=download-program]')), { forward: { scripted: true } });
      assert.equal(await page.getAttribute('[data-testid=download-program]', 'download'), 'layernorm_residual.program.json');
      const expected = JSON.parse(readFileSync(join(fake, 'metadata.json'), 'utf8'));
      assert.equal(await page.$$eval('[data-testid=pass-report] tbody tr', (r) => r.length), expected.pass_report.passes.length);
      assert.equal(await page.$$eval('[data-testid=memory-chart] rect', (r) => r.length), expected.methods[0].memory_plan.tensors.length);
      // The decoded view of the result.
      assert.equal(await page.isVisible('#decoded'), true);
      const decoded = await download(page, '[data-testid=download-decoded]');
      assert.ok(decoded.equals(readFileSync(join(fake, 'output.decoded.json'))));
      assert.match(await page.textContent('[data-testid=pte-info]'), /^layernorm_residual\.pte — 2,912 B/);
      assert.equal(await page.textContent('[data-testid=pte-check]'), 'ExecuTorch load check passed: 1 method would load');
      await page.screenshot({ path: join(ARTIFACTS, 'page-convert-flow.png'), fullPage: true });
      // A failing conversion shows its error and location; the results go away.
      // Back to the default pass selection: no pass list is sent.
      await page.check('#passes input[value=remove_tensor_metadata_asserts]');
      await whenDone(page, () => page.click('#convert'));
      const again = JSON.parse(await download(page, '[data-testid=download-metadata]'));
      assert.equal('passes' in again.received_options, false);
      await page.selectOption('#memory-planning', 'best');
      await whenDone(page, () => page.click('#convert'));
      assert.equal(await page.textContent('[data-testid=error-code]'), 'PASS_FAILED');
      assert.equal(await page.textContent('[data-testid=error-where] dd[data-key=pass]'), 'memory_planning');
      assert.equal(await page.textContent('[data-testid=error-where] dd[data-key=node]'), 'add');
      assert.equal(await page.textContent('#error .notes'), 'a note');
      assert.equal(await page.isHidden('#results'), true);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
      await new Promise((r) => server.close(r));
    }
  });

  test('a page whose converter cannot load says so, with the error', async () => {
    const { server, url } = await serve({ port: 0, packageDir: join(tmpdir(), 'pteforge-no-such-package') });
    const page = await env.context.newPage();
    try {
      await page.goto(url);
      await page.waitForSelector('#status[data-state="error"]', { timeout: 30_000 });
      assert.equal(await page.textContent('#status'), 'The converter is not built: see the error below.');
      assert.equal(await page.isVisible('#error'), true);
      assert.equal(await page.textContent('[data-testid=error-code]'), 'INTERNAL');
      assert.equal(await page.textContent('[data-testid=error-message]'),
        'the worker failed: the converter is not on this site (pteforge/dist/index.browser.mjs: HTTP 404)');
      assert.match(await page.textContent('#error .notes'), /scripts\/build-wasm\.sh/);
    } finally {
      await page.close();
      await new Promise((r) => server.close(r));
    }
  });

  test('the CSP stops the page and its worker from sending data elsewhere', async () => {
    const fromPage = await env.page.evaluate(() => fetch('http://192.0.2.1/leak', { method: 'POST', body: 'x' }).then(() => 'sent', () => 'blocked'));
    assert.equal(fromPage, 'blocked');
    const workers = env.page.workers();
    assert.ok(workers.some((w) => new URL(w.url()).pathname === '/worker.mjs'), workers.map((w) => w.url()).join());
    const w = workers.find((x) => new URL(x.url()).pathname === '/worker.mjs');
    const fromWorker = await w.evaluate(() => fetch('http://192.0.2.1/leak', { method: 'POST', body: 'x' }).then(() => 'sent', () => 'blocked'));
    assert.equal(fromWorker, 'blocked');
    const img = await env.page.evaluate(() => new Promise((resolve) => {
      const i = new Image();
      i.onload = () => resolve('loaded');
      i.onerror = () => resolve('blocked');
      i.src = 'http://192.0.2.1/pixel.png';
    }));
    assert.equal(img, 'blocked');
  });

  test('no CSP violation or script error in the console during all of the above', () => {
    assert.deepEqual(env.consoleMessages.filter((m) => /Content Security Policy|pageerror/.test(m) && !m.includes('192.0.2.1')), []);
  });

  test('no request left 127.0.0.1', () => {
    assert.ok(env.requests.length > 5);
    const origin = new URL(env.url).origin;
    const local = (u) => /^(blob:)?http:\/\/127\.0\.0\.1:\d+\//.test(u) || u.startsWith(origin + '/') || u.startsWith('blob:' + origin + '/') || u.startsWith('data:');
    // Every request reaching the network layer (page and worker alike: the
    // worker's .wasm fetch is seen there) was for this server ...
    assert.ok(env.routed.includes(new URL('/pteforge/dist/pteforge.wasm', origin).href), 'the route sees worker requests');
    assert.deepEqual(env.routed.filter((u) => !local(u)), []);
    // ... and the ones the test provoked elsewhere were stopped by the CSP.
    const elsewhere = env.requests.filter((u) => !local(u));
    assert.deepEqual(elsewhere, ['http://192.0.2.1/pixel.png']);
    assert.deepEqual(env.failed.filter((f) => !local(f.url)), [{ url: 'http://192.0.2.1/pixel.png', error: 'csp' }]);
    assert.ok(env.serverRequests.includes('/worker.mjs'));
    assert.ok(env.serverRequests.includes('/pteforge/dist/pteforge.wasm'));
  });
});
