// Browser → desktop input: validates each input instruction's arguments (malformed ones are a
// protocol error for that browser only) and forwards mouse, keys, resize requests and
// clipboard streams to the RFB client, honouring the browser's read-only and paste settings.
import type { DeliveryOutcome, GuacInstruction } from '@overlay-companion/guac';

/** The parts of the RFB client that browser input drives. */
export interface DesktopInput {
  readonly supportsSetDesktopSize: boolean;
  pointer(x: number, y: number, buttonMask: number): void;
  key(keysym: number, down: boolean): void;
  setDesktopSize(width: number, height: number): void;
  setClipboard(text: string): void;
  /** Resolves once the desktop server has what was sent before (see rfb/fence.ts). */
  confirmDelivery(): Promise<DeliveryOutcome>;
}

export interface InputPolicy {
  readOnly: boolean;
  disablePaste: boolean;
  disableDisplayResize: boolean;
}

/** Bad arguments to an instruction the gateway understands; the browser gets status 768. */
export class InputError extends Error {
  override name = 'InputError';
}

/** What the user must answer for a stream instruction it cannot take. */
export interface InputReply {
  ack?: { stream: number; message: string; status: number };
}

const MAX_CLIPBOARD_BYTES = 256 * 1024; // guacd's default clipboard-buffer-size
const MAX_OPEN_STREAMS = 16;
const MAX_DIMENSION = 16384;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function int(instruction: GuacInstruction, index: number, min: number, max: number): number {
  const value = instruction.args[index];
  if (value === undefined || !/^-?\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new InputError(
      `"${instruction.opcode}" argument ${String(index + 1)} must be an integer from ${String(min)} to ${String(max)}, got ${value === undefined ? 'nothing' : JSON.stringify(value.slice(0, 40))}.`,
    );
  }
  return Number(value);
}

interface InboundStream {
  mimetype: string;
  chunks: Buffer[];
  bytes: number;
}

/** Per-browser input state (open clipboard streams) and dispatch. */
export class InputHandler {
  private readonly streams = new Map<number, InboundStream>();

  constructor(
    private readonly desktop: () => DesktopInput | undefined,
    private readonly policy: InputPolicy,
    private readonly screen: () => { width: number; height: number },
  ) {}

  /**
   * Handles one input instruction. Returns a reply to send when one is due; throws InputError
   * for malformed arguments. Unknown opcodes are ignored, as guacd does.
   */
  handle(instruction: GuacInstruction): InputReply {
    const desktop = this.desktop();
    switch (instruction.opcode) {
      case 'mouse': {
        const x = int(instruction, 0, -MAX_DIMENSION, MAX_DIMENSION);
        const y = int(instruction, 1, -MAX_DIMENSION, MAX_DIMENSION);
        const mask = int(instruction, 2, 0, 0xff);
        if (this.policy.readOnly || desktop === undefined) return {};
        // RFB carries unsigned 16-bit coordinates; keep the pointer on the screen.
        const { width, height } = this.screen();
        desktop.pointer(clampTo(x, width), clampTo(y, height), mask);
        return {};
      }
      case 'key': {
        const keysym = int(instruction, 0, 0, 0xffffffff);
        const pressed = int(instruction, 1, 0, 1);
        if (!this.policy.readOnly) desktop?.key(keysym, pressed === 1);
        return {};
      }
      case 'size': {
        const width = int(instruction, 0, 1, MAX_DIMENSION);
        const height = int(instruction, 1, 1, MAX_DIMENSION);
        if (this.policy.readOnly || this.policy.disableDisplayResize) return {};
        if (desktop?.supportsSetDesktopSize === true) desktop.setDesktopSize(width, height);
        return {};
      }
      case 'clipboard':
        return this.openClipboard(instruction);
      case 'blob':
        return this.blob(instruction);
      case 'end':
        return this.end(instruction);
      default:
        return {};
    }
  }

  private openClipboard(instruction: GuacInstruction): InputReply {
    const stream = int(instruction, 0, 0, 0x7fffffff);
    const mimetype = instruction.args[1];
    if (mimetype === undefined)
      throw new InputError('"clipboard" needs a stream index and a mimetype.');
    if (this.streams.size >= MAX_OPEN_STREAMS && !this.streams.has(stream)) {
      throw new InputError(
        `Too many open clipboard streams (more than ${String(MAX_OPEN_STREAMS)}); end each stream with "end".`,
      );
    }
    this.streams.set(stream, { mimetype, chunks: [], bytes: 0 });
    return {};
  }

  private blob(instruction: GuacInstruction): InputReply {
    const stream = int(instruction, 0, 0, 0x7fffffff);
    const data = instruction.args[1];
    if (data === undefined || !BASE64.test(data)) {
      throw new InputError('"blob" data must be base64 (A–Z, a–z, 0–9, +, /, = padding).');
    }
    const open = this.streams.get(stream);
    if (open === undefined) {
      // guacd answers data on a stream it does not know with a negative ack, not a disconnect.
      return {
        ack: { stream, message: 'No such stream: open it with "clipboard" first.', status: 0x0100 },
      };
    }
    const bytes = Buffer.from(data, 'base64');
    if (open.bytes + bytes.length <= MAX_CLIPBOARD_BYTES) {
      open.chunks.push(bytes);
      open.bytes += bytes.length;
    }
    return {};
  }

  private end(instruction: GuacInstruction): InputReply {
    const stream = int(instruction, 0, 0, 0x7fffffff);
    const open = this.streams.get(stream);
    this.streams.delete(stream);
    if (open === undefined) return {};
    if (!open.mimetype.startsWith('text/')) return {};
    if (this.policy.readOnly || this.policy.disablePaste) return {};
    this.desktop()?.setClipboard(Buffer.concat(open.chunks).toString('utf8'));
    return {};
  }
}

function clampTo(value: number, size: number): number {
  return Math.min(Math.max(value, 0), Math.max(size - 1, 0));
}
