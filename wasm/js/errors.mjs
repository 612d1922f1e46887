// PteforgeError: the one error the package throws (design.md "Errors are
// values"). The C++ core returns an Error value {code, message, where, notes};
// the wrapper turns it into this class at exactly one place (fromErrorJson),
// as sql.js does in handleError (engineering-notes B3).

/** Order of the `where` keys in the one-line form. */
const WHERE_ORDER = ['method', 'entry', 'byte_offset', 'pointer', 'node', 'pass', 'source'];

/**
 * `text` with each control character (U+0000-U+001F, U+007F-U+009F) written as
 * "\xNN", as the CLI prints them (control_escaped in core/support/error.cpp).
 */
export function controlEscaped(text) {
  const hex = (n) => `\\x${n.toString(16).padStart(2, '0')}`;
  // C1 controls (U+0080..U+009F) as their UTF-8 bytes, as the CLI writes them.
  return String(text).replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => {
    const n = c.charCodeAt(0);
    return n < 0x80 ? hex(n) : hex(0xc2) + hex(n);
  });
}

/** The error every pteforge call rejects or throws with. */
export class PteforgeError extends Error {
  /**
   * @param {string} code stable UPPER_SNAKE code (core/support/error_codes.def)
   * @param {string} message what was expected and what was found
   * @param {object} [where] place in the input: pointer, node, entry, byte_offset, method, source, pass
   * @param {string[]} [notes] extra lines of context
   * @param {unknown} [cause] the underlying JS error, for INTERNAL errors
   */
  constructor(code, message, where = {}, notes = [], cause = undefined) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'PteforgeError';
    this.code = code;
    this.where = where;
    this.notes = notes;
  }

  /**
   * What the CLI prints for the same error: "CODE: message (method=… entry=…
   * byte_offset=… pointer=… node=… pass=… source=…)" then "\n  note: …"
   * per note (Error::to_string in core/support/error.cpp).
   */
  toString() {
    const where = this.where ?? {};
    // The empty pointer (the whole document) is written "" as the CLI writes it.
    const shown = (k) => (k === 'pointer' && where[k] === '' ? '""' : where[k]);
    const keys = WHERE_ORDER.filter((k) => where[k] !== undefined).map((k) => `${k}=${shown(k)}`);
    let out = `${this.code}: ${controlEscaped(this.message)}`;
    if (keys.length) out += ` (${controlEscaped(keys.join(' '))})`;
    for (const note of this.notes ?? []) out += `\n  note: ${controlEscaped(note)}`;
    return out;
  }

  /** {code, message, where, notes}: what crosses a worker boundary. */
  toJSON() {
    return { code: this.code, message: this.message, where: this.where, notes: this.notes };
  }
}

/** Rebuilds a PteforgeError from its toJSON() form or the core's Error JSON text. */
export function fromErrorJson(json) {
  const e = typeof json === 'string' ? JSON.parse(json) : json;
  return new PteforgeError(e.code, e.message, e.where ?? {}, e.notes ?? []);
}

/** An INTERNAL error wrapping an unexpected JS exception (`cause`). */
export function internalError(message, cause) {
  return new PteforgeError('INTERNAL', message, {}, [], cause);
}

/** A size in words: "N MiB" (one decimal where it has a fraction) from 1 MiB up, else "N bytes". */
function sizeText(bytes) {
  const MiB = 2 ** 20;
  return bytes >= MiB ? `${Number((bytes / MiB).toFixed(1))} MiB` : `${bytes} bytes`;
}

/**
 * The OUT_OF_MEMORY error of a module that ran out of WebAssembly memory
 * (wasm/src/out_of_memory.cpp marks it, then aborts): `requested` is the
 * allocation that failed (0: not known), `limit` the module's maximum memory
 * (emscripten_get_heap_max), `held` the memory it held then (HEAPU8.length);
 * `cause` is the abort.
 */
export function outOfMemoryError({ requested, limit, held }, cause) {
  const more = requested > 0 ? `${sizeText(requested)} more` : 'more';
  return new PteforgeError('OUT_OF_MEMORY',
    `the converter ran out of WebAssembly memory: it held ${sizeText(held)} and could not get ${more} (WebAssembly memory is limited to ${sizeText(limit)} here, less where the engine gives less, and to under 2 GiB in one block); use a smaller model, or the native pteforge CLI, which has no such limit`,
    {}, [], cause);
}

/**
 * A new Uint8Array of `length` bytes for `what` ("the .pte's program part"):
 * the engine's RangeError for an array it cannot allocate (past its
 * ArrayBuffer limit, or out of memory) becomes PteforgeError OUT_OF_MEMORY
 * naming the size, as the module's own allocation failures are.
 */
export function newBytes(length, what) {
  try {
    return new Uint8Array(length);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    throw new PteforgeError('OUT_OF_MEMORY',
      `could not allocate ${sizeText(length)} of JavaScript memory for ${what} (${e.message}); use the native pteforge CLI for a file this large`,
      {}, [], e);
  }
}

/**
 * The `where` of an options error: its JSON pointer, none for '' (the options
 * as a whole, or a value that is no option, such as input.name).
 */
export function optionAt(pointer) {
  return pointer ? { pointer } : {};
}

/** The text of a value the caller threw (a getter or Proxy trap's), never throwing itself. */
function thrownText(e) {
  try {
    return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  } catch {
    return 'an exception that cannot be shown';
  }
}

/**
 * What `read()` returns. An exception it throws that is no PteforgeError (the
 * caller's getter or Proxy trap failing while its options are read) becomes
 * OPTION_INVALID "`what` could not be read: …" at JSON pointer `pointer`
 * (no pointer when it is '', the options themselves).
 */
export function readCallerValue(what, pointer, read) {
  try {
    return read();
  } catch (e) {
    if (e instanceof PteforgeError) throw e;
    throw new PteforgeError('OPTION_INVALID', `${what} could not be read: ${thrownText(e)}`, optionAt(pointer));
  }
}
