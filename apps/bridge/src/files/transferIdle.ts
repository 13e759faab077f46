// How long a transfer may go without a byte before the bridge ends it. A transfer has no total
// time limit (a 512 MiB file over a slow link takes as long as it takes; the HTTP server's own
// bound on receiving a request leaves uploads out for that reason, requestDeadline.ts), so a
// stalled one — a browser that stopped sending an upload's bytes, or stopped reading a
// download's — must end by itself: otherwise its socket, its open file and (for an upload) the
// disk space it claimed stay taken forever.
import { Transform } from 'node:stream';
import { TransferError } from './transferFolder.js';

/** No byte for this long ends a transfer (tests lower it). */
export const TRANSFER_IDLE_MS = 60_000;

/**
 * A pass-through that fails with a TransferError (408) once `idleMs` pass without a chunk, timed
 * from its creation — or, given `onIdle`, calls that instead and leaves the ending to it (a
 * download ends its connection: an error in the answer's stream would be printed with its stack
 * on stderr by the HTTP server, @hono/node-server). The timer is stopped when the stream ends
 * or is destroyed.
 */
export function idleGuard(idleMs: number, onIdle?: () => void): Transform {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Transform({
    transform(chunk: Buffer, _encoding, next) {
      arm();
      next(null, chunk);
    },
    flush(next) {
      clearTimeout(timer);
      next();
    },
    destroy(err, done) {
      clearTimeout(timer);
      done(err);
    },
  });
  function arm(): void {
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (onIdle !== undefined) return onIdle();
      guard.destroy(
        new TransferError(
          408,
          `No data moved for ${idleMs / 1000} s, so the transfer was ended (nothing of an upload is kept); try again.`,
        ),
      );
    }, idleMs);
  }
  arm();
  return guard;
}
