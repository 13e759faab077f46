// How `npm start` shows what it is doing: numbered steps ("[2/5] npm dependencies ... present"),
// and for the slow ones (npm ci, apt-get, the build, the first start) a line that keeps moving —
// a spinner with the seconds so far on a terminal, a "still …" line every 15 s otherwise — while
// the tool's own output goes to a log file that is shown (its tail) only when the step fails.
import { spawn } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const QUIET_EVERY_MS = 15_000;

export class Progress {
  /** @param {number} total @param {NodeJS.WriteStream} out */
  constructor(total, out = process.stdout) {
    this.total = total;
    this.out = out;
    this.index = 0;
    this.tty = out.isTTY === true && process.env.TERM !== 'dumb';
  }

  /** Starts the next step; returns a handle to finish it. */
  step(title) {
    this.index += 1;
    const label = `[${this.index}/${this.total}] ${title}`;
    const started = Date.now();
    let timer;
    if (this.tty) {
      let frame = 0;
      const draw = () => {
        const seconds = Math.round((Date.now() - started) / 1000);
        this.out.write(`\r\x1b[2K${FRAMES[frame++ % FRAMES.length]} ${label} (${seconds} s)`);
      };
      draw();
      timer = setInterval(draw, 100);
    } else {
      this.out.write(`${label} ...\n`);
      timer = setInterval(() => {
        const seconds = Math.round((Date.now() - started) / 1000);
        this.out.write(`      still ${title.toLowerCase()} (${seconds} s)\n`);
      }, QUIET_EVERY_MS);
    }
    timer.unref();
    const end = (mark, outcome) => {
      clearInterval(timer);
      const seconds = (Date.now() - started) / 1000;
      const took = seconds >= 2 ? ` (${Math.round(seconds)} s)` : '';
      if (this.tty) this.out.write(`\r\x1b[2K${mark} ${label}: ${outcome}${took}\n`);
      else this.out.write(`      ${outcome}${took}\n`);
    };
    return {
      done: (outcome = 'done') => end('✓', outcome),
      failed: (outcome = 'failed') => end('✗', outcome),
    };
  }
}

/**
 * Runs a command with its output in `logFile`. Resolves with the exit code; a spawn failure
 * counts as exit 127 with the reason written to the log.
 */
export function runLogged(command, args, { cwd, env, logFile }) {
  return new Promise((resolve) => {
    const log = createWriteStream(logFile, { flags: 'a', mode: 0o600 });
    log.write(`$ ${command} ${args.join(' ')}\n`);
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.pipe(log, { end: false });
    child.stderr.pipe(log, { end: false });
    const finish = (code) => log.end(() => resolve(code));
    child.once('error', (err) => {
      log.write(`${err.message}\n`);
      finish(127);
    });
    child.once('close', (code, signal) => finish(code ?? (signal ? 128 : 1)));
  });
}

/** The last lines of a log, indented, for a failure message. */
export function tailOf(logFile, lines = 25) {
  try {
    const text = readFileSync(logFile, 'utf8').trimEnd().split('\n');
    return text
      .slice(-lines)
      .map((line) => `    ${line}`)
      .join('\n');
  } catch {
    return '    (no output)';
  }
}
