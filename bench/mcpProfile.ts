// Where a full-screen take_screenshot spends its time, part by part, measured apart:
// - in the viewer page: copying the display canvas, canvas.toBlob PNG (and JPEG for
//   comparison), FileReader base64, JSON.stringify of the tool_result;
// - in Node, the bridge's steps on that same message: JSON.parse + zod of the viewer message,
//   the take_screenshot viewerResult schema (z.base64() on ~1 MB), the feed's sha256, and
//   the JSON of the MCP response the client then parses.
import { createHash } from 'node:crypto';
import { parseToolResult, parseViewerMessage } from '@overlay-companion/protocol';
import type { CdpPage } from './cdpBrowser.js';
import { summarize, type Summary } from './stats.js';

export interface ScreenshotProfile {
  page: {
    copy_canvas_ms: Summary;
    png_to_blob_ms: Summary;
    base64_ms: Summary;
    json_stringify_ms: Summary;
    png_bytes: number;
    jpeg85_to_blob_ms: Summary;
    jpeg85_bytes: number;
  };
  bridge: {
    parse_viewer_message_ms: Summary;
    parse_tool_result_ms: Summary;
    sha256_ms: Summary;
    mcp_response_stringify_ms: Summary;
    client_json_parse_ms: Summary;
    message_chars: number;
  };
}

/** Page code as a string (tsx's helpers do not exist in the page). */
const PAGE_ENCODE = `(async (n) => {
  const canvases = [...document.querySelectorAll('.remote-display__canvas canvas')];
  const src = canvases.sort((a, b) => b.width * b.height - a.width * a.height)[0];
  if (!src) throw new Error('no display canvas');
  const blobOf = (c, type, q) => new Promise((ok) => c.toBlob(ok, type, q));
  const out = { copy: [], png: [], base64: [], json: [], jpeg: [], pngBytes: 0, jpegBytes: 0, lastPng: '' };
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const c = document.createElement('canvas');
    c.width = 1280; c.height = 800;
    c.getContext('2d').drawImage(src, 0, 0, 1280, 800, 0, 0, 1280, 800);
    const t1 = performance.now();
    const blob = await blobOf(c, 'image/png');
    const t2 = performance.now();
    const url = await new Promise((ok) => { const r = new FileReader(); r.onload = () => ok(r.result); r.readAsDataURL(blob); });
    const t3 = performance.now();
    out.lastPng = url.slice(url.indexOf(',') + 1);
    JSON.stringify({ type: 'tool_result', id: 'x', result: { data: out.lastPng } });
    const t4 = performance.now();
    const jpeg = await blobOf(c, 'image/jpeg', 0.85);
    const t5 = performance.now();
    out.copy.push(t1 - t0); out.png.push(t2 - t1); out.base64.push(t3 - t2); out.json.push(t4 - t3);
    out.jpeg.push(t5 - t4); out.pngBytes = blob.size; out.jpegBytes = jpeg.size;
  }
  return out;
})`;

interface PageEncode {
  copy: number[];
  png: number[];
  base64: number[];
  json: number[];
  jpeg: number[];
  pngBytes: number;
  jpegBytes: number;
  lastPng: string;
}

function timed(n: number, once: () => unknown): Summary {
  const samples: number[] = [];
  for (let i = 0; i < n + 1; i++) {
    const start = performance.now();
    once();
    if (i > 0) samples.push(performance.now() - start);
  }
  return summarize(samples);
}

/**
 * Profiles the parts on the display canvas of `page` (a connected viewer). Also returns the PNG
 * the page encoded, so a peer can be shown the very same pixels.
 */
export async function profileScreenshot(
  page: Pick<CdpPage, 'evaluate'>,
  n: number,
): Promise<{ profile: ScreenshotProfile; png: Buffer }> {
  const enc = await page.evaluate<PageEncode>(`${PAGE_ENCODE}(${n})`);
  const base64Png = enc.lastPng;
  const meta = {
    width: 1280,
    height: 800,
    region: { x: 0, y: 0, width: 1280, height: 800 },
    scale: 1,
    monitor_index: 0,
    display_scale: 1,
    viewport_scroll: { x: 0, y: 0 },
    format: 'png',
    byte_length: enc.pngBytes,
  };

  const result = { ...meta, data: base64Png };
  const message = JSON.stringify({ type: 'tool_result', id: 'bench-call-1', result });
  const parsed = parseViewerMessage(message);
  if (!parsed.ok || parsed.message.type !== 'tool_result') {
    throw new Error(
      `The profile's viewer message does not parse: ${parsed.ok ? 'not a tool_result' : parsed.error}`,
    );
  }
  const viewerResult = parsed.message.result;
  if (!parseToolResult('take_screenshot', viewerResult).ok) {
    throw new Error("The profile's take_screenshot result does not match the schema.");
  }
  // What the SDK sends back: the image block plus text and structured metadata, as one
  // JSON-RPC response in an SSE event.
  const response = JSON.stringify({
    jsonrpc: '2.0',
    id: 7,
    result: {
      content: [
        { type: 'image', data: base64Png, mimeType: 'image/png' },
        { type: 'text', text: 'Screenshot 1280x800 png' },
      ],
      structuredContent: meta,
    },
  });
  const responseObject: unknown = JSON.parse(response);
  const profile: ScreenshotProfile = {
    page: {
      copy_canvas_ms: summarize(enc.copy),
      png_to_blob_ms: summarize(enc.png),
      base64_ms: summarize(enc.base64),
      json_stringify_ms: summarize(enc.json),
      png_bytes: enc.pngBytes,
      jpeg85_to_blob_ms: summarize(enc.jpeg),
      jpeg85_bytes: enc.jpegBytes,
    },
    bridge: {
      parse_viewer_message_ms: timed(n, () => parseViewerMessage(message)),
      parse_tool_result_ms: timed(n, () => parseToolResult('take_screenshot', viewerResult)),
      sha256_ms: timed(n, () => createHash('sha256').update(base64Png).digest('hex')),
      mcp_response_stringify_ms: timed(n, () => JSON.stringify(responseObject)),
      client_json_parse_ms: timed(n, () => JSON.parse(response)),
      message_chars: message.length,
    },
  };
  return { profile, png: Buffer.from(base64Png, 'base64') };
}
