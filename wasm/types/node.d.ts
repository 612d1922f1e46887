// Type declarations of the pteforge package's Node entry (export condition
// "node"). The core runs on the calling thread: every method has a *Sync
// twin; inputs may also be file paths ({path}), read by range, never whole;
// the .pte is a Uint8Array, or streamed to a file by convertToFile.

import type {
  ConvertOptions,
  ConvertResult,
  DecodeOptions,
  InputLayout,
  InputOptions,
  InspectOptions,
  LoadCheck,
  ModuleEntry,
  ModuleInfo,
  PassInfo,
  PassReport,
  PteMetadata,
  PteforgeSync,
} from './index.js';
import type * as Browser from './index.js';

export type {
  Bytes,
  ConvertOptions,
  ConvertResult,
  DecodeOptions,
  ErrorCode,
  ErrorLocation,
  InputLayout,
  InputOptions,
  InspectOptions,
  LoadCheck,
  LoadProblem,
  ModuleEntry,
  ModuleInfo,
  PassInfo,
  PassReport,
  Progress,
  PteMetadata,
} from './index.js';
export { PteforgeError } from './index.js';

/** Any browser input form (a Blob is read whole first: Node has no FileReaderSync), or a file path. */
export type Input = Browser.Input | { path: string };

/** Node converter options, with `swaps` taking Node inputs. */
export interface NodeConvertOptions extends Omit<ConvertOptions, 'swaps'> {
  swaps?: Record<string, Input>;
}

/** What convertToFile returns. */
export interface ConvertToFileResult {
  /** The file written (through a temporary file renamed at the end). */
  path: string;
  /** Its size in bytes. */
  size: number;
  /** As ConvertResult.metadata: parsed from its JSON when first read. */
  metadata: PteMetadata;
  /** As ConvertResult.metadataText. */
  metadataText: string;
  report: PassReport;
  /** With options.exportProgram: method name → its program JSON after the passes (as ConvertResult.program). */
  program?: Record<string, unknown>;
  /** As ConvertResult.programText. */
  programText?: string;
}

/**
 * The Node converter: every method also as *Sync; the .pte as a Uint8Array.
 * The *Sync methods read program JSON and unpacked folders (`{files}`, or
 * `{path}` of a folder), not .pt2 archives: zip.js, which reads those, is
 * asynchronous (PteforgeError UNSUPPORTED_FEATURE; use the async method).
 */
export interface NodePteforge extends Omit<PteforgeSync<Uint8Array>,
  'convert' | 'convertSync' | 'inspect' | 'inspectSync' | 'listModules' | 'listModulesSync' |
  'decodePte' | 'decodePteSync' | 'layout' | 'layoutSync'> {
  readonly info: ModuleInfo;
  convert(input: Input, options?: NodeConvertOptions): Promise<ConvertResult<Uint8Array>>;
  convertSync(input: Input, options?: NodeConvertOptions): ConvertResult<Uint8Array>;
  /** Converts and streams the .pte to `path`; weights are copied from the input in 1 MiB pieces. */
  convertToFile(input: Input, path: string, options?: NodeConvertOptions): Promise<ConvertToFileResult>;
  /** convertToFile for program JSON and unpacked folders (not .pt2 archives: UNSUPPORTED_FEATURE). */
  convertToFileSync(input: Input, path: string, options?: NodeConvertOptions): ConvertToFileResult;
  inspect(input: Input, options?: InspectOptions & { text?: false }): Promise<Record<string, unknown>>;
  inspect(input: Input, options: InspectOptions & { text: true }): Promise<string>;
  inspectSync(input: Input, options?: InspectOptions & { text?: false }): Record<string, unknown>;
  inspectSync(input: Input, options: InspectOptions & { text: true }): string;
  listModules(input: Input, options?: InspectOptions & { text?: false }): Promise<ModuleEntry[]>;
  listModules(input: Input, options: InspectOptions & { text: true }): Promise<string>;
  listModulesSync(input: Input, options?: InspectOptions & { text?: false }): ModuleEntry[];
  listModulesSync(input: Input, options: InspectOptions & { text: true }): string;
  decodePte(input: Input, options?: DecodeOptions & { text?: false; format?: 'json' | 'flatc-json' }): Promise<Record<string, unknown>>;
  decodePte(input: Input, options: DecodeOptions & { text?: false; format: 'check' }): Promise<LoadCheck>;
  decodePte(input: Input, options: DecodeOptions & ({ text: true } | { format: 'summary' })): Promise<string>;
  decodePteSync(input: Input, options?: DecodeOptions & { text?: false; format?: 'json' | 'flatc-json' }): Record<string, unknown>;
  decodePteSync(input: Input, options: DecodeOptions & { text?: false; format: 'check' }): LoadCheck;
  decodePteSync(input: Input, options: DecodeOptions & ({ text: true } | { format: 'summary' })): string;
  layout(input: Input, options?: InputOptions): Promise<InputLayout>;
  layoutSync(input: Input, options?: InputOptions): InputLayout;
}

/** Options of createPteforge() in Node. */
export interface NodeCreateOptions {
  /** The .wasm bytes (default: read from pteforge.wasm next to the entry). */
  wasmBinary?: Uint8Array;
  /** Where to read the .wasm from instead. */
  wasmPath?: string | URL;
  print?: (text: string) => void;
  /**
   * Where the WebAssembly module's stderr goes. By default nothing is printed: the module writes there only
   * when it fails (an abort, a .wasm that does not compile), and its last lines become notes of the INTERNAL error.
   */
  printErr?: (text: string) => void;
}

/** Creates an independent converter (each has its own WASM instance). */
export declare function createPteforge(options?: NodeCreateOptions): Promise<NodePteforge>;
/** One shared converter per process, created on first use. */
export declare function getPteforge(): Promise<NodePteforge>;
