// How many video exports may render at once — the one definition of that limit. A video export
// runs ffmpeg over every frame (all the CPU it can get, for up to EXPORT_MAX_MS), so exports are
// kept few: one per person on a bridge (a page, a second tab or a script with their session
// cannot queue up more), and a small number for the whole machine, a quarter of its CPUs (one on
// a machine of up to 7), shared by every bridge on it (exportSlotFiles.ts), so the desktops,
// viewers and AI calls keep their share however many bridges run there. Both refusals are 429s
// that say what to do; a slots folder that cannot be used is a 503 saying how to fix it.
import { availableParallelism } from 'node:os';
import { ExportSlotFiles, machineExportSlotsDir, SlotFolderError } from './exportSlotFiles.js';

/** One running video export per person. */
export const VIDEO_EXPORTS_PER_PERSON = 1;

/** Video exports the whole machine renders at once: a quarter of the CPUs, at least one. */
export const VIDEO_EXPORTS_PER_MACHINE = Math.max(1, Math.floor(availableParallelism() / 4));

/**
 * What a person who is not an admin is told when the slots folder cannot be used (the folder
 * and how to fix it are an admin's to see).
 */
export const SLOTS_FOLDER_FOR_MEMBERS =
  'Video exports are off on this machine for now; an admin who exports a video is told why and how to fix it. You can export the event track (JSON lines) meanwhile.';

/** When to suggest trying again (the 429's Retry-After): exports take minutes. */
export const EXPORT_RETRY_MS = 30_000;

export type SlotTaken =
  { ok: true; release: () => void } | { ok: false; status: 429 | 503; message: string };

export class ExportSlots {
  private readonly running = new Map<string, number>();
  private readonly machine: ExportSlotFiles;

  /**
   * `dir`: the machine's slots folder (default machineExportSlotsDir(); tests give a bridge one
   * of its own, or several bridges one to share).
   */
  constructor(
    dir: string = machineExportSlotsDir(),
    perMachine: number = VIDEO_EXPORTS_PER_MACHINE,
    private readonly perPerson: number = VIDEO_EXPORTS_PER_PERSON,
  ) {
    this.machine = new ExportSlotFiles(dir, perMachine);
  }

  /** A slot for `personId`'s export, taken at once (no await between check and take), or why not. */
  take(personId: string): SlotTaken {
    const theirs = this.running.get(personId) ?? 0;
    if (theirs >= this.perPerson)
      return {
        ok: false,
        status: 429,
        message:
          'You already have a video export rendering (it draws every frame, which takes minutes). Wait for it to finish (its download then starts), or cancel it, then export again.',
      };
    let machineSlot: (() => void) | undefined;
    try {
      machineSlot = this.machine.take();
    } catch (err) {
      if (err instanceof SlotFolderError) return { ok: false, status: 503, message: err.message };
      throw err;
    }
    if (machineSlot === undefined) {
      const count = this.machine.count;
      return {
        ok: false,
        status: 429,
        message: `This machine is already rendering ${String(count)} video export${count === 1 ? '' : 's'} (for this bridge or another on it), as many as it renders at once. Try again in a few minutes, or export the event track (JSON lines) now.`,
      };
    }
    this.running.set(personId, theirs + 1);
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        machineSlot();
        const left = (this.running.get(personId) ?? 1) - 1;
        if (left === 0) this.running.delete(personId);
        else this.running.set(personId, left);
      },
    };
  }
}
