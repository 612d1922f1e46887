// The zip side of a .pt2 (design.md: "zip is not our job"): the directory of
// an archive is read here with zip.js (the npm package @zip.js/zip.js), by
// range through a zip.Reader over our byte source (sources.mjs; a File in a
// worker, a file descriptor in Node), never whole. The C++ core then gets the
// entry table (wasm/src/js_input.h, kind "zip") and builds its Archive from it
// (serde::ZipArchive::from_records) without parsing any zip structure:
//  - stored entries (all of PyTorch's) are read in place, by range, at the
//    data offset computed here from their local header;
//  - deflated entries are inflated by zip.js now, while awaiting is possible
//    (zip.js checks their CRC-32), kept in JS memory and handed to the core
//    through the synchronous inflate callback (api.mjs).
// zip.js is asynchronous, so an archive can only be read by the async methods.

import { controlEscaped, PteforgeError } from './errors.mjs';

/** Bytes of a local file header before its name (APPNOTE 4.3.7). */
const LOCAL_HEADER = 30;
const LOCAL_HEADER_SIG = 0x04034b50;
/** The core's bound on deflate expansion (core/serde/archive_zip.cpp): no inflating beyond it. */
const MAX_DEFLATE_RATIO = 1100;
/**
 * True for the entries the core reads whole (pt2_layout.cpp, payload_config.cpp,
 * convert.cpp): JSON records and the archive_format / archive_version /
 * byteorder records.
 */
function readWhole(name) {
  const base = name.slice(name.lastIndexOf('/') + 1);
  return name.endsWith('.json') || base === 'archive_format' || base === 'archive_version' || base === 'byteorder';
}

/** Largest deflated entry inflated ahead of a call (bytes inflated); PyTorch deflates none. */
export const MAX_INFLATE_ENTRY = 256 * 1024 * 1024;
/** Largest total inflated ahead of one call. */
const MAX_INFLATE_TOTAL = 512 * 1024 * 1024;
/** Marks an entry left deflated because of the caps above. */
export const TOO_BIG = Symbol('deflated entry over the inflate-ahead limit');
const DEFLATE_SLACK = 1 << 16;

let zipjs = null;
let loading = null;

/**
 * Loads zip.js once (web workers off: the core's worker, or Node, is the
 * place it runs). A bundler or Node resolves '@zip.js/zip.js'; a page without
 * one (no import maps in workers) gets zip.js's one-file build shipped in the
 * package as dist/zipjs.mjs.
 */
export function loadZipJs() {
  if (zipjs) return Promise.resolve(zipjs);
  loading ??= import('@zip.js/zip.js').catch(() =>
    import(/* webpackIgnore: true */ /* @vite-ignore */ new URL('./zipjs.mjs', import.meta.url).href)).then(
    (m) => {
      m.configure({ useWebWorkers: false });
      zipjs = m;
      return m;
    },
    (e) => {
      loading = null;
      throw e;
    },
  );
  return loading;
}

/**
 * True when `source` holds a zip as the core sniffs one (serde::open_input:
 * at least 4 bytes, starting with "PK").
 */
export function sniffZip(source) {
  if (source.size < 4) return false;
  const head = new Uint8Array(2);
  source.read(0, head);
  return head[0] === 0x50 && head[1] === 0x4b;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** An entry name as the core writes it in messages: UTF-8 text, other bytes as \xNN, control characters (C0, DEL, C1) as \xNN. */
function displayName(raw) {
  let text;
  try {
    text = utf8.decode(raw);
  } catch {
    text = null;
  }
  if (text !== null) return controlEscaped(text);
  return [...raw].map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`)).join('');
}

/** {name} when the raw name is UTF-8, else {nameBytes}: what the core's description takes. */
function nameField(raw) {
  try {
    return { name: utf8.decode(raw) };
  } catch {
    return { nameBytes: [...raw] };
  }
}

/** Little-endian 16- and 32-bit fields of `b` at `at`. */
function u16le(b, at) {
  return b[at] | (b[at + 1] << 8);
}
function u32le(b, at) {
  return (b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (b[at + 3] << 24)) >>> 0;
}

/** True when `bytes` equals `hay` from `at` on. */
function sameBytes(bytes, hay, at) {
  for (let i = 0; i < bytes.length; ++i) if (hay[at + i] !== bytes[i]) return false;
  return true;
}

/** Most bytes read at once for local headers. */
const HEADER_WINDOW = 64 * 1024;
/** Room left after a header's name for its extra field (PyTorch pads data to 64 bytes). */
const EXTRA_ROOM = 128;

/**
 * Reads the entries' local headers with few reads: each read covers the
 * header asked for and the following headers that fit in HEADER_WINDOW
 * bytes, so thousands of small entries (weights of a few KB) cost a few
 * reads, while entries of megabytes cost one small read each and no weight
 * bytes. `spans` lists every header as [offset, length] (any order).
 */
class HeaderReader {
  constructor(source, spans) {
    this.source = source;
    this.spans = spans.slice().sort((a, b) => a[0] - b[0]);
    this.window = null;
    this.start = 0;
    // Windows are views of one buffer, grown when a window needs more: a
    // fresh array per window was megabytes of garbage per thousand entries.
    this.scratch = null;
  }
  /** `length` bytes at `offset` (a view into the shared buffer; valid until the next call). */
  read(offset, length) {
    const w = this.window;
    if (!w || offset < this.start || offset + length > this.start + w.length) {
      let end = offset + length;
      let lo = 0;
      let hi = this.spans.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (this.spans[mid][0] < offset) lo = mid + 1;
        else hi = mid;
      }
      for (let i = lo; i < this.spans.length; ++i) {
        const next = this.spans[i][0] + this.spans[i][1] + EXTRA_ROOM;
        if (next - offset > HEADER_WINDOW) break;
        end = Math.max(end, next);
      }
      const size = Math.min(end, this.source.size) - offset;
      if (!this.scratch || this.scratch.length < size) this.scratch = new Uint8Array(Math.max(size, HEADER_WINDOW + EXTRA_ROOM));
      this.window = null; // unusable until the read below succeeds
      const window = this.scratch.subarray(0, size);
      this.source.read(offset, window);
      this.window = window;
      this.start = offset;
    }
    return this.window.subarray(offset - this.start, offset - this.start + length);
  }
}

function invalid(message, where, notes = []) {
  return new PteforgeError('ARCHIVE_INVALID', message, where, notes);
}

const END_RECORD_SIZE = 22;
const END_RECORD_SIGNATURE = 0x06054b50;
const LOCAL_HEADER_SIGNATURE = 0x04034b50;

/**
 * Looks for the zip end-of-central-directory record as the core's own reader
 * does (core/serde/archive_zip.cpp, read_end_records): a record whose comment
 * fits in the file, within the last 22 + 65,535 bytes. When there is none the
 * error is the CLI's (ARCHIVE_INVALID naming `name`), so a truncated .pt2 is
 * reported in the same words by both; zip.js would say "End of central
 * directory not found" or "Central directory header not found".
 */
function checkEndRecord(source, name) {
  const size = source.size;
  const read = (offset, length) => {
    const out = new Uint8Array(length);
    try {
      source.read(offset, out);
    } catch (e) {
      throw new PteforgeError('IO_ERROR', `cannot read ${length} bytes at offset ${offset}: ${e?.message ?? e}`, { entry: name, byte_offset: offset });
    }
    return new DataView(out.buffer);
  };
  if (size < END_RECORD_SIZE) {
    throw invalid(`not a zip archive: ${size} bytes is too short for a zip end record`, { entry: name });
  }
  const tailLength = Math.min(size, END_RECORD_SIZE + 0xffff);
  const tail = read(size - tailLength, tailLength);
  for (let i = tailLength - END_RECORD_SIZE; i >= 0; --i) {
    if (tail.getUint32(i, true) !== END_RECORD_SIGNATURE) continue;
    if (i + END_RECORD_SIZE + tail.getUint16(i + 20, true) <= tailLength) return;
  }
  const localFirst = size >= 4 && read(0, 4).getUint32(0, true) === LOCAL_HEADER_SIGNATURE;
  throw invalid(localFirst
    ? 'the zip archive is truncated: its end-of-central-directory record is missing'
    : 'not a zip archive (no end-of-central-directory record); a .pt2 file is a zip archive', { entry: name });
}

/**
 * A .pt2 read by zip.js: its source, the entry table for the core, and the
 * deflated entries inflated (Map data offset → bytes). Opened (and closed)
 * with the call it was prepared for.
 */
export class ZipInput {
  constructor(source, name, entries, inflated) {
    this.source = source;
    this.name = name;
    this.entries = entries;
    this.inflated = inflated;
  }

  /** The description the core reads, with the source at index `index`. */
  description(index) {
    return { kind: 'zip', name: this.name, source: index, size: this.source.size, entries: this.entries };
  }
}

/**
 * Reads the directory of the zip in `source` (named `name` in errors) with
 * zip.js and inflates its deflated entries. Errors: PteforgeError
 * ARCHIVE_INVALID (where.entry = `name`, or the entry at fault): the CLI's
 * words when the end-of-central-directory record is missing (truncated), else
 * naming what zip.js said; IO_ERROR from the source; UNSUPPORTED_FEATURE when zip.js
 * cannot be loaded. Rules the core applies to every entry (encryption,
 * methods, sizes, names, duplicates) are left to it, so it reports them as
 * the native CLI does; entries those rules reject are not inflated.
 */
export async function readZip(source, name) {
  checkEndRecord(source, name);
  let zip;
  try {
    zip = await loadZipJs();
  } catch (cause) {
    throw new PteforgeError('UNSUPPORTED_FEATURE',
      `"${name}" is a zip archive, and the zip reader (the npm package @zip.js/zip.js) could not be loaded: ${cause?.message ?? cause}`,
      { entry: name }, ['make "@zip.js/zip.js" importable (a bundler), or serve the package\'s dist/zipjs.mjs next to its other files'], cause);
  }
  // Range reads of our source; a failing read (a file that shrank) is the
  // source's IO_ERROR, not a zip error.
  class SourceReader extends zip.Reader {
    constructor() {
      super();
      this.size = source.size;
    }
    async readUint8Array(offset, length) {
      const end = Math.min(source.size, offset + length);
      const out = new Uint8Array(Math.max(0, end - offset));
      try {
        source.read(offset, out);
      } catch (e) {
        throw new PteforgeError('IO_ERROR', `cannot read ${out.length} bytes at offset ${offset}: ${e?.message ?? e}`, { entry: name, byte_offset: offset });
      }
      return out;
    }
  }
  // Inflated bytes go into a buffer of the recorded size; more is an error (no zip bomb).
  class BoundedWriter extends zip.Writer {
    constructor(size) {
      super();
      this.bytes = new Uint8Array(size);
      this.length = 0;
    }
    async writeUint8Array(chunk) {
      if (this.length + chunk.length > this.bytes.length) {
        throw new Error(`it inflates to more than the recorded ${this.bytes.length} bytes`);
      }
      this.bytes.set(chunk, this.length);
      this.length += chunk.length;
    }
    getData() {
      return this.bytes;
    }
  }

  const list = [];
  const reader = new zip.ZipReader(new SourceReader(), {
    // Names are the core's to check (ARCHIVE_ENTRY_NAME, with the CLI's message).
    filenameValidation: 'tolerant',
    useWebWorkers: false,
  });
  try {
    // Each entry is cut down at once to what is used below: zip.js's entry
    // objects are large, and holding all of them (32,000 for the 100k-node
    // synthetic program) made garbage collection cost more than the reading.
    // zip.js's entry is kept only where it may have to inflate.
    for await (const e of reader.getEntriesGenerator()) {
      list.push({
        raw: e.rawFilename,
        offset: e.offset,
        method: e.compressionMethod,
        flags: e.rawBitFlag,
        crc32: e.signature >>> 0,
        compressedSize: e.compressedSize,
        size: e.uncompressedSize,
        zipEntry: e.compressionMethod === 8 ? e : null,
      });
    }
  } catch (e) {
    if (e instanceof PteforgeError) throw e;
    throw invalid(`"${name}" is not a readable zip archive: ${e?.message ?? e} (zip.js)`, { entry: name });
  }

  const entries = [];
  const inflated = new Map();
  let inflatedBytes = 0;
  const headers = new HeaderReader(source, list.map((e) => [e.offset, LOCAL_HEADER + e.raw.length]));
  for (const e of list) {
    const raw = e.raw;
    const offset = e.offset;
    const named = nameField(raw);
    // One object shape for every record (undefined fields are left out of the JSON).
    const record = {
      name: named.name,
      nameBytes: named.nameBytes,
      method: e.method,
      flags: e.flags,
      crc32: e.crc32,
      compressedSize: e.compressedSize,
      size: e.size,
      localHeaderOffset: offset,
      dataOffset: 0,
    };
    // The data offset comes from the LOCAL header: PyTorch pads the local
    // extra field to align the data, so it differs from the central one.
    const headerLength = LOCAL_HEADER + raw.length;
    if (!(offset >= 0) || offset > source.size || source.size - offset < headerLength) {
      const shown = displayName(raw);
      throw invalid(`the local header of entry "${shown}" (offset ${offset}) lies outside the ${source.size}-byte file`,
        { entry: shown, byte_offset: offset });
    }
    let header;
    try {
      header = headers.read(offset, headerLength);
    } catch (err) {
      throw new PteforgeError('IO_ERROR', `cannot read ${headerLength} bytes at offset ${offset}: ${err?.message ?? err}`, { entry: name, byte_offset: offset });
    }
    if (u32le(header, 0) !== LOCAL_HEADER_SIG) {
      const shown = displayName(raw);
      throw invalid(`no local file header where the central directory places entry "${shown}"`, { entry: shown, byte_offset: offset });
    }
    const localNameLength = u16le(header, 26);
    if (localNameLength !== raw.length || !sameBytes(raw, header, LOCAL_HEADER)) {
      const shown = displayName(raw);
      throw invalid(`the local header of entry "${shown}" names a different file than the central directory`, { entry: shown, byte_offset: offset });
    }
    record.dataOffset = offset + LOCAL_HEADER + localNameLength + u16le(header, 28);
    entries.push(record);

    // Only entries the core reads whole can be inflated by it (JSON records
    // and the small text records); payloads are read by range, never
    // inflated (ARCHIVE_COMPRESSED), so nothing else is inflated ahead.
    const inflatable = readWhole(displayName(raw)) && record.method === 8 && !(record.flags & 1) &&
      record.size / MAX_DEFLATE_RATIO <= record.compressedSize + DEFLATE_SLACK &&
      record.dataOffset + record.compressedSize <= source.size;
    if (!inflatable || inflated.has(record.dataOffset)) continue;
    // Inflated ahead of the call (the core cannot wait for zip.js), so an
    // entry nothing reads could cost gigabytes: entries and the total are
    // capped; the core reports a capped entry only if it needs it.
    if (record.size > MAX_INFLATE_ENTRY || inflatedBytes + record.size > MAX_INFLATE_TOTAL) {
      inflated.set(record.dataOffset, TOO_BIG);
      continue;
    }
    inflatedBytes += record.size;
    const writer = new BoundedWriter(record.size);
    try {
      await e.zipEntry.getData(writer, { checkCrc32: true, useWebWorkers: false });
    } catch (err) {
      if (err instanceof PteforgeError) throw err;
      const shown = displayName(raw);
      throw invalid(`cannot decompress entry "${shown}": ${err?.message ?? err} (zip.js)`, { entry: shown });
    }
    if (writer.length !== record.size) {
      const shown = displayName(raw);
      throw invalid(`cannot decompress entry "${shown}": it inflates to ${writer.length} bytes, not the recorded ${record.size}`, { entry: shown });
    }
    inflated.set(record.dataOffset, writer.bytes);
  }
  try {
    await reader.close();
  } catch {
    // nothing to release for a range reader
  }
  return new ZipInput(source, name, entries, inflated);
}
