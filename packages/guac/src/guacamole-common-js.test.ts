// Does the browser's own parser read what our encoder writes? Checked against the exact
// guacamole-common-js the viewer ships (1.5.0, root devDependency).
//
// Node: the 1.5.0 ESM bundle imports in Node 20 with no globals at all — it only touches
// window/document/navigator when objects such as Keyboard, Mouse or WebSocketTunnel are
// constructed, and Guacamole.Parser uses none of them.
//
// Astral characters: 1.5.0 counts element lengths in UTF-16 units (`String#length`), the
// protocol counts code points (guacd, and upstream guacamole-common-js from 1.5.2). For an
// element holding astral characters, 1.5.0 therefore takes the value's first L UTF-16 units
// (L = our code point count, short by one unit per astral character) and reads the unit right
// after them — which is still inside the value — as the terminator:
//   - not ',' or ';' → receive() throws Error('Illegal terminator.');
//   - ',' or ';'     → it accepts the cut, truncated element and keeps framing from inside the
//                      value (the CVE-2023-30575 class: data read as protocol).
// The tests below assert exactly that, and that 1.5.0 reads the same stream correctly when the
// lengths are given in UTF-16 units, so the length unit is the whole difference. Our side stays
// correct regardless: the gateway and bridge count code points like guacd. (1.5.0's
// WebSocketTunnel has its own inline parser with the same counting and no terminator check, and
// its senders also write UTF-16 lengths — see the package report.)

import fc from 'fast-check';
import Guacamole from 'guacamole-common-js';
import { describe, expect, it } from 'vitest';
import { encodeInstruction } from './encoder.js';
import type { GuacInstruction } from './parser.js';
import { bmpElementArb, elementArb, splitsArb, splitText } from './test-support/arbitraries.js';

const RUNS = 10_000;

interface LegacyResult {
  delivered: GuacInstruction[];
  thrown: unknown;
}

/** Feeds text pieces to a fresh Guacamole.Parser (1.5.0) and records what it does. */
function readWithGuacamoleParser(pieces: readonly string[]): LegacyResult {
  const parser = new Guacamole.Parser();
  const delivered: GuacInstruction[] = [];
  // It reuses its argument array after the handler returns: copy.
  parser.oninstruction = (opcode: string, args: unknown[]) => {
    delivered.push({ opcode, args: args.map(String) });
  };
  let thrown: unknown;
  try {
    for (const piece of pieces) parser.receive(piece);
  } catch (error) {
    thrown = error;
  }
  return { delivered, thrown };
}

const hasAstral = (s: string): boolean => /[\uD800-\uDBFF][\uDC00-\uDFFF]/.test(s);

const bmpInstructionsArb = fc.array(
  fc.record({ opcode: bmpElementArb, args: fc.array(bmpElementArb, { maxLength: 6 }) }),
  { minLength: 1, maxLength: 5 },
);
// Streams where astral characters are common.
const astralElementArb = fc.oneof(
  elementArb,
  fc.string({
    unit: fc.constantFrom('😀', '𝄞', ',', ';', '.', '1', 'a'),
    minLength: 1,
    maxLength: 8,
  }),
);
const astralInstructionsArb = fc
  .array(
    fc.record({ opcode: astralElementArb, args: fc.array(astralElementArb, { maxLength: 6 }) }),
    {
      minLength: 1,
      maxLength: 5,
    },
  )
  .filter((instructions) =>
    instructions.some((i) => hasAstral(i.opcode) || i.args.some(hasAstral)),
  );

function encodeAll(instructions: readonly GuacInstruction[]): string {
  return instructions.map((i) => encodeInstruction(i.opcode, ...i.args)).join('');
}

// The same framing with UTF-16 unit lengths, as 1.5.0 itself writes them.
function encodeAllUtf16(instructions: readonly GuacInstruction[]): string {
  return instructions
    .map((i) => [i.opcode, ...i.args].map((e) => `${e.length}.${e}`).join(',') + ';')
    .join('');
}

describe('guacamole-common-js 1.5.0 Guacamole.Parser reading our encoder', () => {
  it('reads a handshake-shaped stream identically', () => {
    const stream =
      encodeInstruction('', '2c1b1f12-0d8a-4d2b-9b44-0ec1cf0b7f2a') +
      encodeInstruction('size', 0, 1024, 768) +
      encodeInstruction('blob', 1, 'iVBORw0KGgo=') +
      encodeInstruction('sync', 1234);
    expect(readWithGuacamoleParser([stream])).toEqual({
      delivered: [
        { opcode: '', args: ['2c1b1f12-0d8a-4d2b-9b44-0ec1cf0b7f2a'] },
        { opcode: 'size', args: ['0', '1024', '768'] },
        { opcode: 'blob', args: ['1', 'iVBORw0KGgo='] },
        { opcode: 'sync', args: ['1234'] },
      ],
      thrown: undefined,
    });
  });

  it('reads any BMP-only stream identically, in any chunking', () => {
    fc.assert(
      fc.property(bmpInstructionsArb, splitsArb, (instructions, splits) => {
        const result = readWithGuacamoleParser(splitText(encodeAll(instructions), splits));
        expect(result.thrown).toBeUndefined();
        expect(result.delivered).toEqual(instructions);
      }),
      { numRuns: RUNS },
    );
  });

  it('diverges on astral characters exactly as UTF-16 counting predicts', () => {
    let sawThrow = 0;
    let sawMisframe = 0;
    fc.assert(
      fc.property(astralInstructionsArb, splitsArb, (instructions, splits) => {
        const result = readWithGuacamoleParser(splitText(encodeAll(instructions), splits));

        // Everything before the first instruction with an astral character is read correctly.
        const at = instructions.findIndex((i) => hasAstral(i.opcode) || i.args.some(hasAstral));
        expect(result.delivered.slice(0, at)).toEqual(instructions.slice(0, at));

        // In that instruction, the first element with an astral character is cut after L units.
        const ours = instructions[at] as GuacInstruction;
        const elements = [ours.opcode, ...ours.args];
        const index = elements.findIndex(hasAstral);
        const value = elements[index] as string;
        const codePoints = [...value].length;
        const cut = value.slice(0, codePoints);
        const unitReadAsTerminator = value[codePoints];

        if (unitReadAsTerminator !== ',' && unitReadAsTerminator !== ';') {
          sawThrow++;
          expect(result.delivered).toHaveLength(at);
          expect(result.thrown).toBeInstanceOf(Error);
          expect((result.thrown as Error).message).toBe('Illegal terminator.');
          return;
        }
        sawMisframe++;
        // Misframed: the truncated element is accepted, so whatever it delivers next is not ours.
        const next = result.delivered[at];
        if (unitReadAsTerminator === ';') {
          const [opcode = '', ...args] = [...elements.slice(0, index), cut];
          expect(next).toEqual({ opcode, args });
        } else if (next !== undefined) {
          expect([next.opcode, ...next.args][index]).toBe(cut);
        }
        expect(next).not.toEqual(ours);
      }),
      { numRuns: RUNS },
    );
    // Both branches must actually have been exercised.
    expect(sawThrow).toBeGreaterThan(100);
    expect(sawMisframe).toBeGreaterThan(100);
  });

  it('reads astral streams identically when lengths are UTF-16 units, so the unit is the only difference', () => {
    fc.assert(
      fc.property(astralInstructionsArb, splitsArb, (instructions, splits) => {
        const result = readWithGuacamoleParser(splitText(encodeAllUtf16(instructions), splits));
        expect(result.thrown).toBeUndefined();
        expect(result.delivered).toEqual(instructions);
      }),
      { numRuns: RUNS },
    );
  });
});
