// Byte sources: the JS side of the range-read contract (wasm/src/js_io.h).
// The core asks for byte ranges of an input; a source answers from memory,
// from a Blob (FileReaderSync, in a worker) or, in Node, from a file
// descriptor (index.node.mjs). Weights therefore never travel into the WASM
// heap whole: only the ranges the core asks for do, in bounded pieces.

import { PteforgeError } from './errors.mjs';

const encoder = new TextEncoder();

/**
 * The bytes of `value` as a Uint8Array without copying where possible
 * (Uint8Array, Buffer, other ArrayBuffer views, ArrayBuffer), a string as
 * UTF-8, or null for anything else. Errors: OPTION_INVALID for a detached
 * ArrayBuffer.
 */
export function asBytes(value) {
  // A view of a detached buffer reads as 0 bytes (a DataView's byteLength
  // throws): say why, not "empty". The buffer is looked at before the view.
  if (ArrayBuffer.isView(value) && isDetached(value.buffer)) {
    throw new PteforgeError('OPTION_INVALID', `the ${value.constructor?.name ?? 'view'} given views a detached ArrayBuffer (transferred elsewhere, e.g. by postMessage): it holds no bytes to read`);
  }
  if (value instanceof Uint8Array) return value;
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  if (value instanceof ArrayBuffer) {
    try {
      return new Uint8Array(value);
    } catch {
      // a transferred (postMessage) or otherwise detached buffer cannot be viewed
      throw new PteforgeError('OPTION_INVALID', 'the ArrayBuffer given is detached (transferred elsewhere, e.g. by postMessage): it holds no bytes to read');
    }
  }
  if (typeof SharedArrayBuffer !== 'undefined' && value instanceof SharedArrayBuffer) return new Uint8Array(value);
  if (typeof value === 'string') return encoder.encode(value);
  return null;
}

/** True when `buffer` (an ArrayBuffer) was detached (transferred). */
function isDetached(buffer) {
  if (typeof buffer?.detached === 'boolean') return buffer.detached;
  if (!(buffer instanceof ArrayBuffer)) return false;
  try {
    new Uint8Array(buffer, 0, 0);
    return false;
  } catch {
    return true;
  }
}

/** True for Blob and File (also Node's), without touching the global in old engines. */
export function isBlob(value) {
  return typeof Blob !== 'undefined' && value instanceof Blob;
}

/** A source over bytes in JS memory. */
export class BytesSource {
  constructor(bytes) {
    this.bytes = bytes;
    this.size = bytes.length;
  }
  /** Fills `dst` with the bytes at `offset`. */
  read(offset, dst) {
    if (offset + dst.length > this.size) throw new RangeError(`read past the end (${offset}+${dst.length} > ${this.size})`);
    dst.set(this.bytes.subarray(offset, offset + dst.length));
  }
  /** The bytes [offset, offset+length) as a view (no copy). */
  part(offset, length) {
    return this.bytes.subarray(offset, offset + length);
  }
  close() {}
}

/** Reads of at most this many bytes are served from a read-ahead window. */
export const SMALL_READ = 64 * 1024;
/** Size of the read-ahead window (zip headers and small weights come in a row). */
const WINDOW = 1024 * 1024;

/**
 * A read-ahead window for a source of `size` bytes whose small reads come in
 * order: `load(offset, length)` returns exactly those bytes, once per WINDOW
 * bytes read (the rest of the file when less is left). What it returns needs
 * to stay valid only until the next call (a source may refill one buffer).
 */
export class ReadAheadWindow {
  constructor(size, load) {
    this.size = size;
    this.load = load;
    this.bytes = null;
    this.start = 0;
  }
  /** Fills `dst` with the bytes at `offset` (offset + dst.length <= size). */
  read(offset, dst) {
    const w = this.bytes;
    if (!w || offset < this.start || offset + dst.length > this.start + w.length) {
      this.bytes = null; // a failed load may have overwritten the old window's buffer
      this.bytes = this.load(offset, Math.min(WINDOW, this.size - offset));
      this.start = offset;
    }
    const at = offset - this.start;
    if (this.bytes.length < at + dst.length) throw new Error(`short read: ${this.bytes.length - at} of ${dst.length} bytes at ${offset}`);
    dst.set(this.bytes.subarray(at, at + dst.length));
  }
  clear() {
    this.bytes = null;
  }
}

/**
 * A source over a Blob or File, read synchronously with FileReaderSync
 * (only available in workers, which is why the browser API converts in one).
 */
export class BlobSource {
  constructor(blob) {
    if (typeof FileReaderSync === 'undefined') {
      throw new TypeError('BlobSource needs FileReaderSync (a Web Worker)');
    }
    this.blob = blob;
    this.size = blob.size;
    this.reader = new FileReaderSync();
    this.window = new ReadAheadWindow(this.size, (offset, length) => this.#slice(offset, length));
  }
  #slice(offset, length) {
    return new Uint8Array(this.reader.readAsArrayBuffer(this.blob.slice(offset, offset + length)));
  }
  read(offset, dst) {
    const end = offset + dst.length;
    if (end > this.size) throw new RangeError(`read past the end (${offset}+${dst.length} > ${this.size})`);
    if (dst.length > SMALL_READ) {
      const bytes = this.#slice(offset, dst.length);
      if (bytes.length !== dst.length) throw new Error(`short read: ${bytes.length} of ${dst.length} bytes`);
      dst.set(bytes);
      return;
    }
    this.window.read(offset, dst);
  }
  /** The bytes [offset, offset+length) as a Blob slice (no copy). */
  part(offset, length) {
    return this.blob.slice(offset, offset + length);
  }
  close() {
    this.window.clear();
  }
}
