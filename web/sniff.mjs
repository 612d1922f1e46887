// What kind of file a dropped file is, from its first bytes: shared by the
// page (app.mjs: which errors get a line of text) and its worker (worker.mjs:
// open a .pte in the viewer or a program for conversion).

/**
 * True when `head` (the first 8 bytes or more) holds an ExecuTorch
 * identifier: "ET" and two digits at byte 4 (e.g. ET12).
 */
export function hasPteIdentifier(head) {
  const digit = (b) => b >= 0x30 && b <= 0x39;
  return head.length >= 8 && head[4] === 0x45 && head[5] === 0x54 && digit(head[6]) && digit(head[7]);
}
