// JSON text from the core → JavaScript values, without rounding integers.
//
// The core writes 64-bit integers exactly (a slice's end of 2^63 - 1, which
// torch.export writes for `x[a:]`; a constant method's value); JSON.parse
// would round those past 2^53 to the nearest double. parseJson keeps every
// integer outside ±(2^53 - 1) as a BigInt, every other number as a number.
// lossless-json (npm, shipped in dist/lossless-json/) parses the texts that
// may hold one; texts without a run of 16 digits cannot, and take JSON.parse.

import { isInteger, parse } from './lossless-json/index.js';

const MAYBE_UNSAFE = /\d{16}/;

function parseNumber(text) {
  if (isInteger(text)) {
    const n = Number(text);
    return Number.isSafeInteger(n) ? n : BigInt(text);
  }
  return Number(text);
}

/** JSON.parse, with integers outside ±(2^53 - 1) as BigInt. Throws SyntaxError as JSON.parse does. */
export function parseJson(text) {
  if (!MAYBE_UNSAFE.test(text)) return JSON.parse(text);
  return parse(text, null, parseNumber);
}
