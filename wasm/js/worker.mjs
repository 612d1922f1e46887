// The internal module worker behind the main-thread browser API
// (index.browser.mjs). It holds one converter running on this thread, where
// Blob/File inputs can be read by range with FileReaderSync. Protocol:
//   page → worker  {id, op, args, progress}   op: init | convert | inspect | ...
//   worker → page  {id, ok: true, value} | {id, ok: false, error: {code, message, where, notes}}
//                  {id, progress: {stage, done, total}} while a call runs
// Calls are answered in order; the core runs one at a time.

import { PteforgeError, createPteforge } from './index.browser.mjs';

const OPS = new Set(['convert', 'inspect', 'listModules', 'decodePte', 'layout', 'listPasses', 'wasmMemoryBytes']);
let converter = null;

function errorJson(e) {
  if (e instanceof PteforgeError) return e.toJSON();
  return { code: 'INTERNAL', message: `pteforge worker: ${e?.message ?? e}`, where: {}, notes: [] };
}

async function handle({ id, op, args = [], progress }) {
  if (op === 'init') {
    const [init = {}] = args;
    converter = await createPteforge({ worker: false, wasmBinary: init.wasmBinary, wasmUrl: init.wasmUrl });
    return converter.info;
  }
  if (!OPS.has(op)) throw new PteforgeError('INTERNAL', `pteforge worker: unknown operation "${op}"`);
  if (!converter) throw new PteforgeError('INTERNAL', 'pteforge worker: not initialised');
  if (op === 'wasmMemoryBytes' || op === 'listPasses') return converter[op]();
  const [input, options] = args;
  const opts = progress
    ? { ...(options ?? {}), onProgress: (p) => self.postMessage({ id, progress: p }) }
    : options;
  return converter[op](input, opts);
}

// One call at a time, in arrival order.
let queue = Promise.resolve();
self.addEventListener('message', (event) => {
  const message = event.data ?? {};
  queue = queue.then(async () => {
    try {
      const value = await handle(message);
      self.postMessage({ id: message.id, ok: true, value });
    } catch (e) {
      self.postMessage({ id: message.id, ok: false, error: errorJson(e) });
    }
  });
});
