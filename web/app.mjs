// The pteforge page: file drop/pick, the program summary (inspect), options,
// conversion with per-stage progress, results (downloads, pass report, memory
// plan chart) and the decoded view of a .pte. All pteforge calls go to
// worker.mjs, so the page never blocks; no data leaves the tab (the CSP
// forbids it, and nothing here tries).
//
// DOM is built with textContent only (never innerHTML from input data).

import { capped, fill, formatBytes, h, table } from './dom.mjs';
import { jsonText } from './pte_view.mjs';
import { renderMemory, renderReport } from './results.mjs';
import { hasPteIdentifier } from './sniff.mjs';

const $ = (id) => document.getElementById(id);

// ---------------------------------------------------------------- worker

const worker = new Worker(new URL('./worker.mjs', import.meta.url), { type: 'module' });
let nextId = 1;
const pending = new Map();
let moduleInfo = null;
let passList = null;
const ready = new Promise((resolve) => {
  worker.addEventListener('message', function onReady(event) {
    if (!('ready' in (event.data ?? {}))) return;
    worker.removeEventListener('message', onReady);
    resolve(event.data);
  });
});

worker.addEventListener('message', (event) => {
  const m = event.data ?? {};
  const p = pending.get(m.id);
  if (!p) return;
  if (m.progress) return p.onProgress?.(m.progress);
  pending.delete(m.id);
  if (m.ok) p.resolve(m.value);
  else p.reject(m.error);
});
/** The worker's failure ({code, message, where, notes}) once it died: every request gets it. */
let workerFailure = null;
/** The converter's module, which the worker imports (served from the npm package, see scripts/serve.mjs). */
const PACKAGE_ENTRY = 'pteforge/dist/index.browser.mjs';

/**
 * Why the worker could not load: a site without the package's module (the
 * WebAssembly build was not made, or not copied beside the page) is told
 * apart from any other failure, whose remedy is a reload. Resolves with
 * {message, notes, status}.
 */
async function workerFailureCause(event) {
  const generic = {
    message: `the worker failed: ${event.message || 'it could not be loaded'}`,
    notes: ['reload the page to try again'],
    status: 'The converter could not be loaded; reload the page.',
  };
  try {
    const res = await fetch(new URL(`./${PACKAGE_ENTRY}`, import.meta.url), { method: 'HEAD', cache: 'no-store' });
    if (res.ok) return generic;
    return {
      message: `the worker failed: the converter is not on this site (${PACKAGE_ENTRY}: HTTP ${res.status})`,
      notes: [
        'build the WebAssembly package (scripts/build-wasm.sh) and serve the page with scripts/serve.sh, ' +
          'or copy the package beside the page (node scripts/serve.mjs --export DIR)',
      ],
      status: 'The converter is not built: see the error below.',
    };
  } catch {
    return generic;
  }
}

worker.addEventListener('error', (event) => {
  workerFailure = { code: 'INTERNAL', message: `the worker failed: ${event.message || 'it could not be loaded'}`, where: {}, notes: ['reload the page to try again'] };
  const failure = workerFailure;
  // Requests it will never answer fail now, so that no operation stays busy.
  for (const p of pending.values()) p.reject(failure);
  pending.clear();
  workerFailureCause(event).then((cause) => {
    failure.message = cause.message;
    failure.notes = cause.notes;
    failure.status = cause.status;
    showError(failure);
    setStatus('error', cause.status);
  });
});

/** Sends a request to the worker; resolves with its value, rejects with {code, message, where, notes}. */
function call(message, onProgress) {
  if (workerFailure) return Promise.reject(workerFailure);
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject, onProgress });
    worker.postMessage({ ...message, id });
  });
}

/**
 * Files dropped while the page was busy (or beyond the first of a drop),
 * which were not opened: said when the current operation ends, as well as
 * at once, so the notice is not overwritten unseen.
 */
let notTaken = [];

function setStatus(state, text) {
  const el = $('status');
  el.dataset.state = state;
  el.textContent = text;
}

/** setStatus at the end of an operation, with the files not taken meanwhile. */
function setFinalStatus(state, text) {
  if (workerFailure) {  // nothing can be read or converted until the page is reloaded
    state = 'error';
    text = workerFailure.status ?? 'The converter could not be loaded; reload the page.';
  }
  if (notTaken.length) {
    const names = notTaken.join(', ');
    text += ` Not opened (one file at a time): ${names}; open ${notTaken.length === 1 ? 'it' : 'them'} again.`;
    notTaken = [];
  }
  setStatus(state, text);
}

// ---------------------------------------------------------------- state

const state = { file: null, inspect: null, swapFiles: [], busy: false, urls: [] };

/** Counts finished operations in <body data-done> (tests wait on it). */
let done = 0;
function finished() {
  document.body.dataset.done = String(++done);
}

function revokeUrls() {
  for (const u of state.urls) URL.revokeObjectURL(u);
  state.urls = [];
}

function resetView() {
  for (const id of ['error', 'summary', 'options', 'results', 'decoded', 'swap-drop']) $(id).hidden = true;
  fill($('progress'), );
  revokeUrls();
}

// ---------------------------------------------------------------- errors

const WHERE_KEYS = ['entry', 'byte_offset', 'pointer', 'node', 'method', 'pass', 'source'];

/**
 * Shows an error: its code, message, location and notes, plus the input
 * around where.byte_offset when the error is in the dropped file's text.
 */
async function showError(error, file = null) {
  const e = error && typeof error === 'object' ? error : { code: 'INTERNAL', message: String(error) };
  const where = e.where ?? {};
  const box = $('error');
  const items = WHERE_KEYS.filter((k) => where[k] !== undefined && where[k] !== '')
    .map((k) => [h('dt', {}, k), h('dd', { 'data-key': k }, String(where[k]))]);
  // Read first, so that the box appears whole (with or without the input's text).
  const snippet = file ? await contextAt(file, where).catch(() => null) : null;
  fill(box, 
    h('h2', {}, 'Error ', h('code', { class: 'code', 'data-testid': 'error-code' }, e.code ?? 'INTERNAL')),
    h('p', { class: 'message', 'data-testid': 'error-message' }, e.message ?? ''),
    items.length ? h('dl', { class: 'where', 'data-testid': 'error-where' }, items) : null,
    (e.notes ?? []).length ? h('ul', { class: 'notes' }, e.notes.map((n) => h('li', {}, n))) : null,
    snippet,
  );
  box.hidden = false;
}

/**
 * The dropped file an error's location points into: the one named by
 * where.entry (the program, or a swap replacement), or the program itself
 * when the error names no entry; null when the entry is another file.
 */
function fileOfError(where) {
  const files = [state.file, ...state.swapFiles].filter(Boolean);
  if (where?.entry === undefined) return state.file;
  const named = files.filter((f) => f.name === where.entry);
  return named.length === 1 ? named[0] : null;  // two files of that name: which one is unknown
}

/** True for a .pte (by name, or the ExecuTorch identifier "ET" + two digits at byte 4). */
function isPte(name, head) {
  return /\.pte$/i.test(name ?? '') || hasPteIdentifier(head);
}

/** True when `bytes` hold a control byte no text has (not tab, LF, FF or CR): a binary file. */
function looksBinary(bytes) {
  return bytes.some((b) => b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0c && b !== 0x0d);
}

/**
 * The line around where.byte_offset of a text (JSON) input, with a caret;
 * null for a zip (its offsets are within entries) or a binary file (a .pte).
 */
async function contextAt(file, where) {
  const off = where.byte_offset;
  if (typeof off !== 'number' || off < 0 || off > file.size) return null;
  const head = new Uint8Array(await file.slice(0, 8).arrayBuffer());
  if (head[0] === 0x50 && head[1] === 0x4b) return null; // a zip: offsets are within entries
  if (isPte(file.name, head)) return null; // a binary program: its offset alone
  const start = Math.max(0, off - 200);
  const bytes = new Uint8Array(await file.slice(start, Math.min(file.size, off + 200)).arrayBuffer());
  if (looksBinary(bytes)) return null;
  const dec = new TextDecoder('utf-8', { fatal: false });
  const before = dec.decode(bytes.subarray(0, off - start)).split('\n').pop();
  const after = dec.decode(bytes.subarray(off - start)).split('\n')[0];
  const line = (before + after).replace(/\t/g, ' ');
  const col = before.length;  // in the shown window
  // Line and column: count from the start of the file (bounded read: past
  // 8 MiB the caption gives the byte alone). The column counts characters
  // from the line's start, which may lie before the shown window.
  let place = `byte ${off}`;
  if (off <= 8 << 20) {
    let lineNo = 1;
    let lineStart = 0;
    const all = new Uint8Array(await file.slice(0, off).arrayBuffer());
    for (let i = 0; i < all.length; i++) {
      if (all[i] === 10) {
        lineNo++;
        lineStart = i + 1;
      }
    }
    const column = [...dec.decode(all.subarray(lineStart))].length + 1;  // characters, not UTF-16 units
    place = `line ${lineNo}, column ${column} (byte ${off})`;
  }
  // Few characters before the caret, so that it shows on a narrow screen too.
  const clipStart = Math.max(0, col - 30);
  const shown = line.slice(clipStart, clipStart + 120);
  return h('figure', { class: 'context' },
    h('figcaption', {}, `${file.name}, ${place}`),
    h('pre', { 'data-testid': 'error-context' }, shown + '\n' + ' '.repeat(col - clipStart) + '^'));
}

// ---------------------------------------------------------------- summary

function ioRows(list) {
  return list.map((io) => [io.name, io.kind, io.target ?? '', io.dtype ?? io.type ?? '', io.shape ? `[${io.shape.join(', ')}]` : '']);
}

function moduleTree(modules) {
  if (!modules?.length) return h('p', { class: 'note' }, 'No module hierarchy (no nn_module_stack in the nodes).');
  return capped(h('ul', { class: 'tree', 'data-testid': 'modules' }), modules, (m) =>
    h('li', { style: { '--depth': m.depth } },
      h('code', {}, m.path === '' ? '(root)' : m.path), ' ', h('span', { class: 'type' }, m.type ?? ''),
      ' ', h('span', { class: 'count' }, `${m.nodes} node${m.nodes === 1 ? '' : 's'}`)), 'modules');
}

function stateTable(st) {
  const rows = ['parameters', 'buffers', 'constants'].map((k) => [k, st[k]?.count ?? 0, formatBytes(st[k]?.bytes ?? 0)]);
  rows.push(['custom objects', st.custom_objects ?? 0, '']);
  return table(['state', 'count', 'bytes'], rows, { class: 'state', 'data-testid': 'state' });
}

/**
 * A note for a program JSON given on its own whose methods have state
 * (parameters, buffers, constants): their values are in the archive, not in
 * the JSON, so converting it fails (WEIGHTS_MISSING); say so before.
 */
function loneJsonNote(summary) {
  let count = 0;
  let bytes = 0;
  for (const m of summary.methods ?? []) {
    for (const k of ['parameters', 'buffers', 'constants']) {
      count += m.state?.[k]?.count ?? 0;
      bytes += m.state?.[k]?.bytes ?? 0;
    }
  }
  if (!count) return null;
  return h('p', { class: 'warnings', 'data-testid': 'lone-json' },
    `This is a program JSON on its own: the values of its ${count} parameter${count === 1 ? '' : 's'}, buffer${count === 1 ? '' : 's'} and constant${count === 1 ? '' : 's'} (${formatBytes(bytes)}) are not in it but in the .pt2 archive it came from. To convert, drop that .pt2 instead.`);
}

function renderSummary(file, summary, { archive = true } = {}) {
  const body = $('summary-body');
  fill(body, 
    h('p', { class: 'file', 'data-testid': 'file-info' }, h('strong', {}, file.name), ` — ${formatBytes(file.size)}, ${summary.methods.length} method${summary.methods.length === 1 ? '' : 's'}`),
    archive ? null : loneJsonNote(summary),
    ...summary.methods.map((m) => h('article', { class: 'method', 'data-method': m.name },
      h('h3', {}, 'Method ', h('code', {}, m.name),
        h('span', { class: 'meta' }, ` schema ${m.schema_version}, torch ${m.torch_version ?? '?'}, ${(m.verifiers ?? []).join('/') || 'no verifier'}, ${m.node_count} nodes`)),
      (m.warnings ?? []).length
        ? h('div', { class: 'warnings', 'data-testid': 'warnings' }, h('h4', {}, 'Problems found on import'),
          h('ul', {}, m.warnings.map((w) => h('li', {}, typeof w === 'string' ? w : `${w.code ?? ''} ${w.message ?? jsonText(w)}`))))
        : null,
      h('div', { class: 'grid' },
        h('div', {}, h('h4', {}, 'Inputs'), table(['name', 'kind', 'target', 'dtype', 'shape'], ioRows(m.inputs ?? []), { 'data-testid': 'inputs' }),
          h('h4', {}, 'Outputs'), table(['name', 'kind', 'target', 'dtype', 'shape'], ioRows(m.outputs ?? []), { 'data-testid': 'outputs' }),
          (m.symbols ?? []).length ? h('p', { class: 'note' }, 'Symbols: ', m.symbols.map((x) => typeof x === 'string' ? x : jsonText(x)).join(', ')) : null),
        h('div', {}, h('h4', {}, 'Operators'), table(['operator', 'count'], (m.ops ?? []).map((o) => [o.target, o.count]), { 'data-testid': 'ops' }),
          h('h4', {}, 'State'), stateTable(m.state ?? {})),
        h('div', {}, h('h4', {}, 'Modules'), moduleTree(m.modules))))),
  );
  $('summary').hidden = false;
}

// ---------------------------------------------------------------- decoded .pte

/** The load check's line (and its first problems): what ExecuTorch's runtime would refuse. */
function checkView(check) {
  if (!check) return h('p', {});
  if (check.passed) {
    return h('p', { class: 'check ok', 'data-testid': 'pte-check' },
      `ExecuTorch load check passed: ${check.methods} method${check.methods === 1 ? '' : 's'} would load`);
  }
  return h('div', { class: 'check failed', 'data-testid': 'pte-check' },
    h('p', {}, `ExecuTorch load check failed: ${check.total} problem${check.total === 1 ? '' : 's'}`),
    h('ul', {}, ...check.problems.slice(0, 10).map((p) =>
      h('li', {}, h('code', {}, p.pointer), `: ${p.message}${p.atExecution ? ' (when the method runs)' : ''}`))));
}

/** The decoded .pte (`view`: pte_view.mjs pteView; `json`: the decoded JSON as a Blob, the download). */
function renderDecoded(view, json, name, check) {
  const f = view.file ?? {};
  const body = $('decoded-body');
  const url = URL.createObjectURL(json);
  state.urls.push(url);
  fill(body, 
    h('p', { class: 'file', 'data-testid': 'pte-info' },
      h('strong', {}, name), ` — ${formatBytes(f.size ?? 0)}, identifier ${f.identifier ?? '?'}, program ${formatBytes(f.program_size ?? 0)}, segments ${formatBytes(f.segment_data_size ?? 0)}, `,
      `${view.plans.length} plan(s) `,
      h('a', { href: url, download: `${name.replace(/\.pte$/i, '')}.decoded.json`, 'data-testid': 'download-decoded' }, 'download decoded JSON')),
    checkView(check),
    ...view.plans.map((plan) => h('article', { class: 'plan', 'data-plan': plan.name },
      h('h3', {}, 'Execution plan ', h('code', {}, plan.name),
        h('span', { class: 'meta' }, ` inputs [${plan.inputs.join(', ')}], outputs [${plan.outputs.join(', ')}], buffers [${plan.buffers.join(', ')}]`)),
      h('div', { class: 'grid' },
        h('div', {}, h('h4', {}, `Operators (${plan.operators.length})`),
          table(['#', 'operator', 'overload'], plan.operators, { 'data-testid': 'pte-operators' })),
        h('div', { class: 'wide' }, h('h4', {}, 'Instructions'),
          capped(h('ol', { class: 'instructions', start: 0, 'data-testid': 'pte-instructions' }),
            plan.instructions, (text) => h('li', {}, h('code', {}, text)), 'instructions'))),
      h('details', {}, h('summary', {}, `Values (${plan.values.length})`),
        table(['#', 'type', 'value'], plan.values, { 'data-testid': 'pte-values' })))),
  );
  $('decoded').hidden = false;
}

// ---------------------------------------------------------------- options

/**
 * Runs of consecutive passes of one group, in list order: [{group, passes}].
 * listPasses() gives the default pipeline in its order, so the checkboxes
 * read top to bottom in the order the passes run.
 */
function groupRuns(passes) {
  const runs = [];
  for (const p of passes) {
    const g = p.group ?? '';
    if (!runs.length || runs[runs.length - 1].group !== g) runs.push({ group: g, passes: [] });
    runs[runs.length - 1].passes.push(p);
  }
  return runs;
}

function renderOptions(summary) {
  const box = $('passes');
  if (Array.isArray(passList) && passList.length) {
    // Checkboxes of the default pipeline, in its order and checked; passes
    // not implemented yet cannot be picked. The ticked ones are sent in this
    // order. A choice made for an earlier file is kept.
    const kept = new Map([...box.querySelectorAll('input[name=pass]')].map((b) => [b.value, b.checked]));
    const pipeline = passList.filter((p) => p.default === true);
    const others = passList.filter((p) => p.default !== true);
    const row = (p) => {
      const usable = p.implemented !== false;
      const input = h('input', { type: 'checkbox', name: 'pass', value: p.name, checked: usable, disabled: !usable, 'data-default': usable ? 'true' : 'false' });
      if (usable && kept.has(p.name)) input.checked = kept.get(p.name);
      return h('label', { class: 'pass' }, input, ' ', h('code', {}, p.name), ' ',
        h('span', { class: 'desc' }, (p.summary ?? p.description ?? '') + (usable ? '' : ' (not implemented yet)')));
    };
    fill(box,
      groupRuns(pipeline).map((r) => h('div', { class: 'pass-group' }, r.group ? h('h4', {}, r.group) : null, r.passes.map(row))),
      // Sub-passes run inside other passes (swap_modules); they have no place
      // of their own in the pipeline, so they are named, not offered.
      others.length
        ? h('p', { class: 'note', 'data-testid': 'sub-passes' }, 'Run by other passes, not on their own here: ',
          others.flatMap((p, i) => [i ? ', ' : '', h('code', { title: p.summary ?? '' }, p.name)]),
          ' (the CLI\'s --passes can place them).')
        : null);
  } else {
    fill(box, h('label', {}, 'Pass list (empty: the default pipeline) ',
      h('input', { id: 'pass-list', type: 'text', size: 60, placeholder: 'default pipeline', spellcheck: 'false' })));
  }
  const canConvert = moduleInfo?.features?.includes('convert');
  $('convert').disabled = !canConvert;
  $('convert-note').textContent = canConvert ? '' : 'This build of the pteforge package cannot convert yet; the summary above is all it can show.';
  renderSwaps(summary);
  $('options').hidden = false;
}

/**
 * One row per replacement file, each with a module to replace; rows kept
 * keep their choice. Only modules with a preserved call signature
 * (inspect's preserved_calls: exported with preserve_module_call_signature)
 * can be swapped, so only they are offered.
 */
function renderSwaps(summary) {
  const paths = [...new Set((summary?.methods ?? []).flatMap((m) => (m.preserved_calls ?? []).map((c) => c.fqn)).filter((p) => typeof p === 'string' && p !== ''))];
  $('swap-drop').hidden = paths.length === 0;
  const chosen = [...document.querySelectorAll('select[data-swap]')].map((sel) => sel.value);
  const rows = state.swapFiles.map((file, i) => {
    const select = h('select', { 'data-swap': i },
      h('option', { value: '' }, '(do not swap)'), paths.map((p) => h('option', { value: p }, p)));
    if (paths.includes(chosen[i])) select.value = chosen[i];
    return h('div', { class: 'swap' }, h('label', {}, 'replace ', select), ' with ', h('strong', {}, file.name));
  });
  fill($('swap-rows'), ...rows);
  $('swaps').hidden = rows.length === 0;
}

/** The convert options from the form; throws {code: OPTION_INVALID} for a bad JSON field. */
function readOptions() {
  const opts = {
    memoryPlanning: $('memory-planning').value,
    initBuffers: $('init-buffers').checked,
    stackTraces: $('stack-traces').checked,
    // Opt-in: at 100k nodes the program JSON is some 400 MB and most of the time.
    exportProgram: $('export-program').checked,
  };
  // Checkboxes: a pass list only when it differs from the default pipeline.
  const boxes = [...document.querySelectorAll('input[name=pass]')];
  if (boxes.some((b) => b.checked !== (b.dataset.default === 'true'))) {
    opts.passes = boxes.filter((b) => b.checked).map((b) => b.value);
    if (!opts.passes.length) {
      throw { code: 'OPTION_INVALID', message: 'no pass is ticked: tick the passes to run (all of them is the default pipeline)', where: {}, notes: [] };
    }
  }
  const list = $('pass-list')?.value.trim();
  if (list) opts.passes = list.split(/[\s,]+/).filter(Boolean);
  const cm = $('constant-methods').value.trim();
  if (cm) {
    try {
      JSON.parse(withoutNonFinite(cm));  // a syntax error is shown before anything runs
    } catch (e) {
      throw { code: 'OPTION_INVALID', message: `constant methods: ${e.message}`, where: { pointer: '/constantMethods' }, notes: [] };
    }
    // The text itself, not JSON.parse's object: the core reads it as the
    // CLI's --constant-method does, so 2.0 stays a float and 2^53 + 1 exact.
    opts.constantMethods = cm;
  }
  return opts;
}

/**
 * `text` with each NaN, Inf or Infinity (signed or not) outside strings
 * read as 0: the core reads those tokens (as the CLI's --constant-method does) and
 * JSON.parse does not, so the page's early syntax check must not refuse them.
 */
function withoutNonFinite(text) {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; ++i) {
    const c = text[i];
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    const token = ['-Infinity', 'Infinity', '-Inf', 'Inf', '-NaN', 'NaN'].find((t) => text.startsWith(t, i));
    if (token) {
      out += '0'.padEnd(token.length);  // same length: JSON.parse's positions stay right
      i += token.length - 1;
      continue;
    }
    out += c;
  }
  return out;
}

/**
 * {module path: replacement File} from the swap rows. Throws
 * {code: OPTION_INVALID} when two rows replace one module.
 */
function readSwaps() {
  const swaps = new Map();  // any module path is a key, "constructor" included
  for (const sel of document.querySelectorAll('select[data-swap]')) {
    if (!sel.value) continue;
    const file = state.swapFiles[Number(sel.dataset.swap)];
    if (swaps.has(sel.value)) {
      const pointer = `/swaps/${sel.value.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      throw { code: 'OPTION_INVALID', message: `module '${sel.value}' is replaced twice (by ${swaps.get(sel.value).name} and by ${file.name}); choose one`, where: { pointer }, notes: [] };
    }
    swaps.set(sel.value, file);
  }
  return Object.fromEntries(swaps);
}

// ---------------------------------------------------------------- convert

function progressFor(stage) {
  let row = document.querySelector(`#progress [data-stage="${CSS.escape(stage)}"]`);
  if (!row) {
    row = h('div', { class: 'stage', 'data-stage': stage }, h('span', {}, stage), h('progress', { max: 1, value: 0 }));
    $('progress').append(row);
  }
  return row.querySelector('progress');
}

async function convert() {
  if (!state.file || state.busy) return;
  $('error').hidden = true;
  $('results').hidden = true;
  $('decoded').hidden = true;
  fill($('progress'), );
  let options;
  let swaps;
  try {
    options = readOptions();
    swaps = readSwaps();
  } catch (e) {
    await showError(e);
    finished();
    return;
  }
  state.busy = true;
  $('convert').disabled = true;
  revokeUrls();  // the previous result's downloads and decoded view are replaced
  setStatus('busy', `Converting ${state.file.name}…`);
  try {
    const r = await call({ op: 'convert', file: state.file, options, swaps }, (p) => {
      const bar = progressFor(p.stage);
      bar.max = Math.max(1, p.total);
      bar.value = p.done;
    });
    for (const bar of document.querySelectorAll('#progress progress')) bar.value = bar.max;
    renderResults(r);
    renderDecoded(r.view, r.decodedJson, outputName(), r.check);
    setFinalStatus('ready', `Converted ${state.file.name}.`);
  } catch (e) {
    await showError(e, fileOfError(e?.where));
    setFinalStatus('ready', 'Conversion failed; see the error below.');
  } finally {
    state.busy = false;
    $('convert').disabled = false;
    finished();
  }
}

function outputName() {
  return state.file.name.replace(/\.(pt2|json|zip)$/i, '') + '.pte';
}

function download(blob, name, testid) {
  const url = URL.createObjectURL(blob);
  state.urls.push(url);
  return h('a', { href: url, download: name, class: 'button', 'data-testid': testid }, `${name} (${formatBytes(blob.size)})`);
}

function renderResults(r) {
  const base = outputName().replace(/\.pte$/, '');
  // The texts the CLI writes (--metadata, --export-program), exact to the last digit.
  fill($('downloads'),
    download(r.pte, outputName(), 'download-pte'), ' ',
    download(r.metadataJson, `${base}.metadata.json`, 'download-metadata'), ' ',
    r.programJson ? download(r.programJson, `${base}.program.json`, 'download-program') : null);
  fill($('report'), renderReport(r.report));
  fill($('memory'), ...r.memory.map(renderMemory));
  $('results').hidden = false;
}

// ---------------------------------------------------------------- input

async function openFile(file, extra = []) {
  if (!file) return;
  if (state.busy) {  // one call at a time: say so rather than drop the file silently
    const names = [file, ...extra].map((f) => f.name);
    notTaken.push(...names);
    setStatus('busy', `Still working on ${state.file?.name ?? 'the last file'}: open ${names.join(', ')} again when it is done.`);
    return;
  }
  notTaken.push(...extra.map((f) => f.name));
  resetView();
  state.file = file;
  state.inspect = null;
  state.swapFiles = [];
  state.busy = true;
  setStatus('busy', `Reading ${file.name}…`);
  try {
    const r = await call({ op: 'open', file });
    if (r.kind === 'pte') {
      renderDecoded(r.view, r.decodedJson, file.name, r.check);
      setFinalStatus('ready', `${file.name}: an ExecuTorch program.`);
    } else {
      state.inspect = r.inspect;
      const head = new Uint8Array(await file.slice(0, 2).arrayBuffer());
      renderSummary(file, r.inspect, { archive: head[0] === 0x50 && head[1] === 0x4b });
      renderOptions(r.inspect);
      setFinalStatus('ready', `${file.name}: ready to convert.`);
    }
  } catch (e) {
    await showError(e, file);
    setFinalStatus('ready', `${file.name} could not be read; see the error below.`);
  } finally {
    state.busy = false;
    finished();
  }
}

function wireDrop(zone, input, onFiles) {
  zone.addEventListener('dragover', (e) => {
    e.preventDefault();
    zone.classList.add('over');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    zone.classList.remove('over');
    const files = [...(e.dataTransfer?.files ?? [])];
    if (files.length) onFiles(files);
  });
  zone.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      input.click();
    }
  });
  input.addEventListener('change', () => {
    const files = [...input.files];
    input.value = '';
    if (files.length) onFiles(files);
  });
}

wireDrop($('drop'), $('file'), (files) => openFile(files[0], files.slice(1)));
wireDrop($('swap-drop'), $('swap-file'), (files) => {
  state.swapFiles.push(...files);
  renderSwaps(state.inspect);
});
// Whatever fails in the page itself is shown too, never a blank page.
window.addEventListener('error', (e) => showError({ code: 'INTERNAL', message: `the page failed: ${e.message}`, where: {}, notes: [] }));
window.addEventListener('unhandledrejection', (e) => showError(e.reason?.code ? e.reason : { code: 'INTERNAL', message: `the page failed: ${e.reason?.message ?? e.reason}`, where: {}, notes: [] }));
// A file dropped outside the zones must not navigate away from the page.
window.addEventListener('dragover', (e) => e.preventDefault());
window.addEventListener('drop', (e) => e.preventDefault());
$('options-form').addEventListener('submit', (e) => {
  e.preventDefault();
  convert();
});

ready.then((m) => {
  if (!m.ready) {
    showError(m.error);
    setStatus('error', 'The converter could not be loaded.');
    return;
  }
  moduleInfo = m.ready;
  passList = m.passes ?? null;
  $('version').textContent = `pteforge ${moduleInfo.version} (Emscripten ${moduleInfo.emscripten}).`;
  setStatus('ready', 'Ready. Drop a file to begin.');
});
