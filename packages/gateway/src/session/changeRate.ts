// How often each part of the screen changes, shared by every browser of a session: the screen
// is cut into 64×64 tiles and each tile remembers the times of its last few changes (one per RFB
// update at most). A tile that changed FREQUENT_CHANGES times within the last second is busy —
// video, animation, a terminal's last lines — and those are the regions worth sending lossy:
// by the time the blur could be noticed they have changed again.
import type { Rect } from '../encode/rect.js';

const TILE = 64;
/** Changes within WINDOW_MS that make a tile busy (guacd switches to lossy at 3 per second). */
export const FREQUENT_CHANGES = 3;
const WINDOW_MS = 1000;

export class ChangeRate {
  private columns = 0;
  private rows = 0;
  /** Per tile, the last FREQUENT_CHANGES change times, as a ring. */
  private times = new Float64Array(0);
  private next = new Uint8Array(0);
  /** Per tile, the update that last counted, so one update counts once. */
  private lastUpdate = new Uint32Array(0);
  private update = 0;

  constructor(width: number, height: number) {
    this.resize(width, height);
  }

  resize(width: number, height: number): void {
    this.columns = Math.ceil(width / TILE);
    this.rows = Math.ceil(height / TILE);
    const tiles = this.columns * this.rows;
    this.times = new Float64Array(tiles * FREQUENT_CHANGES).fill(-Infinity);
    this.next = new Uint8Array(tiles);
    this.lastUpdate = new Uint32Array(tiles);
  }

  /** A new RFB update begins: its changes count once per tile. */
  beginUpdate(): void {
    this.update = (this.update + 1) >>> 0 || 1;
  }

  changed(rect: Rect, now: number): void {
    this.forTiles(rect, (tile) => {
      if (this.lastUpdate[tile] === this.update) return;
      this.lastUpdate[tile] = this.update;
      const slot = this.next[tile]!;
      this.times[tile * FREQUENT_CHANGES + slot] = now;
      this.next[tile] = (slot + 1) % FREQUENT_CHANGES;
    });
  }

  /** True when at least half of the tiles under `rect` are busy. */
  busy(rect: Rect, now: number): boolean {
    let busy = 0;
    let total = 0;
    this.forTiles(rect, (tile) => {
      total++;
      // The ring's oldest entry is the one `next` points at.
      if (now - this.times[tile * FREQUENT_CHANGES + this.next[tile]!]! <= WINDOW_MS) busy++;
    });
    return total > 0 && busy * 2 >= total;
  }

  private forTiles(rect: Rect, visit: (tile: number) => void): void {
    const x0 = Math.max(0, Math.floor(rect.x / TILE));
    const y0 = Math.max(0, Math.floor(rect.y / TILE));
    const x1 = Math.min(this.columns, Math.ceil((rect.x + rect.width) / TILE));
    const y1 = Math.min(this.rows, Math.ceil((rect.y + rect.height) / TILE));
    for (let ty = y0; ty < y1; ty++) for (let tx = x0; tx < x1; tx++) visit(ty * this.columns + tx);
  }
}
