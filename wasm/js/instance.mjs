// The public converter object over a Core (api.mjs): async methods for every
// environment, plus *Sync twins where the core runs on this thread (Node, a
// worker). The main-thread browser API (index.browser.mjs) forwards the async
// methods to a worker holding one of these.

import { PteforgeError } from './errors.mjs';
import { closeSources, pointerToken, snapshotOptions, withJsonTexts } from './api.mjs';

/** options.name when it is a string (checked by the method itself otherwise). */
function optionName(options) {
  return options && typeof options === 'object' && typeof options.name === 'string' ? options.name : undefined;
}

/**
 * @param core  a loaded Core
 * @param env   {assemble(chunks, sources, options) → pte, prepareOptions?(options) → Promise<options>}
 */
/**
 * Runs `write()`, which turns the convert result's `chunks` into the .pte (a
 * value or a file), as the "assemble" stage of options.onProgress: 0 of the
 * chunks before, all after. A throwing progress callback is ignored. Returns
 * what write() returns.
 */
export function assembling(options, chunks, write) {
  const progress = (done) => {
    if (typeof options?.onProgress !== 'function') return;
    try {
      options.onProgress({ stage: 'assemble', done, total: chunks.length });
    } catch {
      // the caller's progress callback failing does not stop the conversion
    }
  };
  progress(0);
  const out = write();
  progress(chunks.length);
  return out;
}

export function makeConverter(core, env) {
  const prepareOptions = async (options, opened) => {
    if (!options || typeof options !== 'object' || !options.swaps || typeof options.swaps !== 'object' || Array.isArray(options.swaps)) return options;
    const swaps = Object.create(null);  // "__proto__" is a module name like any other
    for (const [fqn, value] of Object.entries(snapshotOptions(options.swaps, 'options.swaps', '/swaps'))) {
      try {
        swaps[fqn] = await core.prepareInput(value, undefined, { opened });
      } catch (e) {
        // Which input failed: the core says the same of the replacements it opens.
        if (e instanceof PteforgeError) {
          if (e.code === 'OPTION_INVALID' && !e.where?.pointer) e.where = { ...e.where, pointer: `/swaps/${pointerToken(fqn)}` };
          e.notes.push(`while opening the replacement for module '${fqn}' (options.swaps)`);
        }
        throw e;
      }
    }
    return { ...options, swaps };
  };
  // Async form of a sync method: reload a poisoned instance and await what
  // the inputs need (a .pt2's directory read, and its deflated entries
  // inflated, by zip.js: zip.mjs); the sources opened for that are closed
  // when the call ends, whatever happens. `optionsAt` is the index of the
  // options argument (convertToFile(input, path, options)); `zip: false`
  // (decodePte) reads the input as plain bytes.
  const lift = (sync, optionsAt = 1, { zip = true, check } = {}) => async (...args) => {
    await core.ready();
    const opened = [];
    try {
      args[optionsAt] = snapshotOptions(args[optionsAt]);
      check?.(args[optionsAt]);  // bad options are refused before the input is read
      args[0] = await core.prepareInput(args[0], optionName(args[optionsAt]), { zip, opened });
      if (zip) args[optionsAt] = await prepareOptions(args[optionsAt], opened);
      // Another call may have failed and dropped the instance while this one
      // awaited: wait for the reload (checked and called with no await between).
      while (!core.loaded) await core.ready();
      return sync(...args);
    } finally {
      closeSources(opened);
    }
  };

  const convertSync = (input, options = {}) => {
    options = snapshotOptions(options);
    const { chunks, sources, metadataText, report, programText } = core.convertChunks(input, options);
    try {
      const pte = assembling(options, chunks, () => env.assemble(chunks, sources, options));
      return withJsonTexts({ pte }, report, metadataText, programText);
    } finally {
      closeSources(sources);
    }
  };
  const inspectSync = (input, options) => core.inspect(input, options);
  const listModulesSync = (input, options) => core.listModules(input, options);
  const decodePteSync = (input, options) => core.decodePte(input, options);
  const layoutSync = (input, options) => core.layout(input, options);
  const listPassesSync = () => core.listPasses();

  const converter = {
    /** {name, version, emscripten, features, errorCodes} */
    get info() {
      return core.info;
    },
    convert: lift(convertSync, 1, { check: (o) => core.checkConvertOptions(o) }),
    inspect: lift(inspectSync),
    listModules: lift(listModulesSync),
    decodePte: lift(decodePteSync, 1, { zip: false }),
    layout: lift(layoutSync),
    async listPasses() {
      await core.ready();
      return listPassesSync();
    },
    convertSync,
    inspectSync,
    listModulesSync,
    decodePteSync,
    layoutSync,
    listPassesSync,
    /** Bytes of WebAssembly memory held now (grows, never shrinks). */
    async wasmMemoryBytes() {
      return core.wasmMemoryBytes();
    },
    wasmMemoryBytesSync() {
      return core.wasmMemoryBytes();
    },
    /** Nothing to free (no embind classes); present so callers can be uniform with the worker proxy. */
    async close() {},
  };
  for (const [name, fn] of Object.entries(env.extraMethods?.(core, lift) ?? {})) converter[name] = fn;
  return converter;
}

export { PteforgeError };
