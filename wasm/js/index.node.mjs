// Node entry of the pteforge package ("exports" condition "node").
//
// The WASM glue is the one ES module built for web and workers (no Node code
// in it: no require/__dirname, no process-wide handlers; engineering-notes
// E3, E7), so Node reads the .wasm next to this file itself and passes it as
// wasmBinary (E2). The core runs on the calling thread; every method also has
// a *Sync twin (which cannot read a .pt2: zip.js, which reads archives, is
// asynchronous; see zip.mjs). Inputs may also be {path}: the file is read by
// range, never whole, and convertToFile streams the .pte to disk.

import { closeSync, existsSync, fchmodSync, fstatSync, lstatSync, openSync, readSync, readdirSync, realpathSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { readFile } from 'node:fs/promises';

import { Core, FOLDER_INPUT, chunksSize, closeSources, keepStderr, requireUnicode, snapshotOptions, withJsonTexts } from './api.mjs';
import { PteforgeError, newBytes } from './errors.mjs';
import { assembling, makeConverter } from './instance.mjs';
import { ReadAheadWindow, SMALL_READ, isBlob } from './sources.mjs';
import createPteforgeModule from './pteforge.mjs';

export { PteforgeError };

/** Size of the buffer through which chunks are written to a file. */
const COPY_PIECE = 1 << 20;

/** Why a path could not be opened, in the CLI's words (serde::open_failure_reason). */
function openFailureReason(e) {
  const words = {
    ENOENT: 'no such file or folder',
    ENOTDIR: 'a part of the path is not a folder',
    ELOOP: 'too many levels of symbolic links',
    EACCES: 'permission denied',
    ENAMETOOLONG: 'file name too long',
    EISDIR: 'it is a folder',
    // Node refuses a path holding a NUL byte before asking the system (no C path can hold one).
    ERR_INVALID_ARG_VALUE: 'the path contains a NUL byte',
  };
  return words[e?.code] ?? e?.code ?? String(e?.message ?? e);
}

/** Why `path` could not be written, in the CLI's words (emit's write_failure_reason). */
function writeFailureReason(e, path) {
  if (e?.code === 'ENOENT') return existsSync(dirname(path)) ? 'no such file or folder' : 'its folder does not exist';
  if (e?.code === 'ENOSPC') return 'no space left on the device';
  if (e?.code === 'EFBIG') return 'file too large for the file system or the file-size limit (ulimit -f)';
  if (e?.code === 'EROFS') return 'the file system is read-only';
  return openFailureReason(e); // same words for ENOTDIR, EACCES and the rest
}

/**
 * A source over a file, read with pread-style fs.readSync calls. `transient`
 * (the files of an unpacked folder, thousands of weights) opens the file for
 * each read instead of holding a descriptor, so a big folder cannot exhaust them.
 */
class FileSource {
  constructor(path, { transient = false } = {}) {
    // Checked before opening: opening a FIFO would wait for a writer forever
    // (and block the event loop); the CLI refuses the same way.
    let info = null;
    try {
      info = statSync(path);
    } catch {
      // openSync below reports a missing file in the CLI's words
    }
    if (info && !info.isFile()) {
      throw new PteforgeError('IO_ERROR', `cannot open "${path}": ${info.isDirectory() ? 'it is a folder' : 'it is not a regular file'}`, { entry: path });
    }
    try {
      if (transient) {
        this.size = (info ?? statSync(path)).size;
      } else {
        this.fd = openSync(path, 'r');
        this.size = fstatSync(this.fd).size;
      }
    } catch (e) {
      throw new PteforgeError('IO_ERROR', `cannot open "${path}": ${openFailureReason(e)}`, { entry: path });
    }
    this.name = path;
    this.transient = transient;
    // One buffer serves every window (a fresh one per window was hundreds of
    // megabytes of garbage per large convert).
    this.scratch = null;
    this.window = new ReadAheadWindow(this.size, (offset, length) => {
      if (!this.scratch || this.scratch.length < length) this.scratch = new Uint8Array(length);
      const bytes = this.scratch.subarray(0, length);
      this.#readAt(offset, bytes);
      return bytes;
    });
  }
  read(offset, dst) {
    if (offset + dst.length > this.size) throw new RangeError(`read past the end (${offset}+${dst.length} > ${this.size})`);
    if (this.transient || dst.length > SMALL_READ) {
      this.#readAt(offset, dst);
      return;
    }
    // Small reads (weights of a few KB, asked for one by one and in order)
    // come from a read-ahead window: one read syscall per window.
    this.window.read(offset, dst);
  }
  #readAt(offset, dst) {
    // A failure is the CLI's IO_ERROR naming the input (serde::FileReader):
    // the file can shrink or vanish while a conversion reads it. `reason` is
    // the cause alone, for the core's callbacks (which name the read).
    const fail = (reason) => {
      const e = new PteforgeError('IO_ERROR', `cannot read "${this.name}": ${reason}`, { entry: this.name });
      e.reason = reason;
      return e;
    };
    let fd;
    try {
      fd = this.transient ? openSync(this.name, 'r') : this.fd;
    } catch (e) {
      throw fail(openFailureReason(e));
    }
    try {
      let done = 0;
      while (done < dst.length) {
        let n;
        try {
          n = readSync(fd, dst, done, dst.length - done, offset + done);
        } catch (e) {
          throw fail(String(e?.message ?? e));
        }
        if (n === 0) {
          throw fail(`short read: ${done} of ${dst.length} bytes at offset ${offset} (did the file change?)`);
        }
        done += n;
      }
    } finally {
      if (this.transient) closeSync(fd);
    }
  }
  part(offset, length) {
    const out = new Uint8Array(length);
    this.read(offset, out);
    return out;
  }
  close() {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.window.clear();
    this.scratch = null;
  }
}

function isPathInput(value) {
  return value !== null && typeof value === 'object' && typeof value.path === 'string' && !isBlob(value);
}

/** The CLI's limits on an unpacked archive folder (core/serde/archive_dir.cpp). */
const MAX_FOLDER_FILES = 1000000;
const MAX_FOLDER_DEPTH = 64;

/** A folder that cannot be listed, in the CLI's words (serde::open_directory's io_error). */
function folderError(dir, what) {
  return new PteforgeError('IO_ERROR', `cannot read folder "${dir}": ${what}`, { entry: dir });
}

/** The system's text for a listing failure, as std::error_code::message() gives it. */
function listFailureText(e) {
  const words = {
    EACCES: 'Permission denied',
    ENOENT: 'No such file or directory',
    ENOTDIR: 'Not a directory',
    ELOOP: 'Too many levels of symbolic links',
    EMFILE: 'Too many open files',
    EIO: 'Input/output error',
  };
  return words[e?.code] ?? e?.code ?? String(e?.message ?? e);
}

/**
 * Every regular file below `dir`, as {path relative to dir ('/'-separated): {path}}.
 * Errors, as the CLI's: IO_ERROR when a folder cannot be listed, when the
 * folders nest deeper than MAX_FOLDER_DEPTH or hold more than MAX_FOLDER_FILES files.
 */
function folderFiles(dir) {
  const files = {};
  const unlisted = {};
  let count = 0;
  let unlistedCount = 0;
  const walk = (d, depth) => {
    let items;
    try {
      items = readdirSync(d, { withFileTypes: true });
    } catch (e) {
      throw folderError(dir, listFailureText(e));
    }
    if (depth >= MAX_FOLDER_DEPTH && items.length > 0) {
      throw folderError(dir, `it nests deeper than ${MAX_FOLDER_DEPTH} folders`);
    }
    for (const entry of items) {
      const p = join(d, entry.name);
      const name = relative(dir, p).split('\\').join('/');
      if (entry.isDirectory()) {
        walk(p, depth + 1);
        continue;
      }
      // As serde::open_directory: a symbolic link to a file is a file, one to
      // a folder is not followed; anything else is not an entry, and why is
      // kept for the error that finds it missing.
      let kind = entry;
      if (entry.isSymbolicLink()) {
        try {
          kind = statSync(p);
        } catch (e) {
          unlisted[name] = e?.code === 'ELOOP' ? 'it is a symbolic link in a loop'
            : e?.code === 'ENOENT' ? 'it is a symbolic link to a missing file'
              : `it is a symbolic link that cannot be followed: ${openFailureReason(e)}`;
          continue;
        }
        if (kind.isDirectory()) continue;
      }
      if (kind.isFile()) {
        if (count >= MAX_FOLDER_FILES) throw folderError(dir, `it holds more than ${MAX_FOLDER_FILES} files`);
        ++count;
        files[name] = { path: p, transient: true };
      } else if (unlistedCount < MAX_FOLDER_FILES) {
        ++unlistedCount;
        unlisted[name] = kind.isFIFO() ? 'it is a FIFO, not a regular file'
          : kind.isSocket() ? 'it is a socket, not a regular file'
            : kind.isBlockDevice() || kind.isCharacterDevice() ? 'it is a device, not a regular file'
              : 'it is not a regular file';
      }
    }
  };
  walk(dir, 0);
  return { files, unlisted };
}

/**
 * {path} inputs the CLI's open_input reads as an unpacked archive: a folder,
 * or a program JSON at <folder>/models/<name>.json next to
 * <folder>/archive_format (then only that program, with the folder's
 * weights). Returns the {files, name, program} input, or null to read the
 * path as one file.
 */
function expandPathInput(input) {
  if (!isPathInput(input)) return null;
  let stat;
  try {
    stat = statSync(input.path);
  } catch {
    return null; // FileSource reports the error with the CLI's wording
  }
  if (stat.isDirectory()) return { ...folderFiles(input.path), name: input.path, [FOLDER_INPUT]: true };
  const models = dirname(resolve(input.path));
  if (!input.path.endsWith('.json') || basename(models) !== 'models') return null;
  const folder = dirname(models);
  if (!existsSync(join(folder, 'archive_format'))) return null;
  return { ...folderFiles(folder), name: input.path, program: `models/${basename(input.path)}`, [FOLDER_INPUT]: true };
}

/** Writes all of `bytes` to `fd`. */
function writeAll(fd, bytes) {
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
}

/** Concatenates the chunks into one Uint8Array (input ranges read from their sources). */
function assembleBytes(chunks, sources) {
  const out = newBytes(chunksSize(chunks), 'the .pte');
  let pos = 0;
  for (const c of chunks) {
    if (c instanceof Uint8Array) {
      out.set(c, pos);
    } else {
      sources[c.source].read(c.offset, out.subarray(pos, pos + c.length));
    }
    pos += c.length;
  }
  return out;
}

/**
 * Where a .pte for `path` may be written, as the CLI decides
 * (core/emit/chunks_file.cpp): a symbolic link is written through (the link
 * stays), anything that exists and is not a regular file (a folder, a device,
 * a FIFO) is refused, and no input may be overwritten (`inputs`: paths the
 * call reads; a folder covers every file below it). Returns {target, mode}:
 * the file to write and the mode of the one it replaces (undefined when new).
 */
function outputTarget(path, inputs) {
  let target = path;
  let link = null;
  try {
    link = lstatSync(path);
  } catch {
    // does not exist yet
  }
  if (link?.isSymbolicLink()) {
    try {
      target = realpathSync(path);
    } catch {
      throw new PteforgeError('IO_ERROR', `'${path}' is a symbolic link to a missing file; give the target path instead`, { entry: path });
    }
  }
  let info = null;
  try {
    info = statSync(target);
  } catch {
    // does not exist yet
  }
  if (info && !info.isFile()) {
    throw new PteforgeError('IO_ERROR', `'${path}' exists and is not a regular file (a folder, a device or a pipe); refusing to replace it`, { entry: path });
  }
  const real = (p) => {
    try {
      return realpathSync(p);
    } catch {
      return resolve(p);
    }
  };
  const out = info ? real(target) : join(real(dirname(resolve(target))), basename(target));
  for (const input of inputs) {
    const r = real(input);
    if (out === r || out.startsWith(r.endsWith(sep) ? r : r + sep)) {
      // The CLI's words: replacing a file, or adding one inside an input folder.
      const what = info ? 'overwrite' : 'write a file inside';
      throw new PteforgeError('OPTION_INVALID', `the output '${path}' would ${what} the input '${input}'`, { entry: path });
    }
  }
  return { target, mode: info ? info.mode & 0o7777 : undefined };
}

/** The file paths an input (or swap) reads: {path} inputs, and {files} entries given as {path}. */
function inputPaths(value) {
  if (isPathInput(value)) return [value.path];
  // A .pt2 the async methods already opened for zip.js (zip.mjs ZipInput).
  if (value?.source instanceof FileSource) return [value.source.name];
  if (value && typeof value === 'object' && !isBlob(value) && value.files && typeof value.files === 'object') {
    return Object.values(value.files).filter(isPathInput).map((f) => f.path);
  }
  return [];
}

let temporaries = 0;

/**
 * Streams the chunks to `path` through a temporary file renamed at the end.
 * The temporary lives in the target's folder under a short name of its own
 * (a target name near the 255-byte limit still gets one) and takes `mode`,
 * the mode of the file it replaces (undefined for a new file: 0666 less the
 * umask), as the CLI's (core/emit/chunks_file.cpp).
 */
function writeChunks(chunks, sources, path, mode) {
  const tmp = join(dirname(path), `.pteforge-${process.pid}-${++temporaries}`);
  let fd;
  try {
    fd = openSync(tmp, 'w');
    if (mode !== undefined) fchmodSync(fd, mode);
    // Chunks are gathered in one buffer and written COPY_PIECE bytes at a
    // time: a .pte of thousands of small weights would otherwise cost a
    // write call per weight.
    const out = new Uint8Array(COPY_PIECE);
    let used = 0;
    const flush = () => {
      writeAll(fd, out.subarray(0, used));
      used = 0;
    };
    for (const c of chunks) {
      if (c.length >= out.length) {
        // Big chunks go out as they are (bytes) or in whole pieces (ranges,
        // read directly, not through the source's read-ahead window).
        flush();
        if (c instanceof Uint8Array) {
          writeAll(fd, c);
          continue;
        }
        for (let done = 0; done < c.length; done += COPY_PIECE) {
          const view = out.subarray(0, Math.min(COPY_PIECE, c.length - done));
          sources[c.source].read(c.offset + done, view);
          writeAll(fd, view);
        }
        continue;
      }
      for (let done = 0; done < c.length;) {
        if (used === out.length) flush();
        const n = Math.min(out.length - used, c.length - done);
        const view = out.subarray(used, used + n);
        if (c instanceof Uint8Array) view.set(c.subarray(done, done + n));
        else sources[c.source].read(c.offset + done, view);
        used += n;
        done += n;
      }
    }
    flush();
    closeSync(fd);
    fd = undefined;
    renameSync(tmp, path);
  } catch (e) {
    if (fd !== undefined) closeSync(fd);
    try {
      rmSync(tmp, { force: true });
    } catch {
      // the temporary could not even be created (its folder is no folder, the path is too long)
    }
    if (e instanceof PteforgeError) throw e;
    throw new PteforgeError('IO_ERROR', `cannot write "${path}": ${writeFailureReason(e, path)}`, { entry: path });
  }
}

/**
 * Creates an independent converter. options: {wasmBinary?: Uint8Array,
 * wasmPath?: string | URL (default: pteforge.wasm next to this file),
 * print?, printErr?}.
 */
export async function createPteforge(options = {}) {
  options = snapshotOptions(options ?? {}, 'createPteforge options');
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw new PteforgeError('OPTION_INVALID', 'createPteforge options must be an object');
  }
  const wasmPath = options.wasmPath ?? new URL('./pteforge.wasm', import.meta.url);
  let wasmBinary = options.wasmBinary;
  if (wasmBinary === undefined || wasmBinary === null) {
    try {
      wasmBinary = await readFile(wasmPath);
    } catch (e) {
      const path = String(wasmPath instanceof URL ? wasmPath.pathname : wasmPath);
      throw new PteforgeError('IO_ERROR', `cannot read the WebAssembly module "${path}": ${openFailureReason(e)}`, { entry: path });
    }
  }
  const moduleArg = { wasmBinary };
  if (options.print) moduleArg.print = options.print;
  const stderr = [];
  moduleArg.printErr = options.printErr ?? keepStderr(stderr);
  const env = {
    stderr,
    loadModule: () => createPteforgeModule({ ...moduleArg }),
    openSource: (value) => (isPathInput(value) ? new FileSource(value.path, { transient: value.transient === true }) : null),
    expandInput: expandPathInput,
    extraInputKinds: ' or {path}',
    // Node has Blob but no FileReaderSync: a Blob is read whole first.
    prepare: async (value) => (isBlob(value) ? new Uint8Array(await value.arrayBuffer()) : value),
    assemble: assembleBytes,
    extraMethods: (core, lift) => {
      const convertToFileSync = (input, path, opts = {}) => {
        if (typeof path !== 'string') {
          throw new PteforgeError('OPTION_INVALID', 'convertToFile needs an output path (string)');
        }
        // As the CLI's -o: no empty path, and '-' is no standard output.
        if (path === '') throw new PteforgeError('OPTION_INVALID', 'convertToFile needs an output path, not an empty string');
        requireUnicode(path, 'convertToFile path');
        if (path === '-') {
          throw new PteforgeError('OPTION_INVALID',
            "convertToFile path '-': outputs are written to files, not to standard output; name a file ('./-' for a file called '-')");
        }
        opts = snapshotOptions(opts);
        const inputs = [...inputPaths(input)];
        for (const swap of Object.values(snapshotOptions(opts?.swaps ?? {}, 'options.swaps', '/swaps'))) inputs.push(...inputPaths(swap));
        const { target, mode } = outputTarget(path, inputs);
        const { chunks, sources, metadataText, report, programText } = core.convertChunks(input, opts, 'convertToFile');
        try {
          assembling(opts, chunks, () => writeChunks(chunks, sources, target, mode));
          return withJsonTexts({ path, size: chunksSize(chunks) }, report, metadataText, programText);
        } finally {
          closeSources(sources);
        }
      };
      return { convertToFileSync, convertToFile: lift(convertToFileSync, 2, { check: (o) => core.checkConvertOptions(o) }) };
    },
  };
  const core = new Core(env);
  await core.ready();
  return makeConverter(core, env);
}

let shared = null;
/** One converter per process, created on first use (manifold's getManifoldModule). */
export function getPteforge() {
  shared ??= createPteforge().catch((e) => {
    shared = null;
    throw e;
  });
  return shared;
}
