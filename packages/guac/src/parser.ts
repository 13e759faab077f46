// Streaming Guacamole instruction parser: bytes (or text) in, whole instructions out.
//
// Owns three guarantees the rest of the system relies on:
// - element lengths count Unicode code points, never UTF-16 units or bytes (a miscount lets
//   element data be read as instructions — CVE-2023-30575 was this class of bug);
// - input may be cut anywhere: mid-instruction, mid-element, mid-length, mid-UTF-8 character;
// - malformed or oversized input fails with a GuacProtocolError, after which the parser is dead
//   and reads nothing more, so no byte after the fault can ever be taken for an instruction.
// Values are sliced out of the decoded text by index; large values that arrive over many chunks
// are kept as a list of slices and joined once, so the cost stays linear in the data.

import { Buffer, isAscii } from 'node:buffer';
import { GuacProtocolError, GuacStatus } from './status.js';

export interface GuacInstruction {
  opcode: string;
  args: string[];
}

export interface ParserLimits {
  /** Largest element value, in code points. */
  maxElementCodePoints: number;
  /** Largest whole instruction (lengths, dots, separators and values), in code points. */
  maxInstructionCodePoints: number;
  /** Most elements in one instruction, the opcode included. */
  maxElements: number;
}

/**
 * What element lengths count. `code-point` is the protocol (guacd, guacamole-common-js ≥ 1.5.2).
 * `utf16` is what guacamole-common-js ≤ 1.5.1 writes and expects (`String#length`): use it only
 * on the WebSocket leg to such a browser, never towards guacd. Limits count the same unit.
 */
export type LengthUnit = 'code-point' | 'utf16';

export interface ParserOptions extends ParserLimits {
  lengthUnit: LengthUnit;
}

export const DEFAULT_PARSER_LIMITS: Readonly<ParserLimits> = Object.freeze({
  maxElementCodePoints: 4 * 1024 * 1024,
  maxInstructionCodePoints: 8 * 1024 * 1024,
  maxElements: 1024,
});

const SURROGATE = /[\uD800-\uDFFF]/;
const DOT = 0x2e;
const COMMA = 0x2c;
const SEMICOLON = 0x3b;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;

// What the parser is waiting for.
const READING_LENGTH = 0;
const READING_VALUE = 1;
const READING_TERMINATOR = 2;
type ParserState = typeof READING_LENGTH | typeof READING_VALUE | typeof READING_TERMINATOR;

function describeChar(text: string, index: number): string {
  const code = text.codePointAt(index) as number;
  return code >= 0x20 && code < 0x7f
    ? `'${String.fromCharCode(code)}'`
    : `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

function checkOptions(options: ParserOptions): void {
  if (options.lengthUnit !== 'code-point' && options.lengthUnit !== 'utf16') {
    throw new RangeError(
      `lengthUnit must be 'code-point' or 'utf16', got ${String(options.lengthUnit)}.`,
    );
  }
  const limits: ParserLimits = options;
  for (const name of ['maxElementCodePoints', 'maxInstructionCodePoints', 'maxElements'] as const) {
    const value = limits[name];
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new RangeError(
        `ParserLimits.${name} must be a positive integer, got ${String(value)}.`,
      );
    }
  }
}

export class GuacParser {
  readonly limits: Readonly<ParserOptions>;
  private readonly countUtf16Units: boolean;
  private readonly unitName: string;

  // Text not yet consumed; `pos` is the scan position inside it.
  private text = '';
  private pos = 0;
  private state: ParserState = READING_LENGTH;

  // READING_LENGTH
  private lengthValue = 0;
  private lengthDigits = 0;
  private readonly maxLengthDigits: number;

  // READING_VALUE: the element's declared length, where its value starts in `text`, slices of it
  // already moved out of `text` by earlier pushes, and code points counted so far.
  private elementLength = 0;
  private valueStart = 0;
  private valueParts: string[] = [];
  private valueCount = 0;

  private elements: string[] = [];
  // Code points of the current instruction consumed so far (lengths, dots, values, separators).
  private instructionCount = 0;

  private failure: GuacProtocolError | null = null;
  private readonly decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  private decoderMayHoldBytes = false;

  constructor(options?: Partial<ParserOptions>) {
    this.limits = Object.freeze({
      ...DEFAULT_PARSER_LIMITS,
      lengthUnit: 'code-point' as const,
      ...options,
    });
    checkOptions(this.limits);
    this.countUtf16Units = this.limits.lengthUnit === 'utf16';
    this.unitName = this.countUtf16Units ? 'UTF-16 units' : 'code points';
    // Lengths longer than this many digits are refused outright, even with leading zeros.
    this.maxLengthDigits = String(this.limits.maxElementCodePoints).length;
  }

  /** Code points held for an instruction that is not complete yet. */
  get buffered(): number {
    let held = this.instructionCount + (this.text.length - this.pos);
    if (this.state === READING_LENGTH) held += this.lengthDigits;
    if (this.state === READING_VALUE) held += this.valueCount;
    return held;
  }

  /** True once the parser has failed; every later push throws. */
  get failed(): boolean {
    return this.failure !== null;
  }

  /**
   * Feeds the next chunk of the stream and returns the instructions it completed, in order.
   * Bytes are decoded as streaming UTF-8 (a chunk may end mid-character). Throws
   * GuacProtocolError on malformed input; from then on the parser is dead.
   */
  push(chunk: Uint8Array | string): GuacInstruction[] {
    const out: GuacInstruction[] = [];
    this.pushInto(chunk, out);
    return out;
  }

  /**
   * Like push(), but appends completed instructions to `out` as it goes, so that when a chunk
   * holds good instructions followed by a fault, the caller still has the good ones.
   */
  pushInto(chunk: Uint8Array | string, out: GuacInstruction[]): void {
    if (this.failure) {
      throw new GuacProtocolError(
        `The Guacamole parser already failed (${this.failure.message}); open a new connection.`,
        this.failure.status,
        { cause: this.failure },
      );
    }
    this.consume(this.decode(chunk), out);
  }

  private decode(chunk: Uint8Array | string): string {
    if (typeof chunk === 'string') {
      if (this.decoderMayHoldBytes) {
        this.decoderMayHoldBytes = false;
        try {
          // Flush: throws if an earlier byte chunk ended inside a character.
          const rest = this.decoder.decode();
          return rest + chunk;
        } catch (error) {
          this.fail(
            'a text chunk arrived while a UTF-8 character from the previous byte chunk was incomplete',
            GuacStatus.CLIENT_BAD_REQUEST,
            error,
          );
        }
      }
      return chunk;
    }
    if (chunk.length === 0) return '';
    // Fast path for pure ASCII (all base64 blob traffic): always valid UTF-8, and Latin-1
    // decoding gives V8 a one-byte string, which the surrogate probe answers in O(1).
    if (!this.decoderMayHoldBytes && isAscii(chunk)) {
      return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length).toString('latin1');
    }
    // A chunk ending in an ASCII byte leaves nothing pending in the decoder.
    this.decoderMayHoldBytes = (chunk[chunk.length - 1] as number) >= 0x80;
    try {
      return this.decoder.decode(chunk, { stream: true });
    } catch (error) {
      this.fail('the data is not valid UTF-8', GuacStatus.CLIENT_BAD_REQUEST, error);
    }
  }

  private fail(reason: string, status: number, cause?: unknown): never {
    this.failure = new GuacProtocolError(
      `Malformed Guacamole data: ${reason}. The connection is closed; check that the peer speaks the Guacamole protocol.`,
      status,
      cause === undefined ? undefined : { cause },
    );
    // Drop everything held: nothing after a fault may be interpreted.
    this.text = '';
    this.pos = 0;
    this.valueParts = [];
    this.elements = [];
    throw this.failure;
  }

  private consume(incoming: string, out: GuacInstruction[]): void {
    // Between pushes `text` holds at most a lone high surrogate awaiting its low half.
    const text = this.text.length === 0 ? incoming : this.text + incoming;
    this.text = text;
    this.pos = 0;
    const end = text.length;
    const { maxElementCodePoints, maxInstructionCodePoints, maxElements } = this.limits;

    for (;;) {
      if (this.state === READING_LENGTH) {
        let found = false;
        while (this.pos < end) {
          const c = text.charCodeAt(this.pos);
          if (c >= DIGIT_0 && c <= DIGIT_9) {
            this.lengthValue = this.lengthValue * 10 + (c - DIGIT_0);
            this.lengthDigits++;
            this.pos++;
            if (this.lengthValue > maxElementCodePoints) {
              this.fail(
                `an element declares a length of at least ${this.lengthValue} ${this.unitName}, over the limit of ${maxElementCodePoints}`,
                GuacStatus.CLIENT_OVERRUN,
              );
            }
            if (this.lengthDigits > this.maxLengthDigits) {
              this.fail(
                `an element length has more than ${this.maxLengthDigits} digits`,
                GuacStatus.CLIENT_OVERRUN,
              );
            }
          } else if (c === DOT) {
            if (this.lengthDigits === 0)
              this.fail("an element has no length before its '.'", GuacStatus.CLIENT_BAD_REQUEST);
            this.pos++;
            this.instructionCount += this.lengthDigits + 1;
            // Refuse now rather than buffer an instruction that can only end over the limit.
            if (this.instructionCount + this.lengthValue + 1 > maxInstructionCodePoints) {
              this.fail(
                `an instruction would exceed the limit of ${maxInstructionCodePoints} ${this.unitName}`,
                GuacStatus.CLIENT_OVERRUN,
              );
            }
            this.elementLength = this.lengthValue;
            this.lengthValue = 0;
            this.lengthDigits = 0;
            this.valueStart = this.pos;
            this.valueCount = 0;
            this.state = READING_VALUE;
            found = true;
            break;
          } else {
            this.fail(
              `found ${describeChar(text, this.pos)} where an element length (digits, then '.') was expected`,
              GuacStatus.CLIENT_BAD_REQUEST,
            );
          }
        }
        if (!found) break;
      }

      if (this.state === READING_VALUE) {
        if (!this.scanValue(text)) break;
        const tail = text.slice(this.valueStart, this.pos);
        const value = this.valueParts.length === 0 ? tail : this.valueParts.join('') + tail;
        this.valueParts = [];
        this.elements.push(value);
        this.instructionCount += this.elementLength;
        this.state = READING_TERMINATOR;
      }

      // READING_TERMINATOR
      if (this.pos >= end) break;
      const c = text.charCodeAt(this.pos);
      this.pos++;
      this.instructionCount++;
      if (c === COMMA) {
        if (this.elements.length >= maxElements) {
          this.fail(
            `an instruction has more than ${maxElements} elements`,
            GuacStatus.CLIENT_OVERRUN,
          );
        }
      } else if (c === SEMICOLON) {
        const elements = this.elements;
        this.elements = [];
        this.instructionCount = 0;
        const opcode = elements.shift() as string; // every instruction has at least one element
        out.push({ opcode, args: elements });
      } else {
        this.fail(
          `found ${describeChar(text, this.pos - 1)} after an element of ${this.elementLength} ${this.unitName} where ',' or ';' was expected (the declared length does not match the data; lengths count ${this.unitName})`,
          GuacStatus.CLIENT_BAD_REQUEST,
        );
      }
      this.state = READING_LENGTH;
    }

    // Keep only what later pushes still need.
    if (this.state === READING_VALUE) {
      if (this.pos > this.valueStart) this.valueParts.push(text.slice(this.valueStart, this.pos));
      this.valueStart = 0;
    }
    this.text = this.pos < end ? text.slice(this.pos) : '';
    this.pos = 0;
  }

  /**
   * Advances `pos` over the current value. Returns true when all its code points are here,
   * false when more data is needed.
   */
  private scanValue(text: string): boolean {
    const end = text.length;
    while (this.valueCount < this.elementLength) {
      const remaining = this.elementLength - this.valueCount;
      const available = end - this.pos;
      if (available === 0) return false;
      const take = remaining < available ? remaining : available;
      const segmentEnd = this.pos + take;
      // Fast path: no surrogate in the next `take` units, so units are code points.
      if (this.countUtf16Units || !SURROGATE.test(text.slice(this.pos, segmentEnd))) {
        this.pos = segmentEnd;
        this.valueCount += take;
        continue;
      }
      // Slow path over this segment only: a pair is two units but one code point.
      while (this.pos < segmentEnd && this.valueCount < this.elementLength) {
        const c = text.charCodeAt(this.pos);
        if (c >= 0xd800 && c <= 0xdbff) {
          // A high surrogate as the last unit of text pushed so far: its low half may follow.
          if (this.pos + 1 >= end) return false;
          const d = text.charCodeAt(this.pos + 1);
          this.pos += d >= 0xdc00 && d <= 0xdfff ? 2 : 1;
        } else {
          this.pos++;
        }
        this.valueCount++;
      }
    }
    return true;
  }
}
