// Where the overlay layer's frames spend main-thread time with ~5,000 overlays changing ~20 times
// a second (the overlay bench's load, overlays.ts updateWhileRecording): Chromium's trace of the
// control window over the run, each frame interval's main-thread task time (overlayFrameTrace.ts)
// beside the page's own frame probe, and the longest frames with what ran in them. With --css,
// the same load again with that style sheet added to the page, runs alternating with the page as
// it is (what a CSS change would save, under the same machine load); with --label-every N, the
// same with every Nth overlay labelled instead of every tenth. With --window mirror (or part),
// the window traced is a mirror of the whole desktop (or a second monitor's window showing its
// right half) opened beside the control window. Not part of `npm run bench` (it explains the
// bench's number):
//   OC_GUACD=/opt/guacd-1.6.0/sbin/guacd npx tsx --conditions=overlay-source bench/overlayFramesExplain.ts [--window control|mirror|part] [--seconds 6] [--rounds 2] [--css '.overlay-label { … }'] [--label-every 50] [--worst 8]
import { parseArgs } from 'node:util';
import { closeHttp, connectHttp } from './mcpClient.js';
import { startMcpStack } from './mcpStack.js';
import type { TracedFrame } from './overlayFrameTrace.js';
import { DESKTOP, updateWhileRecording } from './overlayLoad.js';
import { openMirror, RIGHT_HALF } from './overlayMirrors.js';
import { installOverlayProbes, type FrameRecord } from './overlayPages.js';
import { summarize } from './stats.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '6' },
    rounds: { type: 'string', default: '1' },
    css: { type: 'string', multiple: true, default: [] },
    worst: { type: 'string', default: '8' },
    window: { type: 'string', default: 'control' },
    'label-every': { type: 'string', multiple: true, default: [] },
  },
});
const seconds = Number(values.seconds);
const variants: { css: string; labelEvery: number; name: string }[] = [
  { css: '', labelEvery: 10, name: 'the page as it is' },
  ...values.css.map((css) => ({ css, labelEvery: 10, name: css })),
  ...values['label-every'].map((n) => ({
    css: '',
    labelEvery: Number(n),
    name: `every ${n}th labelled`,
  })),
];

const setCss = (css: string) =>
  `(() => { let s = document.getElementById('oc-explain-css'); if (!s) { s = document.createElement('style'); s.id = 'oc-explain-css'; document.head.append(s); } s.textContent = ${JSON.stringify(css)}; })()`;

const stack = await startMcpStack();
try {
  const client = await connectHttp(stack.mcpUrl, stack.token, 'oc-overlay-frames');
  try {
    await installOverlayProbes(stack.page);
    const page =
      values.window === 'control'
        ? stack.page
        : await openMirror(stack, {
            ...DESKTOP,
            ...(values.window === 'part' ? { crop: RIGHT_HALF } : {}),
          });
    const results = variants.map(() => ({
      probe: [] as FrameRecord[],
      traced: [] as TracedFrame[],
    }));
    for (let round = 0; round < Number(values.rounds); round++) {
      for (const [i, { css, labelEvery }] of variants.entries()) {
        await page.evaluate(setCss(css));
        const { frames, traced } = await updateWhileRecording(client, seconds, [page], {
          labelEvery,
          trace: page,
          explain: true,
        });
        results[i]!.probe.push(...(frames[0] ?? []));
        results[i]!.traced.push(...traced);
      }
    }
    for (const [i, { name }] of variants.entries()) {
      const { probe, traced } = results[i]!;
      console.log(`\n=== ${name}`);
      console.log('probe work ms', summarize(probe.map((f) => f.work)));
      console.log('traced work ms', summarize(traced.map((f) => f.work)));
      console.log('traced interval ms', summarize(traced.map((f) => f.interval)));
      for (const f of [...traced].sort((a, b) => b.work - a.work).slice(0, Number(values.worst))) {
        console.log(`frame +${f.interval.toFixed(1)} ms, work ${f.work.toFixed(1)} ms`);
        for (const line of f.top) console.log(`  ${line}`);
      }
    }
  } finally {
    await closeHttp(client);
  }
} finally {
  await stack.stop();
}
