// Screen tools with bridge code: take_screenshot's finishing step (the viewer's base64 image
// becomes MCP image content — never repeated as text — and feeds screenshot://latest) and
// set_screenshot_frequency, which the bridge runs itself (screenshots/feed.ts). The other screen
// tools are relayed unchanged (relayTool.ts).
import { implementTool } from '../toolkit.js';
import { mimeTypeOf } from '../screenshots/feed.js';
import { relayTool } from './relayTool.js';

export const takeScreenshot = relayTool('take_screenshot', (result, _args, ctx) => {
  ctx.session.screenshots.record(result);
  const { data, ...meta } = result;
  return {
    structured: meta,
    content: [{ type: 'image', data, mimeType: mimeTypeOf(meta.format) }],
  };
});

export const setScreenshotFrequency = implementTool('set_screenshot_frequency', (args, ctx) => {
  const applied = ctx.session.screenshots.configure(
    args.mode,
    args.interval_ms,
    args.only_on_change,
  );
  return Promise.resolve({ structured: { ok: true, applied_interval_ms: applied } });
});
