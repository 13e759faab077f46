// What `npm start` does with the bridge's output. Its stderr carries pino's JSON log lines: all
// of them go to the log file, and only warnings and errors reach the terminal, as one readable
// line each ("bridge warning: …"); anything on stderr that is not a log line (a usage error, the
// "stopping" notice) passes through as it is. Its stdout is the banner for the person, passed
// through, with the ready-to-paste AI-client lines put in just before "Press Ctrl-C to stop.".
import { createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';

const LEVEL_NAMES = { 40: 'warning', 50: 'error', 60: 'fatal' };
const BANNER_END = 'Press Ctrl-C to stop.';

/** A pino line's readable form, or undefined when it is not worth the terminal (below warn). */
export function readableLogLine(line) {
  let entry;
  try {
    entry = JSON.parse(line);
  } catch {
    return { passThrough: line };
  }
  if (typeof entry !== 'object' || entry === null || typeof entry.level !== 'number') {
    return { passThrough: line };
  }
  if (entry.level < 40) return undefined;
  const level = LEVEL_NAMES[Math.min(60, Math.floor(entry.level / 10) * 10)] ?? 'error';
  const part = typeof entry.part === 'string' ? ` (${entry.part})` : '';
  const detail = typeof entry.why === 'string' ? `: ${entry.why}` : '';
  return { readable: `bridge ${level}${part}: ${entry.msg ?? ''}${detail}` };
}

/**
 * Wires a bridge child's output. `onBanner(lines)` gets the banner (everything up to the
 * "Press Ctrl-C" line) once and returns the lines to print in its place.
 */
export function relayBridgeOutput(
  child,
  { logFile, onBanner, out = process.stdout, err = process.stderr },
) {
  const log = createWriteStream(logFile, { flags: 'a', mode: 0o600 });
  createInterface({ input: child.stderr }).on('line', (line) => {
    log.write(`${line}\n`);
    const shown = readableLogLine(line);
    if (shown === undefined) return;
    err.write(`${shown.readable ?? shown.passThrough}\n`);
  });
  child.stderr.once('close', () => log.end());
  const banner = [];
  let bannerDone = false;
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (bannerDone) {
      out.write(`${line}\n`);
      return;
    }
    banner.push(line);
    if (line.trim() !== BANNER_END) return;
    bannerDone = true;
    for (const shown of onBanner(banner)) out.write(`${shown}\n`);
  });
  return {
    /** The banner so far, for a failure message when the bridge exits before it is complete. */
    partialBanner: () => (bannerDone ? [] : banner),
  };
}
