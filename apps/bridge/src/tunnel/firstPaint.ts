// The browser's first frame is a painted desktop. guacamole-common-js calls itself connected at
// the first `sync` it receives, and the viewer then lets screenshots and input through; but
// guacd sends frames before the desktop exists (an RDP session: a `sync` at once, the desktop's
// size about 1.5 s later, once xrdp has logged in). So until the desktop has a size and
// something drawn on it, the tunnel keeps `sync`s from the browser and acknowledges them to the
// server itself (which waits for acknowledgements before sending more). Our gateway already
// sends its first `sync` only after the first whole picture; this makes every path behave so.
// A desktop that never draws is let through after a while, so the viewer is not stuck.
import type { GuacInstruction } from '@overlay-companion/guac';

/** How long the tunnel waits for a first picture before passing frames on regardless. */
export const FIRST_PAINT_WAIT_MS = 10_000;

/** Where each drawing instruction names its destination layer (argument index). */
const DESTINATION_LAYER: Readonly<Record<string, number>> = {
  img: 2, // img,<stream>,<mask>,<layer>,<mimetype>,<x>,<y>
  copy: 6, // copy,<srcLayer>,sx,sy,w,h,<mask>,<dstLayer>,dx,dy
  cfill: 1, // cfill,<mask>,<layer>,r,g,b,a
  png: 1, // png,<mask>,<layer>,x,y,data (before 1.0)
  jpeg: 1, // jpeg,<mask>,<layer>,x,y,data (before 1.0)
};

export class FirstPaintGate {
  private sized = false;
  private drawn = false;
  private open = false;
  private readonly deadline: number;

  constructor(now = Date.now(), waitMs = FIRST_PAINT_WAIT_MS) {
    this.deadline = now + waitMs;
  }

  /** True when the instruction goes to the browser; false for a `sync` to hold back. */
  passes(instruction: GuacInstruction, now = Date.now()): boolean {
    if (this.open) return true;
    const { opcode, args } = instruction;
    if (opcode === 'size') {
      if (args[0] === '0' && Number(args[1]) > 0 && Number(args[2]) > 0) this.sized = true;
      return true;
    }
    const layerAt = DESTINATION_LAYER[opcode];
    if (layerAt !== undefined) {
      if (this.sized && args[layerAt] === '0') this.drawn = true;
      return true;
    }
    if (opcode !== 'sync') return true;
    this.open = (this.sized && this.drawn) || now >= this.deadline;
    return this.open;
  }
}
