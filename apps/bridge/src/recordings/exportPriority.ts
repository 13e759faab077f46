// The priority a video export's ffmpeg runs at — the one definition of it. An export encodes
// every frame with all the CPU it can get, for up to EXPORT_MAX_MS; at normal priority it would
// compete on equal terms with what people are using now (the desktops and their X servers, the
// gateway, the bridges' viewers and AI calls). So ffmpeg is lowered as soon as it is spawned,
// before it is sent its first frame (exportVideo's `spawned`), and the encoder threads it starts
// later inherit it: nice EXPORT_NICE for the CPU, and with util-linux's ionice (when installed)
// the lowest best-effort I/O priority — not the idle class, which gets the disk only when nobody
// else wants it: on a machine whose recorders keep the disk busy an idle-class export could
// stall until EXPORT_MAX_MS, holding one of the machine's few export slots all that while.
// The frames ffmpeg encodes are drawn in the bridge's own process (the package's exportVideo),
// which is not lowered: it is the bridge.
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import type { Logger } from 'pino';

/** ffmpeg's nice value during a video export (normal is 0; higher yields the CPU to others). */
export const EXPORT_NICE = 10;

/** ionice's arguments for ffmpeg during a video export: best-effort class, its lowest level. */
const EXPORT_IONICE = ['-c', '2', '-n', '7'] as const;

/** Set once ionice was found missing: said once in the log, not tried again. */
let noIonice = false;

/**
 * Lowers `pid`'s CPU and I/O priority for a video export. Never throws: an export at normal
 * priority is still an export, so a failure is only logged.
 */
export async function lowerExportPriority(pid: number, logger: Logger): Promise<void> {
  try {
    setPriority(pid, EXPORT_NICE);
  } catch (err) {
    logger.warn({ err, pid }, 'could not lower the video export’s CPU priority (ffmpeg)');
  }
  if (noIonice) return;
  const ionice = spawn('ionice', [...EXPORT_IONICE, '-p', String(pid)], { stdio: 'ignore' });
  const outcome = await new Promise<number | null | NodeJS.ErrnoException>((resolve) => {
    ionice.once('error', resolve);
    ionice.once('exit', resolve);
  });
  if (outcome instanceof Error) {
    if (outcome.code === 'ENOENT') {
      noIonice = true;
      logger.info(
        'ionice was not found (Debian has it in util-linux): video exports’ ffmpeg keeps its normal I/O priority',
      );
    } else logger.warn({ err: outcome, pid }, 'could not run ionice for a video export');
  } else if (outcome !== 0) {
    logger.warn({ pid, exit: outcome }, 'ionice could not lower the video export’s I/O priority');
  }
}
