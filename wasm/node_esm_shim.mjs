// --extern-pre-js of the DEBUG embind module only (wasm/CMakeLists.txt). With
// -sASSERTIONS the glue checks its environment, so the debug flavour must be
// built for node too, and 3.1.6's ES-module glue then uses require/__dirname,
// which ES modules lack (engineering-notes E3). This defines both. It imports
// node: modules, so the debug flavour runs in Node only (tests, D11); browsers
// get the release flavour, which has no Node code at all.
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
const require = createRequire(import.meta.url);
const __dirname = dirname(fileURLToPath(import.meta.url));
