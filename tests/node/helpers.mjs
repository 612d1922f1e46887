// Shared helpers of the node:test suites of the npm package.
//
// The package is loaded BY NAME through its "exports" map (engineering-notes
// D11): a scratch project under build/node-tests/<preset>/ has
// node_modules/pteforge linked to the package the build assembled
// (build/<preset>/wasm/package), and a one-line module there re-exports
// 'pteforge'. PTEFORGE_WASM_PRESET picks the flavour (wasm-release, the
// default, or wasm-debug: -sASSERTIONS=2 -sSAFE_HEAP=1).
// The native CLI (for byte-identity) is build/native-debug/core/pteforge, or
// PTEFORGE_CLI. scripts/test.sh's node stage builds both first.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const PRESET = process.env.PTEFORGE_WASM_PRESET ?? 'wasm-release';
export const PACKAGE_DIR = process.env.PTEFORGE_PACKAGE_DIR ?? join(ROOT, 'build', PRESET, 'wasm', 'package');
export const CLI = process.env.PTEFORGE_CLI ?? join(ROOT, 'build', 'native-debug', 'core', 'pteforge');

/** Path of a file in the repository. */
export function repo(...parts) {
  return join(ROOT, ...parts);
}

/** The scratch project that depends on the built package (created once, atomically). */
export function scratchProject() {
  const dir = join(ROOT, 'build', 'node-tests', PRESET);
  if (existsSync(join(dir, 'load.mjs'))) return dir;
  if (!existsSync(join(PACKAGE_DIR, 'package.json'))) {
    throw new Error(`${PACKAGE_DIR} has no package.json: build it (cmake --build --preset ${PRESET} --target pteforge_package)`);
  }
  mkdirSync(dirname(dir), { recursive: true });
  // Test files run in parallel processes: build in a temp folder, then rename.
  const tmp = mkdtempSync(`${dir}.tmp-`);
  mkdirSync(join(tmp, 'node_modules'));
  symlinkSync(PACKAGE_DIR, join(tmp, 'node_modules', 'pteforge'), 'dir');
  writeFileSync(join(tmp, 'package.json'), '{ "private": true, "type": "module" }\n');
  writeFileSync(join(tmp, 'load.mjs'), "export * from 'pteforge';\n");
  try {
    renameSync(tmp, dir);
  } catch {
    rmSync(tmp, { recursive: true, force: true }); // another process won
  }
  return dir;
}

/** The package's exports, imported by name ('pteforge'). */
export async function loadPackage() {
  return import(pathToFileURL(join(scratchProject(), 'load.mjs')).href);
}

let converter = null;
/** One converter per test file. */
export async function pteforge() {
  converter ??= (await loadPackage()).createPteforge();
  return converter;
}

/** Runs the native CLI; {status, stdout: Buffer, stderr: string}. */
export function runCli(args, options = {}) {
  if (!existsSync(CLI)) throw new Error(`native CLI ${CLI} missing: cmake --build --preset native-debug --target pteforge`);
  const r = spawnSync(CLI, args, { cwd: ROOT, maxBuffer: 1 << 30, ...options });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr.toString() };
}

/** True when the native CLI has subcommand `name`. */
export function cliHas(name) {
  const help = runCli(['--help']).stdout.toString();
  const section = help.slice(help.indexOf('Subcommands:'));
  return new RegExp(`^\\s+${name}\\s`, 'm').test(section);
}
