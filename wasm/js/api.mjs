// The wrapper over the raw embind functions (manifold's bindings.js layer,
// engineering-notes B1/D9), shared by the Node entry, the browser entry and
// the worker. It owns: turning inputs into byte sources and an input
// description for the core, the range-read and inflate callbacks, error
// translation (one place), the instance lifecycle (an abort poisons the
// instance; it is recreated before the next call, E10), and assembling the
// .pte from the chunk list the core returns.
//
// Everything here is synchronous once the module is loaded: the core is.
// The async methods prepare what needs awaiting first (a Blob where no
// FileReaderSync exists; a .pt2, whose zip directory zip.js reads and whose
// deflated entries it inflates, zip.mjs) and reload a poisoned instance.

import { PteforgeError, fromErrorJson, internalError, newBytes, optionAt, outOfMemoryError, readCallerValue } from './errors.mjs';
import { parseJson } from './json.mjs';
import { BytesSource, asBytes, isBlob } from './sources.mjs';
import { MAX_INFLATE_ENTRY, TOO_BIG, ZipInput, readZip, sniffZip } from './zip.mjs';

const decoder = new TextDecoder();

/**
 * The default name of an input in error locations (where.entry) when the
 * caller gives none and the input has none (a File has its name).
 */
const DEFAULT_NAME = 'input';

/**
 * A plain copy (own enumerable properties) of `value` when it is an object
 * and no array; else `value` itself. Read once, so later reads cannot run the
 * caller's getters or Proxy traps again. Errors: OPTION_INVALID naming `what`
 * when one of them throws.
 */
export function snapshotOptions(value, what = 'options', pointer = '') {
  return readCallerValue(what, pointer, () =>
    value !== null && typeof value === 'object' && !Array.isArray(value) ? { ...value } : value);
}

/**
 * snapshotOptions of `value`, {} for undefined. Errors: OPTION_INVALID naming
 * `what` when it is no object, and snapshotOptions'.
 */
function checkObject(value, what, pointer = '') {
  const copy = snapshotOptions(value, what, pointer);
  if (copy !== undefined && (copy === null || typeof copy !== 'object' || Array.isArray(copy))) {
    throw new PteforgeError('OPTION_INVALID', `${what} must be an object`, optionAt(pointer));
  }
  return copy ?? {};
}

/**
 * True when `s` holds a UTF-16 surrogate without its pair: no Unicode text,
 * so it has no UTF-8 form for the core (TextEncoder would replace it).
 */
function hasLoneSurrogate(s) {
  if (typeof s.isWellFormed === 'function') return !s.isWellFormed();
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);
}

/**
 * OPTION_INVALID "`what` holds a lone UTF-16 surrogate ...`tail`" at `where`
 * when the string `s` is no Unicode text (hasLoneSurrogate); else nothing.
 */
export function requireUnicode(s, what, where = {}, tail = '') {
  if (hasLoneSurrogate(s)) {
    throw new PteforgeError('OPTION_INVALID', `${what} holds a lone UTF-16 surrogate (half of a pair), which is no Unicode text${tail}`, where);
  }
}

/** JSON pointer token of an object key (RFC 6901). */
export function pointerToken(key) {
  return String(key).replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * OPTION_INVALID for the first key of `rest` (the options a method did not
 * take) whose value is not undefined: "unknown option", as the core says
 * for convert's, inspect's and listModules' options.
 */
function rejectUnknownOptions(rest) {
  const key = Object.keys(rest).find((k) => rest[k] !== undefined);
  if (key !== undefined) {
    throw new PteforgeError('OPTION_INVALID', `unknown option "${key}"`, { pointer: `/${pointerToken(key)}` });
  }
}

/**
 * A plain-object input ({data, name}, {files}, {path}) read once into a
 * copy, so that a throwing getter or Proxy trap is an OPTION_INVALID naming
 * the input, not a raw error; any other value as it is.
 */
function snapshotInput(input) {
  if (input === null || typeof input !== 'object' || Array.isArray(input) || !isPlainObject(input)) return input;
  const copy = readCallerValue('the input', '', () => ({ ...input }));
  if (typeof copy.path === 'string') requireUnicode(copy.path, 'the input path', {}, ' (no file has that name)');
  // A misspelt field is refused, as in a {files} input (checked where it is read),
  // not dropped: {data, nmae} would otherwise name the input "model.json".
  const fields = 'files' in copy ? null
    : 'data' in copy ? ['data', 'name']
      : typeof copy.path === 'string' ? ['path'] : null;
  const unknown = fields && Object.keys(copy).find((k) => !fields.includes(k) && copy[k] !== undefined);
  if (unknown) {
    throw new PteforgeError('OPTION_INVALID', `unknown field "${unknown}" in a {${fields[0]}} input (it has ${fields.join(' and ')})`);
  }
  return copy;
}

/** True for {} and Object.create(null) objects (not Map, Date, class instances, typed arrays). */
function isPlainObject(value) {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Nesting optionsJson follows: the core's JSON reader's limit (serde::kMaxJsonDepth),
 * with its message (the core refuses constant methods past 64 levels itself).
 */
const MAX_OPTION_DEPTH = 1024;

/**
 * The JSON text of the option values `value` (options travel to the core as
 * JSON), refusing what JSON.stringify would silently change or drop: a
 * NaN/Infinity (→ null), a function or Symbol, an undefined list item, and
 * objects that are no plain objects (a Map or Set → {}, a Date → a string).
 * A BigInt is an int, written exactly (this package's parsed objects hold
 * integers past 2^53 as BigInt); one past int64 is refused, as a number past
 * int64 is. An undefined object field is "not given", as before. Errors:
 * OPTION_INVALID with the option's JSON pointer (none for options nested
 * deeper than MAX_OPTION_DEPTH, as the core says, instead of a stack overflow).
 */
export function optionsJson(value, pointer = '', depth = 0) {
  return readCallerValue(pointer ? `option ${pointer}` : 'options', pointer, () => optionJsonAt(value, pointer, depth));
}

/** optionsJson for one value; a throwing getter or Proxy trap escapes to optionsJson. */
function optionJsonAt(value, pointer, depth) {
  if (depth > MAX_OPTION_DEPTH) {
    throw new PteforgeError('OPTION_INVALID', `options are nested deeper than ${MAX_OPTION_DEPTH} levels`);
  }
  const bad = (what) => new PteforgeError('OPTION_INVALID',
    `option ${pointer || '(options)'} is ${what}; options are JSON values (finite numbers, strings, booleans, null, lists and plain objects)`,
    optionAt(pointer));
  if (typeof value === 'string') requireUnicode(value, `option ${pointer || '(options)'}`, optionAt(pointer));
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw bad(String(value));
    // A number without a fraction is an int (ExecuTorch's Int is int64). One
    // past int64 is refused here: JSON.stringify writes it as an integer up
    // to 1e21 and with an exponent beyond, and the core reads integers past
    // uint64 as floats, so it could not tell.
    if (Number.isInteger(value) && Math.abs(value) >= 2 ** 63) {
      throw new PteforgeError('OPTION_INVALID',
        `option ${pointer || '(options)'} is ${JSON.stringify(value)}, an integer that does not fit int64 (a number without a fraction is an int)`,
        optionAt(pointer));
    }
    // Past 2^53 JSON.stringify writes the shortest decimal that reads back as
    // the same double (2 ** 62 as 4611686018427388000); the int is the double's
    // exact value (4611686018427387904).
    if (Number.isInteger(value) && !Number.isSafeInteger(value)) return BigInt(value).toString();
    return JSON.stringify(value);
  }
  if (typeof value === 'bigint') {
    // An int past 2^53 (as this package's parsed objects hold them): exact, if it fits int64.
    if (value < -(2n ** 63n) || value >= 2n ** 63n) {
      throw new PteforgeError('OPTION_INVALID',
        `option ${pointer || '(options)'} is ${value}, an integer that does not fit int64`, optionAt(pointer));
    }
    return value.toString();
  }
  if (typeof value !== 'object') throw bad(describe(value));
  // Each item is read once, under its own pointer (a getter may throw).
  const item = (at, read) => readCallerValue(`option ${at}`, at, read);
  if (Array.isArray(value)) {
    const items = [];
    for (let i = 0, n = value.length; i < n; i += 1) {
      const at = `${pointer}/${i}`;
      const v = item(at, () => value[i]);  // a hole reads as undefined
      if (v === undefined) throw new PteforgeError('OPTION_INVALID', `option ${at} is undefined (a list item needs a value)`, { pointer: at });
      items.push(optionsJson(v, at, depth + 1));
    }
    return `[${items.join(',')}]`;
  }
  if (!isPlainObject(value)) throw bad(describe(value));
  const fields = [];
  for (const key of Object.keys(value)) {
    const at = `${pointer}/${pointerToken(key)}`;
    requireUnicode(key, `the key of option ${at}`, { pointer: at });
    const v = item(at, () => value[key]);
    if (v === undefined) continue;
    fields.push(`${JSON.stringify(key)}:${optionsJson(v, at, depth + 1)}`);
  }
  return `{${fields.join(',')}}`;
}

/**
 * The options JSON of inspect() and listModules(): `rest` with format "text"
 * or "json" from options.text. Errors: OPTION_INVALID when text is no
 * boolean, and optionsJson's.
 */
function textOptionsJson(text, rest) {
  checkText(text);
  // format is how this wrapper tells the core about `text`, no option of the caller's.
  if (rest.format !== undefined) rejectUnknownOptions({ format: rest.format });
  return optionsJson({ ...rest, format: text ? 'text' : 'json' });
}

/** OPTION_INVALID when options.text is no boolean. */
function checkText(text) {
  if (typeof text !== 'boolean') {
    throw new PteforgeError('OPTION_INVALID', `options.text must be a boolean; got ${describe(text)}`, { pointer: '/text' });
  }
}

/**
 * The [path, value] pairs of a {files} input: an object's entries, or for a
 * list (File[] from a folder picker) each File's webkitRelativePath or name
 * (file<i> for nameless values). Errors: OPTION_INVALID for a list naming
 * one path twice, or files that are neither a list nor an object.
 */
function fileEntries(files) {
  if (!Array.isArray(files)) {
    const entries = Object.entries(checkObject(files, 'input.files'));
    for (const [path] of entries) requireUnicode(path, 'a path of input.files');
    return entries;
  }
  const seen = new Set();
  return files.map((f, i) => {
    const path = f?.webkitRelativePath || f?.name || `file${i}`;
    if (typeof path === 'string') requireUnicode(path, `input.files[${i}]'s name`);
    if (seen.has(path)) throw new PteforgeError('OPTION_INVALID', `input.files names "${path}" twice`, { entry: path });
    seen.add(path);
    return [path, f];
  });
}

/**
 * `value` when it is a string (null and undefined: absent); else
 * OPTION_INVALID naming `what`. Input names travel to the core as text.
 */
function checkName(value, what, pointer) {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') {
    throw new PteforgeError('OPTION_INVALID', `${what} must be a string; got ${describe(value)}`, optionAt(pointer));
  }
  requireUnicode(value, what, optionAt(pointer));
  return value;
}

/**
 * Marks a {files} input this wrapper made from a folder path (Node): only
 * such an input may carry `program` (the models/*.json it names) and
 * `unlisted` (the folder's items that are no files, with why); a caller's
 * {files} has `files` and `name` only.
 */
export const FOLDER_INPUT = Symbol('pteforge folder input');

/** Lines of the module's stderr kept for the next INTERNAL error's notes. */
const KEPT_STDERR_LINES = 8;

/**
 * A printErr for the Emscripten module that keeps its last lines in `lines`
 * instead of writing to the console: a library should not print. Emscripten
 * itself prints there only when it fails (an abort, a .wasm that does not
 * compile), and those lines become notes of the INTERNAL error.
 */
export function keepStderr(lines) {
  return (text) => {
    lines.push(String(text));
    if (lines.length > KEPT_STDERR_LINES) lines.shift();
  };
}

/**
 * A loaded module plus everything to use it synchronously. `env` supplies
 * what differs between Node, workers and main threads (and `stderr`: the
 * lines keepStderr keeps, when the caller gave no printErr):
 *   loadModule(): Promise<EmscriptenModule>
 *   openSource(value): a source for values only this environment knows
 *                      (Node: {path}, workers: Blob), or null
 *   prepare(value): Promise<value> making a value openable (e.g. Blob → bytes
 *                   where no FileReaderSync exists); identity otherwise
 *   assemble(chunks, sources, options): the `pte` value of a convert result
 */
export class Core {
  #env;
  #module = null;
  #loading = null;
  #info = null;

  constructor(env) {
    this.#env = env;
  }

  /** Loads (or reloads after an abort) the WASM instance. */
  async ready() {
    if (this.#module) return this;
    this.#loading ??= this.#env.loadModule().then(
      (m) => {
        this.#module = m;
        this.#loading = null;
        this.#info ??= JSON.parse(m._version());
      },
      (e) => {
        this.#loading = null;
        throw this.#withPrinted(internalError(`the pteforge WebAssembly module failed to load: ${e?.message ?? e}`, e));
      },
    );
    await this.#loading;
    return this;
  }

  /** {name, version, emscripten, features, errorCodes} of the loaded module. */
  get info() {
    return this.#info;
  }

  /** True while a loaded instance is held (false while one reloads after a failure). */
  get loaded() {
    return this.#module !== null;
  }

  /** Bytes of WebAssembly memory the instance holds now (it never shrinks, E9). */
  wasmMemoryBytes() {
    return this.#module ? this.#module.HEAPU8.length : 0;
  }

  /**
   * Runs `fn(module)`. A PteforgeError passes through; anything else (an
   * abort or trap: RuntimeError, a JS error escaping a callback) poisons the
   * instance, which is dropped and reloaded before the next async call, and
   * surfaces as PteforgeError INTERNAL, or OUT_OF_MEMORY when the module
   * marked the abort as a failed allocation (wasm/src/out_of_memory.cpp).
   */
  #call(fn) {
    const m = this.#module;
    if (!m) {
      throw new PteforgeError('INTERNAL', 'the pteforge instance is reloading after an earlier failure; call an async method (they wait for the reload) before the *Sync ones');
    }
    try {
      return fn(m);
    } catch (e) {
      if (e instanceof PteforgeError) throw e;
      this.#module = null;
      const oom = m.pteforgeOutOfMemory;
      let error;
      if (oom) {
        // What the module printed is its "Aborted()": no news after this message.
        this.#env.stderr?.splice(0);
        error = outOfMemoryError({ requested: oom.requested, limit: oom.limit, held: m.HEAPU8.length }, e);
      } else {
        error = this.#withPrinted(internalError(`the pteforge core failed (${e?.name ?? 'Error'}: ${e?.message ?? e}); the instance was reset, please report this with the input`, e));
      }
      this.ready().catch(() => {});
      throw error;
    }
  }

  /** `error` with what the module printed to stderr since the last one (env.stderr, see keepStderr) as notes. */
  #withPrinted(error) {
    const lines = this.#env.stderr;
    if (lines?.length) error.notes = [...error.notes, ...lines.splice(0).map((l) => `the module printed: ${l}`)];
    return error;
  }

  /**
   * Makes an input openable where that needs awaiting (a Blob without
   * FileReaderSync is read first) and, unless `zip` is false, reads a zip
   * input (.pt2) with zip.js: it becomes a ZipInput (zip.mjs) holding its
   * open source, which is pushed to `opened` (the caller closes it).
   * `name` is options.name. Errors: those of readZip (zip.mjs).
   */
  async prepareInput(input, name, { zip = true, opened = [] } = {}) {
    const env = this.#env;
    input = snapshotInput(input);
    if (input && typeof input === 'object' && 'files' in input && !isBlob(input)) {
      // A File list becomes {path: prepared}: preparing (a Blob read into
      // bytes where no FileReaderSync exists) loses the File's name.
      const out = {};
      for (const [k, v] of fileEntries(input.files)) out[k] = await env.prepare(v);
      return { ...input, files: out };
    }
    // A File read into bytes keeps its name for error locations (options.name,
    // or a {data, name}'s own, still come first).
    const fileName = (v) => (isBlob(v) && typeof v.name === 'string' && v.name) || undefined;
    let prepared;
    if (input && typeof input === 'object' && 'data' in input && !isBlob(input)) {
      const data = readCallerValue('the input', '', () => input.data);
      prepared = { ...input, data: await env.prepare(data) };
      if (prepared.data !== data && prepared.name === undefined && name === undefined && fileName(data)) {
        prepared.name = fileName(data);
      }
    } else {
      const bytes = await env.prepare(input);
      prepared = bytes !== input && name === undefined && fileName(input) ? { data: bytes, name: fileName(input) } : bytes;
    }
    if (!zip || env.expandInput?.(prepared)) return prepared;
    // One input: a zip is read now (zip.js is asynchronous); anything else,
    // or an input that cannot be opened, is left to openInput and the core.
    const { value, inputName } = splitInput(prepared, name);
    let source;
    try {
      source = this.#openValue(value, 'the input');
    } catch {
      return prepared;
    }
    let isZip = false;
    try {
      isZip = sniffZip(source);
    } catch {
      // a failing read is reported by the core, with its location
    }
    if (!isZip) {
      closeSources([source]);
      return prepared;
    }
    opened.push(source);
    return readZip(source, inputName || defaultName(value, source));
  }

  /** A byte source for one input value. Errors: OPTION_INVALID for a value of no input kind. */
  #openValue(value, what, method = 'convert') {
    const special = this.#env.openSource(value);
    if (special) return special;
    const bytes = asBytes(value);
    if (bytes) return new BytesSource(bytes);
    if (isBlob(value)) {  // only where a Blob cannot be read synchronously (Node, a main thread)
      throw new PteforgeError('OPTION_INVALID',
        `${what} is a Blob/File, which only the async methods can read here: use ${method}(), not ${method}Sync()`);
    }
    // {path} with a path that is no string: name the field, not "an object".
    if (this.#env.extraInputKinds && value !== null && typeof value === 'object' && 'path' in value &&
        typeof value.path !== 'string') {
      throw new PteforgeError('OPTION_INVALID',
        `${what} is a {path} whose path is not a string (a file path): got ${describe(value.path)}`);
    }
    throw new PteforgeError('OPTION_INVALID',
      `${what} must be a Uint8Array, an ArrayBuffer, a string, a Blob/File${this.#env.extraInputKinds ?? ''}; got ${describe(value)}`);
  }

  /**
   * Opens `input` into byte sources (appended to `sources`) and returns the
   * description the core reads (wasm/src/js_input.h). Accepted: bytes
   * (Uint8Array, ArrayBuffer, views), a string (program JSON text), a
   * Blob/File (workers), {data, name}, {files: {path: bytes|Blob|string} |
   * File[], name} (an unpacked archive), whatever env.openSource knows
   * (Node: {path}), and a ZipInput (a .pt2 prepareInput read with zip.js).
   * A zip that was not prepared is UNSUPPORTED_FEATURE (zip.js is
   * asynchronous: `method`Sync cannot read one), unless `raw` (decodePte:
   * the bytes are not an archive). On error the sources opened so far are closed.
   */
  openInput(input, name, sources, { method = 'convert', raw = false } = {}) {
    name = checkName(name, 'options.name', '/name');
    input = snapshotInput(input);
    if (input instanceof ZipInput) {
      input.source.inflated = input.inflated;
      return input.description(sources.push(input.source) - 1);
    }
    // A {path} may name an unpacked archive (a folder, or models/*.json in
    // one); decodePte reads a path as the one file it names, as the CLI does.
    if (!raw) input = this.#env.expandInput?.(input) ?? input;
    const add = (source) => sources.push(source) - 1;
    const open = (value, what) => this.#openValue(value, what, method);
    try {
      if (input && typeof input === 'object' && 'files' in input && !isBlob(input)) {
        const files = fileEntries(input.files).map(([path, value]) => {
          const source = open(value, `input.files["${path}"]`);
          return { name: path, source: add(source), size: source.size };
        });
        const description = { kind: 'files', name: checkName(input.name, 'input.name', '') ?? name ?? 'files', files };
        if (input[FOLDER_INPUT]) {
          if (typeof input.program === 'string') description.program = input.program;
          // A folder's items that are no files, with why (index.node.mjs folderFiles).
          if (input.unlisted && typeof input.unlisted === 'object') description.unlisted = input.unlisted;
        } else {
          const unknown = Object.keys(input).find((k) => k !== 'files' && k !== 'name' && input[k] !== undefined);
          if (unknown !== undefined) {
            throw new PteforgeError('OPTION_INVALID', `unknown field "${unknown}" in a {files} input (it has files and name)`);
          }
        }
        return description;
      }
      const split = splitInput(input, name);
      const source = open(split.value, 'the input');
      const inputName = split.inputName || defaultName(split.value, source);
      add(source);
      if (!raw && looksLikePath(split.value)) {
        // The core's error for text that is no JSON object, with the likely mistake named.
        throw new PteforgeError('ARCHIVE_INVALID', `"${inputName}" is neither a zip archive (.pt2) nor a program JSON`, { entry: inputName },
          [`a string input is program JSON text, and this one reads like a file path: give {path: ${JSON.stringify(split.value)}} (Node), or the File itself (browser)`]);
      }
      let isZip = false;
      try {
        isZip = !raw && sniffZip(source);
      } catch {
        // a failing read is reported by the core, with its location
      }
      if (isZip) {
        throw new PteforgeError('UNSUPPORTED_FEATURE',
          `"${inputName}" is a .pt2 (zip) archive, which is read with zip.js, an asynchronous library: use ${method}(), not ${method}Sync()`,
          { entry: inputName }, ['the *Sync methods read program JSON and unpacked folders ({files}, or a folder path in Node)']);
      }
      return { kind: 'auto', name: inputName, source: sources.length - 1, size: source.size };
    } catch (e) {
      closeSources(sources);
      throw e;
    }
  }

  /**
   * Calls raw(module, read, inflate) → {ok, ...}, a raw function that reads
   * `sources` through the callbacks. Returns the result; throws its error
   * as PteforgeError. Closes the sources when it throws.
   */
  #withSources(sources, raw) {
    // Callbacks never throw into C++ (engineering-notes E6): they answer "" or a message.
    const read = (source, offset, dst) => {
      try {
        sources[source].read(offset, dst);
        return '';
      } catch (e) {
        return String(e?.reason ?? e?.message ?? e);
      }
    };
    // Deflated entries were inflated by zip.js while the input was prepared (zip.mjs).
    const inflate = (source, offset, compressed, dst) => {
      const bytes = sources[source]?.inflated?.get(offset);
      if (bytes === TOO_BIG) {
        return `it is deflated to ${compressed} bytes and inflates to ${dst.length}; the npm package inflates deflated entries ahead of a call only up to ${MAX_INFLATE_ENTRY} bytes (512 MiB in all): store the archive uncompressed, as torch.export does`;
      }
      if (!bytes) return `no inflated bytes for the entry at offset ${offset} (the wrapper did not read this archive with zip.js)`;
      if (bytes.length !== dst.length) return `it inflates to ${bytes.length} bytes, not the recorded ${dst.length}`;
      dst.set(bytes);
      return '';
    };
    try {
      const result = this.#call((m) => raw(m, read, inflate));
      if (!result.ok) throw fromErrorJson(result.error);
      return result;
    } catch (e) {
      closeSources(sources);
      throw e;
    }
  }

  /** Opens `input`, runs raw(module, descriptionJson, read, inflate) and closes the sources. */
  #withInput(input, name, method, raw) {
    const sources = [];
    const description = JSON.stringify(this.openInput(input, name, sources, { method }));
    const result = this.#withSources(sources, (m, read, inflate) => raw(m, description, read, inflate));
    closeSources(sources);
    return result;
  }

  /**
   * Decodes a .pte. Only the program part is copied into the heap (segment
   * data is not read), as `pteforge decode` does.
   * options: {format: 'json' | 'flatc-json' | 'summary' | 'check', text: boolean, name}
   * ('check': what ExecuTorch's runtime would refuse, as `decode --check`:
   * {passed, methods, total, problems: [{pointer, message, atExecution}]}).
   */
  decodePte(input, options = {}) {
    const { format = 'json', text = false, name, ...unknown } = checkObject(options ?? undefined, 'options');
    rejectUnknownOptions(unknown);
    checkText(text);
    const kinds = { json: 'json', 'flatc-json': 'flatc', summary: 'summary', check: 'check' };
    if (typeof format !== 'string' || !Object.hasOwn(kinds, format)) {
      throw new PteforgeError('OPTION_INVALID', `options.format must be "json", "flatc-json", "summary" or "check"; got ${describe(format)}`, { pointer: '/format' });
    }
    const sources = [];
    const description = this.openInput(input, name, sources, { raw: true, method: 'decodePte' });
    try {
      if (description.kind === 'files') {
        throw new PteforgeError('OPTION_INVALID', 'decodePte reads one .pte (bytes, a Blob or {path}), not a set of files', { entry: description.name });
      }
      const source = sources[0];
      const entry = description.name;
      const head = new Uint8Array(Math.min(64, source.size));
      source.read(0, head);
      const prefix = this.#call((m) => m._ptePrefixSize(head, source.size));
      const bytes = newBytes(prefix, "the .pte's program part");
      source.read(0, bytes);
      // check with text: the lines `decode --check` prints.
      const kind = format === 'check' && text ? 'check_text' : kinds[format];
      const result = this.#call((m) => m._decodePte(bytes, source.size, entry, kind));
      if (!result.ok) throw fromErrorJson(result.error);
      return text || format === 'summary' ? result.text : parseJson(result.text);
    } finally {
      closeSources(sources);
    }
  }

  /** The archive layout of an input: {kind, root, byteorder, models, entries}. */
  layout(input, options = {}) {
    const { name, ...unknown } = checkObject(options ?? undefined, 'options');
    rejectUnknownOptions(unknown);
    const result = this.#withInput(input, name, 'layout', (m, d, read, inflate) => m._layout(d, read, inflate));
    return parseJson(result.text);
  }

  /** The features the loaded module has ("decodePte", "inspect", "convert", ...). */
  has(feature) {
    return this.#info?.features.includes(feature) ?? false;
  }

  requireFeature(feature, method) {
    if (!this.has(feature)) {
      throw new PteforgeError('UNSUPPORTED_FEATURE', `${method} is not available in this build of pteforge (the core does not have "${feature}" yet)`);
    }
  }

  /** inspect(input, {text, name, method}): the CLI's `inspect` summary (object, or text). */
  inspect(input, options = {}) {
    this.requireFeature('inspect', 'inspect()');
    const { name, text = false, ...rest } = checkObject(options ?? undefined, 'options');
    const json = textOptionsJson(text, rest);
    const result = this.#withInput(input, name, 'inspect', (m, d, read, inflate) => m._inspect(d, read, inflate, json));
    return text ? result.text : parseJson(result.text);
  }

  /** Every registered pass: [{name, summary, group, implemented, default}]. */
  listPasses() {
    this.requireFeature('listPasses', 'listPasses()');
    return JSON.parse(this.#call((m) => m._listPasses()));
  }

  /** listModules(input, {name, method, text}): the module tree of a program (for swaps). */
  listModules(input, options = {}) {
    this.requireFeature('listModules', 'listModules()');
    const { name, text = false, ...rest } = checkObject(options ?? undefined, 'options');
    const json = textOptionsJson(text, rest);
    const result = this.#withInput(input, name, 'listModules', (m, d, read, inflate) => m._listModules(d, read, inflate, json));
    return text ? result.text : parseJson(result.text);
  }

  /**
   * Converts. `options.swaps` maps module FQNs to replacement inputs (any
   * input form). Returns {chunks, sources, metadataText, report, programText?}
   * (metadataText: the metadata JSON, for lazyJson)
   * (program: with options.exportProgram): the caller
   * assembles `chunks` (Uint8Array pieces and {source, offset, length}
   * ranges of `sources`) into the .pte, then closes the sources.
   */
  /**
   * Checks convert's options as the core reads them (names, values, an
   * unknown option), without any input: the async methods call it before a
   * .pt2 is read, as the CLI refuses a bad flag first. Returns
   * {name, onProgress, swapValues, rest}. Errors: OPTION_INVALID.
   */
  checkConvertOptions(options = {}) {
    this.requireFeature('convert', 'convert()');
    const { name, onProgress, swaps, ...rest } = checkObject(options ?? undefined, 'options');
    if (onProgress !== undefined && typeof onProgress !== 'function') {
      throw new PteforgeError('OPTION_INVALID', 'options.onProgress must be a function', { pointer: '/onProgress' });
    }
    // A swap given as null or undefined is not given, as for any option.
    const swapValues = Object.entries(checkObject(swaps ?? undefined, 'options.swaps', '/swaps'))
      .filter(([, value]) => value !== undefined && value !== null);
    const json = optionsJson(rest);
    for (const [fqn] of swapValues) requireUnicode(fqn, 'a module name in options.swaps', { pointer: `/swaps/${pointerToken(fqn)}` });
    const checked = this.#call((m) => (typeof m._checkConvertOptions === 'function' ? m._checkConvertOptions(json) : { ok: true }));
    if (!checked.ok) throw fromErrorJson(checked.error);
    return { name, onProgress, swapValues, rest };
  }

  convertChunks(input, options = {}, method = 'convert') {
    // Everything about the options is checked before any input is opened
    // (an error then leaves no file descriptor open).
    const { name, onProgress, swapValues, rest } = this.checkConvertOptions(options);
    const sources = [];
    const description = this.openInput(input, name, sources, { method });
    // No prototype: a module named "__proto__" is an own key like any other.
    const swapInputs = Object.create(null);
    for (const [fqn, value] of swapValues) {
      try {
        swapInputs[fqn] = this.openInput(value, undefined, sources, { method });
      } catch (e) {
        // Name the swap, as the CLI does for every error here: the message
        // alone reads as if the main input were wrong.
        if (e instanceof PteforgeError) {
          if (e.code === 'OPTION_INVALID' && !e.where?.pointer) e.where = { ...e.where, pointer: `/swaps/${pointerToken(fqn)}` };
          e.notes = [...(e.notes ?? []), `while opening the replacement for module '${fqn}' (options.swaps)`];
        }
        throw e;
      }
    }
    const json = optionsJson({ ...rest, swaps: swapInputs });
    const progress = (stage, done, total) => {
      if (!onProgress) return;
      try {
        onProgress({ stage, done, total });
      } catch {
        // A throwing progress callback must not unwind C++ frames (E6).
      }
    };
    const result = this.#withSources(sources,
      (m, read, inflate) => m._convert(JSON.stringify(description), read, inflate, json, progress));
    return {
      chunks: chunksFromTable(result.chunks),
      sources,
      metadataText: result.metadata,
      report: parseJson(result.report),
      // The CLI ends the file with a newline.
      ...(result.program !== undefined ? { programText: `${result.program}\n` } : {}),
    };
  }
}

/** {value, inputName}: the bytes-like value of a single input and its given name ({data, name} or options.name). */
function splitInput(input, name) {
  if (input && typeof input === 'object' && 'data' in input && !isBlob(input)) {
    // Read once each (a class instance's getters were not snapshotted).
    const value = readCallerValue('the input', '', () => input.data);
    const given = readCallerValue('the input', '', () => input.name);
    return { value, inputName: checkName(given, 'input.name', '') ?? name };
  }
  return { value: input, inputName: name };
}

/**
 * True for a string input that cannot be program JSON (its first character
 * after white space is no "{", "[" or quote) and reads like a file path (one
 * line, at most 4096 characters): convert('/models/m.pt2') instead of {path}.
 */
function looksLikePath(value) {
  return typeof value === 'string' && value.length <= 4096 && !value.includes('\n') && /^\s*[^\s{["]/.test(value);
}

/** The name of an input given none: a File's name, a path, "model.json" for JSON text, or DEFAULT_NAME. */
function defaultName(value, source) {
  return (isBlob(value) && value.name) || source.name || (typeof value === 'string' ? 'model.json' : DEFAULT_NAME);
}

/**
 * Makes `obj[key]` the value of the JSON `text`, parsed when first read
 * (and then kept; assigning replaces it). The metadata of a large program is
 * tens of MB of JSON (22 MB at 100k nodes, ~70 ms to parse): a caller that
 * only writes the .pte does not pay for it. The property stays enumerable,
 * so spreading, JSON.stringify and postMessage see the parsed value.
 * A key already in `obj` keeps its place in the key order.
 */
export function lazyJson(obj, key, text) {
  let value;
  let pending = true;
  Object.defineProperty(obj, key, {
    enumerable: true,
    configurable: true,
    get() {
      if (pending) {
        value = parseJson(text);
        pending = false;
        text = null;
      }
      return value;
    },
    set(v) {
      value = v;
      pending = false;
      text = null;
    },
  });
  return obj;
}

/**
 * A conversion's result: `head`'s fields, `metadata` (lazyJson) and its exact text
 * `metadataText`, and with options.exportProgram `program` (lazyJson) and
 * `programText`. The texts are byte for byte what the CLI's --metadata and
 * --export-program write; the objects keep integers past 2^53 as BigInt.
 */
export function withJsonTexts(head, report, metadataText, programText) {
  // Key order: head's keys, metadata, metadataText, report, program, programText.
  const out = { ...head, metadata: null, metadataText, report };
  if (programText !== undefined) {
    out.program = null;
    out.programText = programText;
    lazyJson(out, 'program', programText);
  }
  return lazyJson(out, 'metadata', metadataText);
}

/** Closes every source (file descriptors in Node). */
export function closeSources(sources) {
  for (const s of sources) {
    try {
      s.close();
    } catch {
      // closing is best effort
    }
  }
}

/**
 * The chunk list of a convert result from the core's {bytes, table}
 * (wasm/src/convert.h chunks_to_js): Uint8Array views of `bytes` for owned
 * runs, {source, offset, length} for input ranges.
 */
export function chunksFromTable({ bytes, table }) {
  const chunks = [];
  for (let i = 0; i + 3 < table.length; i += 4) {
    if (table[i] === 0) chunks.push(bytes.subarray(table[i + 1], table[i + 1] + table[i + 2]));
    else chunks.push({ source: table[i + 1], offset: table[i + 2], length: table[i + 3] });
  }
  return chunks;
}

/** Total size in bytes of a chunk list. */
export function chunksSize(chunks) {
  let n = 0;
  for (const c of chunks) n += c.length;
  return n;
}

/** A short description of a value for error messages. */
export function describe(value) {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return `an object (${value.constructor?.name ?? 'Object'})`;
  if (typeof value === 'bigint' || typeof value === 'symbol' || typeof value === 'function') {
    return `${typeof value} ${String(value).slice(0, 40)}`;
  }
  return `${typeof value} ${JSON.stringify(value)?.slice(0, 40)}`;
}

export { decoder };
