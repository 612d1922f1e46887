// Byte sources: the JS side of the range-read contract (wasm/src/js_io.h).
// The core asks for byte ranges of an input; a source answers from memory,
// from a Blob (FileReaderSync, in a worker) or, in Node, from a file
// descriptor (index.node.mjs). Weights therefore never travel into the WASM
// heap whole: only the ranges the core asks for do, in bounded pieces.

const encoder = new TextEncoder();

/**
 * The bytes of `value` as a Uint8Array without copying where possible
 * (Uint8Array, Buffer, other ArrayBuffer views, ArrayBuffer), a string as
 * UTF-8, or null for anything else.
 */
export function asBytes(value) {
  if (value instanceof Uint8Array) return value;
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (typeof SharedArrayBuffer !== 'undefined' && value instanceof SharedArrayBuffer) return new Uint8Array(value);
  if (typeof value === 'string') return encoder.encode(value);
  return null;
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
const SMALL_READ = 64 * 1024;
/** Size of the read-ahead window (zip headers of many small entries come in a row). */
const WINDOW = 1024 * 1024;

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
    this.window = null;
    this.windowStart = 0;
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
    const w = this.window;
    if (!w || offset < this.windowStart || end > this.windowStart + w.length) {
      this.windowStart = offset;
      this.window = this.#slice(offset, Math.min(WINDOW, this.size - offset));
    }
    const at = offset - this.windowStart;
    if (this.window.length < at + dst.length) throw new Error('short read from the Blob');
    dst.set(this.window.subarray(at, at + dst.length));
  }
  /** The bytes [offset, offset+length) as a Blob slice (no copy). */
  part(offset, length) {
    return this.blob.slice(offset, offset + length);
  }
  close() {
    this.window = null;
  }
}
