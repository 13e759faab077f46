// An example of testing a desktop flow with @overlay-companion/testing, as a user of Overlay
// Companion would: the `mcp` fixture is a connected MCP client (the session starts in autopilot,
// so input runs without asking), `desktop` is the X display behind it, so effects are checked from
// outside with xdotool, xdpyinfo and the file system.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from '@overlay-companion/testing';

const run = promisify(execFile);

interface Screenshot {
  width: number;
  height: number;
  region: { x: number; y: number; width: number; height: number };
  scale: number;
}

test('a screenshot maps back to desktop pixels (max_dimension and scale)', async ({
  mcp,
  desktop,
}) => {
  const { stdout } = await run('xdpyinfo', [], { env: desktop.env });
  const [, width = '0', height = '0'] = /dimensions:\s+(\d+)x(\d+)/.exec(stdout) ?? [];
  const result = await mcp.callTool({
    name: 'take_screenshot',
    arguments: { max_dimension: 640 },
  });
  expect(result.isError).not.toBe(true);
  const shot = result.structuredContent as Screenshot;
  expect(shot.region).toEqual({ x: 0, y: 0, width: Number(width), height: Number(height) });
  expect(Math.max(shot.width, shot.height)).toBeLessThanOrEqual(640);
  // Image pixel (ix, iy) is desktop pixel (region.x + ix / scale, region.y + iy / scale).
  expect(Math.round(shot.region.x + shot.width / shot.scale)).toBe(Number(width));
  const image = (result.content as Array<{ type: string; data?: string }>).find(
    (block) => block.type === 'image',
  );
  expect(Buffer.from(image?.data ?? '', 'base64').length).toBeGreaterThan(100);
});

test('an AI click lands on the desktop pixel it named', async ({ mcp, desktop }) => {
  const click = await mcp.callTool({ name: 'click_at', arguments: { x: 211, y: 137 } });
  expect(click.isError).not.toBe(true);
  // The tool returns once the click is on its way; X has it a moment later.
  await expect
    .poll(
      async () =>
        (await run('xdotool', ['getmouselocation', '--shell'], { env: desktop.env })).stdout,
    )
    .toMatch(/^X=211\nY=137$/m);
});

test('typing into the xterm runs a command on the desktop', async ({ mcp, desktop }) => {
  // The desktop runs sandboxed: it writes into its own HOME, which the test reads from here.
  const name = `typed-${Date.now()}.txt`;
  const file = join(desktop.home.onHost, name);
  try {
    // Find the xterm from outside, and let the AI click into it, as a person would.
    const { stdout: ids } = await run('xdotool', ['search', '--sync', '--class', 'xterm'], {
      env: desktop.env,
    });
    const id = ids.trim().split('\n')[0] ?? '';
    const { stdout: geometry } = await run('xdotool', ['getwindowgeometry', '--shell', id], {
      env: desktop.env,
    });
    const at = (name: string): number =>
      Number(new RegExp(`^${name}=(\\d+)$`, 'm').exec(geometry)?.[1]);
    const overlay = await mcp.callTool({
      name: 'draw_overlay',
      arguments: {
        x: at('X'),
        y: at('Y'),
        width: at('WIDTH'),
        height: at('HEIGHT'),
        label: 'xterm',
      },
    });
    expect(overlay.isError).not.toBe(true);
    const click = await mcp.callTool({
      name: 'click_at',
      arguments: { x: at('X') + at('WIDTH') / 2, y: at('Y') + at('HEIGHT') / 2 },
    });
    expect(click.isError).not.toBe(true);
    const typed = await mcp.callTool({
      name: 'type_text',
      arguments: { text: `echo typed-by-the-ai > ${desktop.home.inDesktop}/${name}\n` },
    });
    expect(typed.isError).not.toBe(true);
    await expect.poll(() => existsSync(file), { timeout: 10_000 }).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe('typed-by-the-ai\n');
  } finally {
    await rm(file, { force: true });
  }
});
