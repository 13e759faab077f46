// Encoding Guacamole instructions: `LENGTH.VALUE` elements joined by `,` and ended by `;`, where
// LENGTH counts Unicode code points. Hot path for the gateway's base64 `blob` data, so it works on
// whole strings (a regex probe and a few concatenations), never character by character.

// Any UTF-16 surrogate unit. V8 answers this in O(1) for one-byte (Latin-1) strings such as
// base64, because such strings cannot hold a surrogate.
const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * Number of Unicode code points in `value`: a surrogate pair counts once, a lone surrogate
 * counts once (it becomes one U+FFFD when written as UTF-8). This, not `.length`, is what the
 * Guacamole protocol's element lengths count.
 */
export function codePointLength(value: string): number {
  const first = value.search(SURROGATE);
  if (first < 0) return value.length;
  let pairs = 0;
  const end = value.length - 1;
  for (let i = first; i < end; i++) {
    const c = value.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = value.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        pairs++;
        i++;
      }
    }
  }
  return value.length - pairs;
}

function elementText(value: string | number): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  // A programming error in the caller, not bad input from a peer: fail loudly at the call site.
  throw new TypeError(
    `Cannot encode ${String(value)} as a Guacamole element: pass a string or a finite number.`,
  );
}

/** One element, `LENGTH.VALUE`, without a separator. */
export function encodeElement(value: string | number): string {
  const text = elementText(value);
  return `${codePointLength(text)}.${text}`;
}

/**
 * One whole instruction, e.g. `encodeInstruction('size', 0, 1024, 768)` → `4.size,1.0,4.1024,3.768;`.
 * An empty opcode is allowed (the WebSocket tunnel's internal instructions use it).
 */
export function encodeInstruction(opcode: string, ...args: readonly (string | number)[]): string {
  let out = encodeElement(opcode);
  for (const arg of args) out += ',' + encodeElement(arg);
  return out + ';';
}

/**
 * An instruction with lengths in UTF-16 units, as guacamole-common-js ≤ 1.5.1 counts them
 * (`String#length`). Only for the WebSocket leg to such a browser: identical to
 * encodeInstruction for text without astral characters, and the only framing that browser
 * reads correctly for text with them. Never send this to guacd.
 */
export function encodeInstructionUtf16(
  opcode: string,
  ...args: readonly (string | number)[]
): string {
  const op = elementText(opcode);
  let out = `${op.length}.${op}`;
  for (const arg of args) {
    const text = elementText(arg);
    out += `,${text.length}.${text}`;
  }
  return out + ';';
}
