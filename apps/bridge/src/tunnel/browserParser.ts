// Reads a tunnel's browser leg (tunnelSession.ts): WebSocket text messages into whole Guacamole
// instructions. guacamole-common-js 1.5.0 counts element lengths in UTF-16 units (String#length),
// in what it sends and in what it parses, so the browser leg uses UTF-16 lengths both ways while
// the guacd leg keeps the protocol's code points; otherwise an emoji in a clipboard or a window
// title would misframe the stream. A malformed message is described with the status to end the
// tunnel with.
import type { RawData } from 'ws';
import {
  GuacParser,
  GuacProtocolError,
  GuacStatus,
  type GuacInstruction,
} from '@overlay-companion/guac';
import { rawBytes } from '../http/upgradeRouter.js';

// The browser only sends input, sizes, clipboard chunks and acks: far below these.
const BROWSER_PARSER_LIMITS = {
  lengthUnit: 'utf16' as const,
  maxElementCodePoints: 1 << 20,
  maxInstructionCodePoints: 1 << 21,
  maxElements: 64,
};

export type BrowserRead =
  { ok: true; instructions: GuacInstruction[] } | { ok: false; status: number; why: string };

export class BrowserParser {
  private readonly parser = new GuacParser(BROWSER_PARSER_LIMITS);

  /** The whole instructions a text message completes, or why it is malformed. */
  read(data: RawData): BrowserRead {
    try {
      return { ok: true, instructions: this.parser.push(rawBytes(data)) };
    } catch (err) {
      const status = err instanceof GuacProtocolError ? err.status : GuacStatus.CLIENT_BAD_REQUEST;
      const why = err instanceof Error ? err.message : String(err);
      return { ok: false, status, why };
    }
  }
}
