// Compiled with `tsc --noEmit --strict` against the package's Node typings
// (package.test.mjs, moduleResolution node16, so the "node" condition of the
// exports map picks types/node.d.ts). Uses every public name once.
import { createPteforge, getPteforge, PteforgeError } from 'pteforge';
import type { ConvertToFileResult, ErrorCode, Input, NodePteforge, Progress } from 'pteforge';

async function main(): Promise<void> {
  const pf: NodePteforge = await createPteforge({ wasmPath: new URL('file:///x/pteforge.wasm') });
  const shared: NodePteforge = await getPteforge();
  const bytes = new Uint8Array(8);
  const input: Input = { path: 'model.pt2' };
  const r = await pf.convert(input, {
    passes: ['memory_planning'],
    memoryPlanning: 'greedy',
    swaps: { 'encoder.layer.1': { path: 'replacement.pt2' } },
    onProgress: (p: Progress) => void p.stage.length,
  });
  const pte: Uint8Array = r.pte;
  const written: ConvertToFileResult = await pf.convertToFile(bytes, 'out.pte');
  const size: number = written.size + pte.length + pf.convertSync('{}').pte.length;
  const text: string = await pf.decodePte(bytes, { format: 'summary' });
  const json: Record<string, unknown> = pf.decodePteSync(bytes, { format: 'flatc-json' });
  const raw: string = pf.decodePteSync(bytes, { text: true });
  const summary: string = await pf.inspect({ files: { 'models/model.json': '{}' } }, { text: true });
  const modules = await shared.listModules(new Blob([bytes]));
  const layout = pf.layoutSync({ data: bytes, name: 'x.pt2' });
  const methods: string[] = layout.models.map((m) => m.method);
  const heap: number = (await pf.wasmMemoryBytes()) + pf.wasmMemoryBytesSync();
  const features: string[] = pf.info.features;
  void [size, text, json, raw, summary, modules, methods, heap, features];
  try {
    await pf.convert(bytes);
  } catch (e) {
    if (e instanceof PteforgeError) {
      const code: ErrorCode = e.code;
      const offset: number | undefined = e.where.byte_offset;
      const line: string = e.toString() + e.notes.join('') + JSON.stringify(e.toJSON());
      void [code, offset, line];
    }
  }
  await pf.close();
}
void main;
