// `npm run bench [-- --json] [--quick]`: measures the embedded stack on this machine and prints
// medians and p99s (JSON with --json). Targets come from the issues; the numbers are reported,
// never asserted — speed is not a test.
import { parseArgs } from 'node:util';
import { benchFrames } from './frame.js';
import { benchPaint } from './paint.js';

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    quick: { type: 'boolean', default: false },
  },
});

const iterations = values.quick ? 15 : 60;
const log = (line: string) => {
  if (!values.json) console.log(line);
  else console.error(line);
};

const started = Date.now();
log('bench: full-frame decode and encode on a busy 1280x800 desktop…');
const frames = await benchFrames(iterations);
log('bench: X change → browser paint through bridge, gateway and headless Chromium…');
const paint = await benchPaint(iterations);

const results = {
  machine: { cores: (await import('node:os')).cpus().length, node: process.version },
  gateway: frames,
  viewer: paint,
  targets: {
    full_frame_encode_p50_ms: { target: 10, measured: frames.full_frame_encode_ms.p50 },
    change_to_paint_p50_ms: { target: 30, measured: paint.change_to_paint_ms.p50 },
  },
  seconds: Math.round((Date.now() - started) / 100) / 10,
};

if (values.json) {
  console.log(JSON.stringify(results, null, 2));
} else {
  console.log(JSON.stringify(results, null, 2));
}
