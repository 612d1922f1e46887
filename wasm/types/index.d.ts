// Type declarations of the pteforge package, browser and Web Worker entry
// (the "default" export condition). Node's entry adds file paths and
// convertToFile: see node.d.ts. Hand-written (Emscripten 3.1.6 has no
// --embind-emit-tsd); tests/node/package.test.mjs checks that the runtime
// objects and the error-code list match what is declared here.

/** Stable error codes: the same strings as in C++ (core/support/error_codes.def) and JSON. */
export type ErrorCode =
  | 'INPUT_EMPTY'
  | 'INPUT_NOT_JSON'
  | 'INPUT_SCHEMA'
  | 'UNKNOWN_UNION_TAG'
  | 'UNSUPPORTED_SCHEMA_VERSION'
  | 'ARCHIVE_INVALID'
  | 'ARCHIVE_ENTRY_MISSING'
  | 'ARCHIVE_ENTRY_NAME'
  | 'ARCHIVE_COMPRESSED'
  | 'LEGACY_ARCHIVE'
  | 'WEIGHTS_MISSING'
  | 'PAYLOAD_INVALID'
  | 'IO_ERROR'
  | 'INVALID_GRAPH'
  | 'UNSUPPORTED_OPERATOR'
  | 'UNSUPPORTED_FEATURE'
  | 'UNKNOWN_PASS'
  | 'PASS_PRECONDITION'
  | 'PASS_FAILED'
  | 'OPTION_INVALID'
  | 'MODULE_SWAP'
  | 'EMIT_LIMIT'
  | 'PTE_INVALID'
  | 'INTERNAL'
  | 'OUT_OF_MEMORY';

/** Where in the input an error points. Every key is optional. */
export interface ErrorLocation {
  /** RFC 6901 JSON pointer into the input document, e.g. "/graph_module/graph/nodes/12". */
  pointer?: string;
  /** FX node name. */
  node?: string;
  /** Archive entry (or the input's name, e.g. the file name, when no entry is at fault). */
  entry?: string;
  /** Byte offset within the entry or document. */
  byte_offset?: number;
  /** Method (program) name. */
  method?: string;
  /** First stack-trace frame of the node. */
  source?: string;
  /** Pass that raised it. */
  pass?: string;
}

/**
 * The one error pteforge throws or rejects with. Bad input never aborts the
 * module: it becomes a PteforgeError and the converter stays usable. An
 * internal failure (a bug) is code "INTERNAL"; a conversion that needs more
 * WebAssembly memory than the instance can get (4 GiB at most, less than
 * 2 GiB in one block) is code "OUT_OF_MEMORY". After either, the WASM
 * instance is replaced before the next call.
 */
export declare class PteforgeError extends Error {
  constructor(code: ErrorCode, message: string, where?: ErrorLocation, notes?: string[], cause?: unknown);
  readonly name: 'PteforgeError';
  /** Stable UPPER_SNAKE code. */
  code: ErrorCode;
  /** Place in the input. */
  where: ErrorLocation;
  /** Extra lines of context (e.g. the nearest supported operator). */
  notes: string[];
  /** The CLI's form: "CODE: message (entry=… byte_offset=…)" plus "\n  note: …" lines. */
  toString(): string;
  /** {code, message, where, notes}. */
  toJSON(): { code: ErrorCode; message: string; where: ErrorLocation; notes: string[] };
}

/** Raw bytes: a .pt2 archive, a program JSON, or a .pte. */
export type Bytes = Uint8Array | ArrayBuffer | ArrayBufferView;

/**
 * One input: bytes; a string (program JSON text); a Blob or File (read by
 * range inside a worker, never whole); `{data, name}` to name it in error
 * locations; or `{files}`, the files of an unpacked archive folder (paths
 * relative to the folder, e.g. "models/model.json"; a File[] from a folder
 * drop uses webkitRelativePath) — the way to give a program JSON together
 * with its weights. A `.pt2`'s kind is sniffed from its bytes, as the CLI does;
 * its zip directory is read by zip.js (by range), so only the async methods
 * take one.
 */
export type Input =
  | Bytes
  | string
  | Blob
  | { data: Bytes | string | Blob; name?: string }
  | { files: Record<string, Bytes | string | Blob> | File[]; name?: string };

/** Progress of a long call. */
export interface Progress {
  /** What runs, in this order: "read", "import", "passes", "emit", "serialize", "assemble". */
  stage: string;
  /** Units done so far (methods for import/passes, chunks for assemble). */
  done: number;
  /** Units in this stage. */
  total: number;
}

/** Options shared by every method that reads an input. */
export interface InputOptions {
  /** Name of the input in error locations (where.entry); default: the File's name or the path, "model.json" for JSON text, else "input". */
  name?: string;
}

/** Options of convert(): the CLI's `convert` flags. */
export interface ConvertOptions extends InputOptions {
  /** Pass names to run instead of the default pipeline (design.md "The default pipeline"). */
  passes?: string[];
  /** Ops the decompose pass keeps undecomposed, e.g. "aten.linear.default"; each needs an out variant (CLI --preserve-ops). */
  preserveOps?: string[];
  /** Memory planning algorithm: "greedy" (the default, ExecuTorch's), "naive", "best_fit" or "best" (CLI --memory-planning); another name is OPTION_INVALID at /memoryPlanning before anything is read. */
  memoryPlanning?: 'greedy' | 'naive' | 'best_fit' | 'best';
  /**
   * Methods returning constants to add: name → value (number, boolean, string, or lists of them; CLI --constant-method).
   * As an object, a number without a fraction is an int (int64): JavaScript cannot tell 2.0 from 2. As the JSON text of
   * that object (a string, e.g. '{"get_scale": 2.0}'), the core reads each value as the CLI does: 2.0 is a float and
   * integers past 2^53 stay exact.
   */
  constantMethods?: Record<string, unknown> | string;
  /** Store the initial values of mutable buffers in the .pte (CLI --init-buffers). */
  initBuffers?: boolean;
  /** Store a stack trace per instruction (CLI --emit-stacktrace). */
  stackTraces?: boolean;
  /** Module swaps (`pteforge convert --swap FQN=PATH`): module FQN → replacement program (any input form); the .pte references the replacement's weights. */
  swaps?: Record<string, Input>;
  /** Also return each method's program after the passes as torch.export JSON (CLI --export-program). */
  exportProgram?: boolean;
  /** Pass times in the report (default true; false makes the report byte-stable). */
  reportTimes?: boolean;
  /** Called as the conversion advances. Exceptions thrown by it are ignored. */
  onProgress?: (progress: Progress) => void;
}

/** Metadata JSON of a conversion (methods, inputs/outputs, memory plans, constants). */
export type PteMetadata = Record<string, unknown>;
/** The pass report: per pass its time, node counts, diagnostics. */
export type PassReport = Record<string, unknown>;

/** The result of convert(). */
export interface ConvertResult<Pte> {
  /** The .pte file. In browsers and workers a Blob whose weight parts are slices of the input. */
  pte: Pte;
  /**
   * What `pteforge convert --metadata` writes. Parsed from its JSON when first
   * read (tens of MB for a large program), then kept; assignable. Like every
   * object this package parses from the core's JSON, integers outside
   * ±(2^53 − 1) are BigInt (JSON.parse would round them).
   */
  metadata: PteMetadata;
  /** The metadata JSON text, byte for byte what `pteforge convert --metadata` writes. */
  metadataText: string;
  report: PassReport;
  /** With options.exportProgram: method name → its program JSON after the passes (parsed when first read; BigInt past 2^53, e.g. a slice's end of 2^63 − 1). */
  program?: Record<string, Record<string, unknown>>;
  /** With options.exportProgram: the program JSON text, byte for byte what `pteforge convert --export-program` writes. */
  programText?: string;
}

/** One reason ExecuTorch's runtime would refuse a method (decodePte format "check"). */
export interface LoadProblem {
  /** The table, e.g. "/execution_plan/0/values/3/val/allocation_info". */
  pointer: string;
  message: string;
  /** Met when the method runs (an input index, an instruction value's type), not when it loads. */
  atExecution: boolean;
}

/** decodePte(input, {format: "check"}): the runtime's method-load checks. */
export interface LoadCheck {
  /** No problem: every method would load. */
  passed: boolean;
  /** Number of methods (execution plans). */
  methods: number;
  /** Number of problems; `problems` holds the first 100. */
  total: number;
  problems: LoadProblem[];
}

/** Options of decodePte(). */
export interface DecodeOptions extends InputOptions {
  /**
   * "json" (default): pteforge's readable view (`pteforge decode --json`);
   * "flatc-json": what `flatc --json --strict-json` prints (`--flatc-json`);
   * "summary": the CLI's text summary (always returned as text);
   * "check": what ExecuTorch's runtime would refuse when it loads or runs a
   * method (`pteforge decode --check`), as a LoadCheck.
   */
  format?: 'json' | 'flatc-json' | 'summary' | 'check';
  /** Return the text exactly as the CLI prints it instead of a parsed object. */
  text?: boolean;
}

/** Options of inspect() and listModules(). */
export interface InspectOptions extends InputOptions {
  /** Return the text form instead of the JSON object (inspect: the CLI's `inspect` output; listModules: the CLI's `inspect --modules` table of that one method, without its `method NAME` line). */
  text?: boolean;
  /** inspect: only this method (default: all). listModules: the method to list (default: the only one). */
  method?: string;
}

/** Where the programs of an input are (archive layout detection). */
export interface InputLayout {
  /** "current" (a .pt2 / unpacked archive) or "program_json" (a lone program JSON). */
  kind: 'current' | 'early_pt2' | 'legacy' | 'program_json';
  /** The archive's root folder ("" when the records are at top level). */
  root: string;
  byteorder: 'little' | 'big';
  models: Array<{
    name: string;
    method: string;
    program_entry: string;
    weights_config_entry: string | null;
    constants_config_entry: string | null;
  }>;
  entries: Array<{ name: string; size: number; stored: boolean }>;
}

/** One module of a program's module tree (listModules). */
export interface ModuleEntry {
  /** Fully qualified name; "" for the root. */
  fqn: string;
  /** Class from nn_module_stack ("" when unknown). */
  type: string;
  /** 0 for the root, 1 for its children, ... */
  depth: number;
  /** Top-level graph nodes inside the module (inclusive). */
  nodes: number;
  /** How often the module is called. */
  calls: number;
  /** Has a call signature in the module call graph. */
  preserved: boolean;
  /** Can be swapped (outlined) on its own. */
  swappable: boolean;
  /** Why it cannot be swapped ("" when it can). */
  reason: string;
  in_spec: string;
  out_spec: string;
  /** Each flat input, e.g. "float32[4, 8]". */
  inputs: string[];
  outputs: string[];
}

/** One pass of the registry. */
export interface PassInfo {
  /** The name used in options.passes (= the CLI's --passes). */
  name: string;
  summary: string;
  /** Pipeline group, e.g. "to_edge", "to_executorch". */
  group: string;
  /** False for passes registered by name whose code has not landed. */
  implemented: boolean;
  /** In the default pipeline. */
  default: boolean;
}

/** What the loaded module is. */
export interface ModuleInfo {
  name: 'pteforge';
  version: string;
  /** Emscripten version the module was built with. */
  emscripten: string;
  /** Capabilities of this build: "decodePte", "layout", "inspect", "convert", "listPasses", "listModules". */
  features: string[];
  /** Every error code with its one-line description. */
  errorCodes: Array<{ code: ErrorCode; summary: string }>;
}

/** A converter. Every method is async; on a page's main thread the work runs in a worker. */
export interface Pteforge<Pte = Blob> {
  readonly info: ModuleInfo;
  /** Converts a .pt2 or program JSON to a .pte. */
  convert(input: Input, options?: ConvertOptions): Promise<ConvertResult<Pte>>;
  /** Summary of an exported program without converting it (`pteforge inspect --json`). */
  inspect(input: Input, options?: InspectOptions & { text?: false }): Promise<Record<string, unknown>>;
  inspect(input: Input, options: InspectOptions & { text: true }): Promise<string>;
  /** The module tree of a program (one method: options.method, or the only one), with which modules can be swapped. */
  listModules(input: Input, options?: InspectOptions & { text?: false }): Promise<ModuleEntry[]>;
  listModules(input: Input, options: InspectOptions & { text: true }): Promise<string>;
  /** Reads a .pte back (`pteforge decode`). Only its program part is read. A `{path}` is the one file it names (a folder is an IO_ERROR); `{files}` is OPTION_INVALID. */
  decodePte(input: Input, options?: DecodeOptions & { text?: false; format?: 'json' | 'flatc-json' }): Promise<Record<string, unknown>>;
  decodePte(input: Input, options: DecodeOptions & { text?: false; format: 'check' }): Promise<LoadCheck>;
  decodePte(input: Input, options: DecodeOptions & ({ text: true } | { format: 'summary' })): Promise<string>;
  /** Where the programs of an input are: models, methods, entries. */
  layout(input: Input, options?: InputOptions): Promise<InputLayout>;
  /** Every pass the core knows (names for options.passes). */
  listPasses(): Promise<PassInfo[]>;
  /** Bytes of WebAssembly memory the instance holds (it grows and never shrinks; drop the converter to free it). */
  wasmMemoryBytes(): Promise<number>;
  /** Lets the calls under way finish, then stops the internal worker (freeing its memory); a later call starts a new one. */
  close(): Promise<void>;
}

/**
 * Synchronous twins, present when the core runs on the calling thread (inside
 * a worker, or with {worker: false}). A Blob input needs FileReaderSync (a worker).
 *
 * They read program JSON (text or bytes) and unpacked archive folders
 * (`{files}`), and decodePteSync reads any .pte. They cannot read a .pt2
 * (zip) archive, main input or swap: its directory is read by zip.js, which
 * is asynchronous. Such an input throws PteforgeError UNSUPPORTED_FEATURE
 * (where.entry = the input's name); use the async method.
 */
export interface PteforgeSync<Pte = Blob> extends Pteforge<Pte> {
  convertSync(input: Input, options?: ConvertOptions): ConvertResult<Pte>;
  inspectSync(input: Input, options?: InspectOptions & { text?: false }): Record<string, unknown>;
  inspectSync(input: Input, options: InspectOptions & { text: true }): string;
  listModulesSync(input: Input, options?: InspectOptions & { text?: false }): ModuleEntry[];
  listModulesSync(input: Input, options: InspectOptions & { text: true }): string;
  decodePteSync(input: Input, options?: DecodeOptions & { text?: false; format?: 'json' | 'flatc-json' }): Record<string, unknown>;
  decodePteSync(input: Input, options: DecodeOptions & { text?: false; format: 'check' }): LoadCheck;
  decodePteSync(input: Input, options: DecodeOptions & ({ text: true } | { format: 'summary' })): string;
  layoutSync(input: Input, options?: InputOptions): InputLayout;
  listPassesSync(): PassInfo[];
  wasmMemoryBytesSync(): number;
}

/** Options of createPteforge() in browsers and workers. */
export interface CreateOptions {
  /**
   * Run the core in an internal module worker. Default: true on a main
   * thread, false inside a worker (where the converter is a PteforgeSync).
   */
  worker?: boolean;
  /** URL of pteforge.wasm (default: next to the package's pteforge.mjs). */
  wasmUrl?: string | URL;
  /** Emscripten's locateFile hook; called with "pteforge.wasm". */
  locateFile?: (path: string, prefix: string) => string;
  /** The .wasm bytes, to skip fetching. */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** URL of the internal worker script (default: the package's worker.mjs). */
  workerUrl?: string | URL;
  print?: (text: string) => void;
  /**
   * Where the WebAssembly module's stderr goes. By default nothing is printed: the module writes there only
   * when it fails (an abort, a .wasm that does not compile), and its last lines become notes of the INTERNAL error.
   */
  printErr?: (text: string) => void;
}

/** Creates an independent converter (each has its own WASM instance). */
export declare function createPteforge(options?: CreateOptions): Promise<Pteforge<Blob>>;
/** One shared converter, created on first use. */
export declare function getPteforge(): Promise<Pteforge<Blob>>;
