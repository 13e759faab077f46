// Test support, run as a child process: a recording being written when its process is killed.
// Writes a 64×48 desktop that changes colour every 20 ms into the folder given as argv[2] with
// the real RecordingWriter (keyframes often), prints `recording <id> <start>` once it has run
// for a second, and goes on until SIGKILL — leaving what a killed bridge leaves: files never
// closed (no end in the index; the tail as far as the disk got).
import { RecordingWriter } from '@overlay-companion/recording';

const dir = process.argv[2];
if (dir === undefined) throw new Error('usage: writeUntilKilled.ts DIR');
const writer = await RecordingWriter.create({
  dir,
  keyframeIntervalMs: 100,
  maxKeyframeIntervalMs: 200,
});
const t0 = Date.now();
writer.feed({ opcode: 'size', args: ['0', '64', '48'] }, t0);
let told = false;
let n = 0;
setInterval(() => {
  const t = Date.now();
  const rgb = [n % 2 === 0 ? 255 : 0, n % 3 === 0 ? 255 : 0, 128].map(String);
  n++;
  writer.feed({ opcode: 'rect', args: ['0', '0', '0', '64', '48'] }, t);
  writer.feed({ opcode: 'cfill', args: ['14', '0', ...rgb, '255'] }, t);
  writer.feed({ opcode: 'sync', args: [String(t)] }, t);
  if (!told && t - t0 >= 1_000) {
    told = true;
    process.stdout.write(`recording ${writer.id} ${t0}\n`);
  }
}, 20);
