// Test support, run in a process of its own (node --import tsx): takes `count` video export
// slots in the folder `dir` and holds them until it is killed, as a bridge rendering exports in
// another process would. Prints "held" once it holds them all, "full" (and exits 1) when one was
// not free.
import { ExportSlotFiles } from '../exportSlotFiles.js';

const [dir, count] = process.argv.slice(2);
const slots = new ExportSlotFiles(dir ?? '', Number(count));
for (let n = 0; n < slots.count; n++) {
  if (slots.take() === undefined) {
    process.stdout.write('full\n');
    process.exit(1);
  }
}
process.stdout.write('held\n');
// Held until killed: the open lock files keep the slots.
setInterval(() => undefined, 60_000);
