// A stand-in for the pteforge package's browser entry with a scripted
// convert(), so the page's convert flow (options, progress, downloads, pass
// report, memory chart, decoded view, errors) is tested in Chromium before the
// real package has convert. Its data are real pteforge outputs for the corpus
// case layernorm_residual: inspect.json (`inspect --json`; its
// preserved_calls for norm and proj added by hand, so that the page offers
// them for swaps), output.pte and
// metadata.json (`convert --metadata`), output.decoded.json (`decode --json`).
// convert() echoes the options it was given in metadata.received_options.

export class PteforgeError extends Error {
  constructor(code, message, where = {}, notes = []) {
    super(message);
    this.name = 'PteforgeError';
    this.code = code;
    this.where = where;
    this.notes = notes;
  }
  toJSON() {
    return { code: this.code, message: this.message, where: this.where, notes: this.notes };
  }
}

const data = (name) => fetch(new URL(name, import.meta.url));

export async function createPteforge() {
  return {
    info: { name: 'pteforge', version: '0.0.0-fake', emscripten: '3.1.6', features: ['inspect', 'decodePte', 'convert', 'listPasses'], errorCodes: [] },
    async listPasses() {
      return [
        { name: 'remove_tensor_metadata_asserts', summary: 'drops _assert_tensor_metadata nodes', group: 'to_edge', implemented: true, default: true },
        { name: 'decompose', summary: 'training IR to Core ATen', group: 'to_edge', implemented: false, default: true },
        { name: 'spec_prop', summary: 'tensor specs for every value', group: 'to_executorch', implemented: true, default: true },
        { name: 'memory_planning', summary: 'places tensors in the arena', group: 'to_executorch', implemented: true, default: true },
        { name: 'legalize', summary: 'topological sort', group: 'swap_modules', implemented: true, default: false },
      ];
    },
    async inspect() {
      return (await data('inspect.json')).json();
    },
    async decodePte(input, { text = false, format } = {}) {
      if (format === 'check') return { passed: true, methods: 1, total: 0, problems: [] };
      const t = await (await data('output.decoded.json')).text();
      return text ? t : JSON.parse(t);
    },
    async convert(input, options = {}) {
      const { onProgress, name, swaps, ...rest } = options;
      if (rest.memoryPlanning === 'best') {
        throw new PteforgeError('PASS_FAILED', 'scripted failure for memoryPlanning "best"', { method: 'forward', pass: 'memory_planning', node: 'add' }, ['a note']);
      }
      const stages = ['read', 'passes', 'emit', 'assemble'];
      for (const [i, stage] of stages.entries()) {
        for (let done = 0; done <= 2; done++) {
          onProgress?.({ stage, done, total: 2 });
          await new Promise((r) => setTimeout(r, 5));
        }
        void i;
      }
      const metadata = await (await data('metadata.json')).json();
      metadata.received_options = { ...rest, name, swaps: Object.fromEntries(Object.entries(swaps ?? {}).map(([k, v]) => [k, v?.name ?? typeof v])) };
      const pte = new Blob([await (await data('output.pte')).arrayBuffer()]);
      // exportProgram: the programs after the passes, here a scripted stand-in.
      const program = rest.exportProgram ? { forward: { scripted: true } } : undefined;
      // The real package also returns the texts the CLI writes (the page's downloads).
      const metadataText = JSON.stringify(metadata, null, 2) + '\n';
      return {
        pte, metadata, metadataText, report: metadata.pass_report,
        ...(program ? { program, programText: JSON.stringify(program) } : {}),
      };
    },
    async close() {},
  };
}
