// The page's worker: every call into pteforge runs here, so the page never
// blocks (engineering-notes D9/D10). Inside a worker the package runs the
// core on this thread and reads a dropped File by range (FileReaderSync).
//
// Protocol (one request at a time, answered in order):
//   page → worker  {id, op, file, options}
//       op "open":    sniffs the file; .pte → {kind:"pte", view, decodedJson: Blob, check}
//                     otherwise → {kind:"program", inspect}
//       op "convert": {pte: Blob, metadataJson: Blob, programJson: Blob|null, report, memory,
//                      view, decodedJson: Blob, check}
//                     (view and memory: pte_view.mjs; the Blobs are the downloads)
//   worker → page  {id, progress: {stage, done, total}} while converting
//                  {id, ok: true, value} | {id, ok: false, error: {code, message, where, notes}}
//   worker → page  {ready: info, passes} once the module loaded, or {ready: null, error}

import { PteforgeError, createPteforge } from './pteforge/dist/index.browser.mjs';
import { memoryView, pteView } from './pte_view.mjs';
import { hasPteIdentifier } from './sniff.mjs';

let pf = null;
const loading = createPteforge().then(
  async (converter) => {
    pf = converter;
    // The pass list with one-line descriptions, where the package has it:
    // [{name, summary, group, implemented, default}].
    let passes = null;
    if (converter.info.features.includes('listPasses') && typeof converter.listPasses === 'function') {
      passes = await converter.listPasses().catch(() => null);
    }
    self.postMessage({ ready: converter.info, passes });
  },
  (e) => {
    self.postMessage({ ready: null, error: errorJson(e) });
  },
);

function errorJson(e) {
  if (e instanceof PteforgeError || (e && typeof e.toJSON === 'function' && e.code)) return e.toJSON();
  return { code: 'INTERNAL', message: String(e?.message ?? e), where: {}, notes: [] };
}

/**
 * "pte" for a .pte, or for a file of another name whose bytes carry an
 * ExecuTorch identifier ("ET" and two digits at offset 4, e.g. ET12); a
 * .json or .pt2 is always a program.
 */
async function sniff(file) {
  const name = file.name ?? '';
  if (/\.pte$/i.test(name)) return 'pte';
  if (/\.(json|pt2)$/i.test(name)) return 'program';
  const head = new Uint8Array(await file.slice(0, 8).arrayBuffer());
  return hasPteIdentifier(head) ? 'pte' : 'program';
}

/** A JSON text as a download (made here: a Blob of a long string took the page's thread most of a second). */
function jsonBlob(text) {
  return new Blob([text], { type: 'application/json' });
}

/** The decoded view of a .pte, and what ExecuTorch's runtime would refuse when loading it (decode --check). */
async function decode(input, name) {
  const decodedJson = jsonBlob(await pf.decodePte(input, { text: true, name }));
  // The object form keeps 64-bit integers exact (BigInt past 2^53); JSON.parse would round them.
  const view = pteView(await pf.decodePte(input, { name }));
  const check = await pf.decodePte(input, { format: 'check', name });
  return { decodedJson, view, check };
}

async function open(file) {
  if ((await sniff(file)) === 'pte') {
    return { kind: 'pte', ...(await decode(file, file.name)) };
  }
  return { kind: 'program', inspect: await pf.inspect(file, { name: file.name }) };
}

async function convert(id, file, options, swaps) {
  if (!pf.info.features.includes('convert')) {
    throw new PteforgeError('UNSUPPORTED_FEATURE', 'this build of the pteforge package cannot convert yet (its features are: ' + pf.info.features.join(', ') + ')');
  }
  const opts = { ...options, name: file.name, onProgress: (p) => self.postMessage({ id, progress: p }) };
  if (swaps && Object.keys(swaps).length) opts.swaps = swaps;
  const result = await pf.convert(file, opts);
  const decoded = await decode(result.pte, 'output.pte');
  // The texts are what the CLI writes (--metadata, --export-program): the downloads.
  return {
    pte: result.pte,
    metadataJson: jsonBlob(result.metadataText),
    programJson: result.programText ? jsonBlob(result.programText) : null,
    report: result.report ?? result.metadata?.pass_report,
    memory: memoryView(result.metadata),
    ...decoded,
  };
}

async function handle({ id, op, file, options, swaps }) {
  await loading;
  if (!pf) throw new PteforgeError('INTERNAL', 'the pteforge module did not load');
  if (op === 'open') return open(file);
  if (op === 'convert') return convert(id, file, options ?? {}, swaps);
  throw new PteforgeError('INTERNAL', `unknown operation "${op}"`);
}

let queue = Promise.resolve();
self.addEventListener('message', (event) => {
  const message = event.data ?? {};
  queue = queue.then(async () => {
    try {
      self.postMessage({ id: message.id, ok: true, value: await handle(message) });
    } catch (e) {
      self.postMessage({ id: message.id, ok: false, error: errorJson(e) });
    }
  });
});
