// Compiled with `tsc --noEmit --strict` against the package's browser typings
// (package.test.mjs, moduleResolution bundler: the exports map's "types").
import { createPteforge, getPteforge, PteforgeError } from 'pteforge';
import type { ConvertResult, ErrorCode, Input, Pteforge } from 'pteforge';

async function main(file: File, files: File[]): Promise<void> {
  const pf: Pteforge<Blob> = await createPteforge({ wasmUrl: '/assets/pteforge.wasm' });
  const inWorker = await createPteforge({ worker: false, locateFile: (p, prefix) => prefix + p });
  const shared = await getPteforge();
  const r: ConvertResult<Blob> = await pf.convert(file, { onProgress: ({ stage, done, total }) => void [stage, done / total] });
  const pte: Blob = r.pte;
  const folder: Input = { files };
  const summary: Record<string, unknown> = await inWorker.inspect(folder);
  const text: string = await shared.inspect(file, { text: true });
  const decoded: Record<string, unknown> = await pf.decodePte(pte);
  void [summary, text, decoded];
  try {
    await pf.convert(new ArrayBuffer(4), { name: 'empty.pt2' });
  } catch (e) {
    if (e instanceof PteforgeError) {
      const code: ErrorCode = e.code;
      void code;
    }
  }
  await pf.close();
}
void main;
