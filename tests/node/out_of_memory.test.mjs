// Running out of WebAssembly memory is OUT_OF_MEMORY (not INTERNAL, which
// says "a bug, please report it"), with a message that gives the memory held
// and the limit; the converter's instance is replaced after it, as after any
// abort, and the next call works. wasm/src/out_of_memory.cpp marks every
// failed allocation; wasm/js/api.mjs maps the mark.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';

import { PACKAGE_DIR, pteforge, repo, scratchProject } from './helpers.mjs';

const MiB = 2 ** 20;
/** The module's maximum memory (-sMAXIMUM_MEMORY=4GB: 4 GiB less one 64 KiB page), as messages give it. */
const LIMIT_TEXT = '4095.9 MiB';

/** The message of OUT_OF_MEMORY for an instance that held `held` and could not get `more`. */
function outOfMemoryMessage(held, more, limit = LIMIT_TEXT) {
  return `the converter ran out of WebAssembly memory: it held ${held} and could not get ${more} ` +
    `(WebAssembly memory is limited to ${limit} here, less where the engine gives less, and to under 2 GiB in one block); ` +
    'use a smaller model, or the native pteforge CLI, which has no such limit';
}

test('a .pte too big for the memory the engine gives is OUT_OF_MEMORY, and the same converter works after it', { timeout: 60_000 }, async () => {
  // A child Node whose engine gives a WebAssembly instance at most 64 MiB
  // (V8's --wasm-max-mem-pages; a browser or device short of memory does the
  // same), and a .pte with no extended header whose 62 MiB program part
  // decodePte copies into the instance (as it must, to read the flatbuffer):
  // that first copy cannot get the memory. Held: the instance's initial 16 MiB.
  const add = repo('tests/data/reference/pte/add.pte');
  const script = `
    import { readFileSync } from 'node:fs';
    const { createPteforge } = await import(${JSON.stringify(pathToFileURL(join(scratchProject(), 'load.mjs')).href)});
    const pf = await createPteforge();
    const out = { before: await pf.wasmMemoryBytes() };
    const pte = new Uint8Array(62 * 2 ** 20);
    pte.set([0, 0, 0, 0, 0x45, 0x54, 0x31, 0x32]);  // root offset 0, identifier "ET12"
    try {
      await pf.decodePte(pte, { name: 'big.pte' });
    } catch (e) {
      out.error = { name: e.name, code: e.code, message: e.message, where: e.where, notes: e.notes, text: String(e),
                    cause: e.cause instanceof WebAssembly.RuntimeError };
    }
    out.next = await pf.decodePte(readFileSync(${JSON.stringify(add)}), { format: 'summary' });
    out.after = await pf.wasmMemoryBytes();
    process.stdout.write('\\n' + JSON.stringify(out));
  `;
  // The last line: the wasm-debug flavour's glue prints heap resizes to stdout.
  const stdout = execFileSync(process.execPath, ['--wasm-max-mem-pages=1024', '--input-type=module', '-e', script], { encoding: 'utf8' });
  const out = JSON.parse(stdout.slice(stdout.lastIndexOf('\n') + 1));
  assert.equal(out.before, 16 * MiB);
  // The copy of 62 MiB is a string of 62 MiB + 16 bytes (62 MiB as the message rounds it).
  const message = outOfMemoryMessage('16 MiB', '62 MiB more');
  assert.deepEqual(out.error, {
    name: 'PteforgeError', code: 'OUT_OF_MEMORY', message, where: {}, notes: [], text: `OUT_OF_MEMORY: ${message}`, cause: true,
  });
  // The instance was replaced (a fresh one holds 16 MiB again) and answers as any converter does.
  const pf = await pteforge();
  assert.equal(out.next, await pf.decodePte(readFileSync(add), { format: 'summary' }));
  assert.equal(out.after, 16 * MiB);
});

test('an allocation that fails without a size (the new handler) is OUT_OF_MEMORY too; other aborts stay INTERNAL', async () => {
  // The wrapper over a stand-in module whose `_layout` aborts as the real one
  // does: marked (Module.pteforgeOutOfMemory) for a failed allocation, bare
  // for anything else.
  const { Core } = await import(pathToFileURL(join(PACKAGE_DIR, 'dist', 'api.mjs')).href);
  const { makeConverter } = await import(pathToFileURL(join(PACKAGE_DIR, 'dist', 'instance.mjs')).href);
  const stderr = [];
  let loads = 0;
  const fakeModule = () => {
    const m = {
      HEAPU8: { length: 1.5 * MiB + 2 ** 16 },  // the memory held when the call fails
      _version: () => JSON.stringify({ name: 'fake', features: ['layout'] }),
      _layout: (description) => {
        const { name } = JSON.parse(description);
        if (name === 'ok') return { ok: true, text: '{"models": []}' };
        // What the glue does on abort(): print, then throw.
        stderr.push('Aborted()');
        if (name === 'oom') m.pteforgeOutOfMemory = { requested: 0, limit: 2 ** 31 - 2 ** 16 };
        throw new WebAssembly.RuntimeError('Aborted(). Build with -s ASSERTIONS=1 for more info.');
      },
    };
    return m;
  };
  const core = new Core({
    loadModule: async () => {
      loads += 1;
      return fakeModule();
    },
    openSource: () => null,
    prepare: async (value) => value,
    stderr,
  });
  const pf = makeConverter(core, { assemble: () => new Uint8Array(0) });
  await assert.rejects(pf.layout('{}', { name: 'oom' }), (e) => {
    assert.equal(e.code, 'OUT_OF_MEMORY');
    assert.equal(e.message, outOfMemoryMessage('1.6 MiB', 'more', '2047.9 MiB'));
    assert.deepEqual(e.notes, []);
    return true;
  });
  assert.deepEqual(await pf.layout('{}', { name: 'ok' }), { models: [] });
  await assert.rejects(pf.layout('{}', { name: 'bug' }), (e) => {
    assert.equal(e.code, 'INTERNAL');
    assert.equal(e.message, 'the pteforge core failed (RuntimeError: Aborted(). Build with -s ASSERTIONS=1 for more info.); ' +
      'the instance was reset, please report this with the input');
    assert.deepEqual(e.notes, ['the module printed: Aborted()']);
    return true;
  });
  assert.deepEqual(await pf.layout('{}', { name: 'ok' }), { models: [] });
  assert.equal(loads, 3, 'each abort replaced the instance');
});

test('an array JavaScript cannot allocate is OUT_OF_MEMORY naming its size and use, not a bare RangeError', async () => {
  const { newBytes } = await import(pathToFileURL(join(PACKAGE_DIR, 'dist', 'errors.mjs')).href);
  assert.equal(newBytes(3, 'x').length, 3);
  // 2^53 bytes: past every engine's ArrayBuffer limit (RangeError: Invalid typed array length).
  assert.throws(() => newBytes(2 ** 53, "the .pte's program part"), (e) => {
    assert.equal(e.name, 'PteforgeError');
    assert.equal(e.code, 'OUT_OF_MEMORY');
    assert.match(e.message, /^could not allocate 8589934592 MiB of JavaScript memory for the \.pte's program part \(Invalid typed array length: 9007199254740992\); use the native pteforge CLI for a file this large$/);
    assert.ok(e.cause instanceof RangeError);
    return true;
  });
});
