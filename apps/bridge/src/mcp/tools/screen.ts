// Screen tools. take_screenshot returns the viewer's image as MCP image content plus its
// metadata; get_display_info and wait_for_screen are answered by the viewer;
// set_screenshot_frequency is run by the bridge (screenshots/feed.ts).
import { defineTool } from '../toolkit.js';
import { relayWithPolicy } from '../relayCall.js';
import { mimeTypeOf } from '../screenshots/feed.js';

export const takeScreenshot = defineTool('take_screenshot', async (args, ctx) => {
  const { result } = await relayWithPolicy(ctx, 'take_screenshot', args);
  ctx.session.screenshots.record(result);
  const { data, ...meta } = result;
  const r = meta.region;
  return {
    structured: meta,
    content: [{ type: 'image', data, mimeType: mimeTypeOf(meta.format) }],
    text: `Screenshot ${meta.width}x${meta.height} ${meta.format} of desktop region ${r.x},${r.y} ${r.width}x${r.height} at scale ${meta.scale} (desktop x = ${r.x} + image x / ${meta.scale}).`,
  };
});

export const getDisplayInfo = defineTool('get_display_info', async (args, ctx) => {
  const { result } = await relayWithPolicy(ctx, 'get_display_info', args);
  const monitors = result.monitors
    .map(
      (m) =>
        `#${m.index} ${m.width}x${m.height} at ${m.x},${m.y}${m.label === undefined ? '' : ` (${m.label})`}`,
    )
    .join('; ');
  return {
    structured: result,
    text: `Desktop ${result.desktop.width}x${result.desktop.height}; monitors: ${monitors}.`,
  };
});

export const waitForScreen = defineTool('wait_for_screen', async (args, ctx) => {
  const { result } = await relayWithPolicy(ctx, 'wait_for_screen', args);
  return {
    structured: result,
    text: result.satisfied
      ? `The screen became ${args.until} after ${result.waited_ms} ms.`
      : `Timed out after ${result.waited_ms} ms without the screen becoming ${args.until}.`,
  };
});

export const setScreenshotFrequency = defineTool('set_screenshot_frequency', (args, ctx) => {
  const applied = ctx.session.screenshots.configure(
    args.mode,
    args.interval_ms,
    args.only_on_change,
  );
  return Promise.resolve({
    structured: { ok: true, applied_interval_ms: applied },
    text:
      args.mode === 'manual'
        ? 'Background screenshots are off; use take_screenshot.'
        : `${args.mode === 'on_change' ? 'Checking for changes' : 'Capturing'} every ${applied} ms; read or subscribe to screenshot://latest for the latest capture.`,
  });
});

export const screenTools = [takeScreenshot, getDisplayInfo, waitForScreen, setScreenshotFrequency];
