// How many video exports may render at once — the one definition of that limit. A video export
// runs ffmpeg over every frame (all the CPU it can get, for up to EXPORT_MAX_MS), so the bridge
// keeps them few: one per person (a page, a second tab or a script with their session cannot
// queue up more), and a small number for the whole bridge, a quarter of the machine's CPUs (one
// on a machine of up to 7), so the desktops, viewers and AI calls keep their share. Both refusals
// are 429s that say what to do.
import { availableParallelism } from 'node:os';

/** One running video export per person. */
export const VIDEO_EXPORTS_PER_PERSON = 1;

/** Video exports the whole bridge renders at once: a quarter of the CPUs, at least one. */
export const VIDEO_EXPORTS_PER_BRIDGE = Math.max(1, Math.floor(availableParallelism() / 4));

/** When to suggest trying again (the 429's Retry-After): exports take minutes. */
export const EXPORT_RETRY_MS = 30_000;

export type SlotTaken = { ok: true; release: () => void } | { ok: false; message: string };

export class ExportSlots {
  private readonly running = new Map<string, number>();
  private total = 0;

  constructor(
    private readonly perBridge: number = VIDEO_EXPORTS_PER_BRIDGE,
    private readonly perPerson: number = VIDEO_EXPORTS_PER_PERSON,
  ) {}

  /** A slot for `personId`'s export, taken at once (no await between check and take), or why not. */
  take(personId: string): SlotTaken {
    const theirs = this.running.get(personId) ?? 0;
    if (theirs >= this.perPerson)
      return {
        ok: false,
        message:
          'You already have a video export rendering (it draws every frame, which takes minutes). Wait for it to finish (its download then starts), or cancel it, then export again.',
      };
    if (this.total >= this.perBridge)
      return {
        ok: false,
        message: `The bridge is already rendering ${String(this.perBridge)} video export${this.perBridge === 1 ? '' : 's'}, as many as this machine renders at once. Try again in a few minutes, or export the event track (JSON lines) now.`,
      };
    this.running.set(personId, theirs + 1);
    this.total += 1;
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        this.total -= 1;
        const left = (this.running.get(personId) ?? 1) - 1;
        if (left === 0) this.running.delete(personId);
        else this.running.set(personId, left);
      },
    };
  }
}
