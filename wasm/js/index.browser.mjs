// Browser and Web Worker entry of the pteforge package (the "default" export
// condition).
//
// The core is synchronous. Inside a worker it runs right here: Blob/File
// inputs are read by range with FileReaderSync, so a multi-GB .pt2 is never
// read whole, and the .pte comes back as a Blob whose weight parts are slices
// of the input File (design.md "Weights never cross into WASM whole").
// On a page's main thread createPteforge() starts an internal module worker
// (worker.mjs next to this file) and forwards every call to it; the page
// never blocks. The .wasm is fetched next to pteforge.mjs
// (new URL('pteforge.wasm', import.meta.url)) unless wasmUrl/locateFile says
// otherwise; serve it as application/wasm (engineering-notes E12).

import { Core, keepStderr, pointerToken, snapshotOptions } from './api.mjs';
import { PteforgeError, fromErrorJson, optionAt } from './errors.mjs';
import { makeConverter } from './instance.mjs';
import { BlobSource, isBlob } from './sources.mjs';
import createPteforgeModule from './pteforge.mjs';

export { PteforgeError };

/** True inside a dedicated/shared/service worker. */
const IN_WORKER = typeof WorkerGlobalScope !== 'undefined' && globalThis instanceof WorkerGlobalScope;

/** The methods the worker proxy forwards. */
const FORWARDED = ['convert', 'inspect', 'listModules', 'decodePte', 'layout', 'listPasses', 'wasmMemoryBytes'];

/** The .pte as a Blob: made bytes and slices of the input (no copy of a File's weights). */
function assembleBlob(chunks, sources) {
  const parts = chunks.map((c) => (c instanceof Uint8Array ? c : sources[c.source].part(c.offset, c.length)));
  return new Blob(parts, { type: 'application/octet-stream' });
}

function moduleArgs(options) {
  const args = {};
  if (options.wasmBinary) args.wasmBinary = options.wasmBinary;
  if (options.locateFile) {
    args.locateFile = options.locateFile;
  } else if (options.wasmUrl) {
    const url = String(options.wasmUrl);
    args.locateFile = (path, prefix) => (path.endsWith('.wasm') ? url : prefix + path);
  }
  if (options.print) args.print = options.print;
  args.stderr = [];
  args.printErr = options.printErr ?? keepStderr(args.stderr);
  return args;
}

/** A converter running on this thread. */
async function createDirect(options) {
  const { stderr, ...args } = moduleArgs(options);
  const syncBlobs = typeof FileReaderSync !== 'undefined';
  const env = {
    stderr,
    loadModule: () => createPteforgeModule({ ...args }),
    openSource: (value) => (syncBlobs && isBlob(value) ? new BlobSource(value) : null),
    // Without FileReaderSync (a main thread with {worker: false}) a Blob is read whole first.
    prepare: async (value) => (!syncBlobs && isBlob(value) ? new Uint8Array(await value.arrayBuffer()) : value),
    assemble: assembleBlob,
  };
  const core = new Core(env);
  try {
    await core.ready();
  } catch (e) {
    throw (await missingWasm(options)) ?? e;
  }
  return makeConverter(core, env);
}

/**
 * After a failed load: IO_ERROR naming the .wasm's URL when fetching it
 * fails (a wrong wasmUrl, a server without the file), which Emscripten
 * reports as an abort ("expected magic word", "both async and sync fetching
 * of the wasm failed"); null when the file is there (the load failed otherwise).
 */
async function missingWasm(options) {
  if (options.wasmBinary) return null;
  let url;
  try {
    const here = new URL('./', import.meta.url).href;
    url = String(options.locateFile ? options.locateFile('pteforge.wasm', here) : (options.wasmUrl ?? new URL('pteforge.wasm', import.meta.url)));
    url = new URL(url, here).href;
  } catch {
    return null;
  }
  let why = null;
  try {
    const r = await fetch(url);
    if (!r.ok) why = `HTTP ${r.status}${r.statusText ? ` ${r.statusText}` : ''}`;
    await r.body?.cancel();
  } catch (e) {
    why = String(e?.message ?? e);
  }
  return why ? new PteforgeError('IO_ERROR', `cannot fetch the WebAssembly module "${url}": ${why}`, { entry: url }) : null;
}

/**
 * Strips what cannot be posted (functions) and says whether progress was
 * asked for. Errors: snapshotOptions' (a throwing getter or Proxy trap).
 */
function postable(options) {
  options = snapshotOptions(options);
  if (!options || typeof options !== 'object') return { options, progress: null };
  const { onProgress, ...rest } = options;
  return { options: rest, progress: typeof onProgress === 'function' ? onProgress : null };
}

/**
 * The JSON pointer of the first part of `value` that postMessage's structured
 * clone refuses (a function, a Symbol, a DOM node...), descending into
 * arrays and plain objects: '' for `value` itself, null when it all clones or
 * structuredClone is missing. A getter that throws is the part that fails.
 */
function uncloneablePointer(value, pointer = '', depth = 0) {
  if (typeof structuredClone !== 'function') return null;
  try {
    structuredClone(value);
    return null;
  } catch {
    // look inside it for the part that fails
  }
  const proto = value !== null && typeof value === 'object' ? Object.getPrototypeOf(value) : undefined;
  if (depth < 64 && (Array.isArray(value) || proto === Object.prototype || proto === null)) {
    for (const key of Object.keys(value)) {
      let item;
      try {
        item = value[key];
      } catch {
        return `${pointer}/${pointerToken(key)}`;
      }
      const found = uncloneablePointer(item, `${pointer}/${pointerToken(key)}`, depth + 1);
      if (found !== null) return found;
    }
  }
  return pointer;
}

/**
 * The error of a call whose arguments postMessage refused with `e`: options
 * are named by the pointer of the part that fails (OPTION_INVALID, as the
 * in-thread converter names a value that is no JSON); else the input.
 */
function unsendableError(args, e) {
  const reason = `${e?.name ?? 'Error'}: ${e?.message ?? e}`;
  const at = args.length > 1 ? uncloneablePointer(args[1]) : null;
  if (at !== null) {
    return new PteforgeError('OPTION_INVALID',
      `option ${at || '(options)'} cannot be sent to the pteforge worker (${reason}); options are JSON values (finite numbers, strings, booleans, null, lists and plain objects)`,
      optionAt(at));
  }
  return new PteforgeError('OPTION_INVALID', `the input cannot be sent to the worker: ${reason}`);
}

/**
 * A converter that forwards every call to an internal module worker. close()
 * lets the calls under way finish, then stops the worker (its WebAssembly
 * memory goes with it); a later call starts a new one, so the converter works
 * after close() as the in-thread one does.
 */
async function createProxy(options) {
  const url = options.workerUrl ?? new URL('./worker.mjs', import.meta.url);
  // The worker loads the .wasm itself; only URLs (strings) and bytes can be posted.
  const init = { wasmBinary: options.wasmBinary };
  if (options.locateFile) init.wasmUrl = String(options.locateFile('pteforge.wasm', ''));
  else if (options.wasmUrl) init.wasmUrl = String(options.wasmUrl);
  let nextId = 1;

  /** One worker: its pending calls, and the error that broke it (then every call fails with it). */
  const spawn = () => {
    const worker = new Worker(url, { type: 'module', name: 'pteforge' });
    // waiting: calls that wait for the worker to load before they are sent.
    const session = { worker, pending: new Map(), waiting: 0, broken: null, idle: null };
    const settled = () => {
      if (session.pending.size === 0 && session.waiting === 0 && session.idle) session.idle();
    };
    session.settled = settled;
    session.failAll = (error) => {
      session.broken = error;
      for (const { reject } of session.pending.values()) reject(error);
      session.pending.clear();
      settled();
    };
    worker.addEventListener('message', (event) => {
      const { id, ok, value, error, progress } = event.data ?? {};
      const call = session.pending.get(id);
      if (!call) return;
      if (progress) {
        try {
          call.onProgress?.(progress);
        } catch {
          // the caller's progress callback failing does not stop the conversion
        }
        return;
      }
      session.pending.delete(id);
      if (ok) call.resolve(value);
      else call.reject(fromErrorJson(error));
      settled();
    });
    worker.addEventListener('error', (event) => {
      event.preventDefault?.();
      session.failAll(new PteforgeError('INTERNAL', `the pteforge worker failed: ${event.message ?? 'could not be loaded'}`));
    });
    worker.addEventListener('messageerror', () => {
      session.failAll(new PteforgeError('INTERNAL', 'a message from the pteforge worker could not be read'));
    });
    session.send = (op, args, onProgress = null) => {
      if (session.broken) return Promise.reject(session.broken);
      const id = nextId++;
      return new Promise((resolve, reject) => {
        session.pending.set(id, { resolve, reject, onProgress });
        try {
          worker.postMessage({ id, op, args, progress: !!onProgress });
        } catch (e) {
          session.pending.delete(id);
          reject(unsendableError(args, e));
          settled();
        }
      });
    };
    session.ready = session.send('init', [init]);
    session.ready.catch(() => {}); // the call that needs it reports the failure
    return session;
  };

  let current = spawn();
  let closing = null; // the close() under way (a second close() waits for it too)
  let info;
  try {
    info = await current.ready;
  } catch (e) {
    current.worker.terminate();
    throw e;
  }

  /** Sends one call to the current worker session (a new one after close()), once it has loaded. */
  const call = async (op, args, onProgress) => {
    if (!current) current = spawn();
    const session = current;
    session.waiting++;
    try {
      await session.ready;
    } catch (e) {
      session.waiting--;
      session.settled();
      throw e;
    }
    session.waiting--;
    const result = session.send(op, args, onProgress);
    session.settled(); // a call refused before it was sent leaves nothing pending
    return result;
  };

  const converter = {
    get info() {
      return info;
    },
    /** Lets the calls under way finish, then stops the worker; a later call starts a new one. */
    close() {
      const session = current;
      if (!session) return closing ?? Promise.resolve();
      current = null;
      closing = (async () => {
        if (session.pending.size > 0 || session.waiting > 0) await new Promise((resolve) => { session.idle = resolve; });
        session.worker.terminate();
      })();
      return closing;
    },
  };
  for (const op of FORWARDED) {
    converter[op] = (input, opts) => {
      let posted;
      try {
        posted = postable(opts);
      } catch (e) {
        return Promise.reject(e);
      }
      return call(op, op === 'wasmMemoryBytes' || op === 'listPasses' ? [] : [input, posted.options], posted.progress);
    };
  }
  return converter;
}

/**
 * Creates an independent converter. options: {worker?: boolean (default:
 * true on a main thread, false inside a worker), wasmUrl?, locateFile?,
 * wasmBinary?, workerUrl?, print?, printErr?}.
 */
export async function createPteforge(options = {}) {
  options = snapshotOptions(options ?? {}, 'createPteforge options');
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw new PteforgeError('OPTION_INVALID', 'createPteforge options must be an object');
  }
  const useWorker = options.worker ?? (!IN_WORKER && typeof Worker !== 'undefined');
  return useWorker ? createProxy(options) : createDirect(options);
}

let shared = null;
/** One converter per page or worker, created on first use. */
export function getPteforge() {
  shared ??= createPteforge().catch((e) => {
    shared = null;
    throw e;
  });
  return shared;
}

