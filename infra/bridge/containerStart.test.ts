// The bridge image without a container engine: the Containerfile is multi-stage with pinned base
// images and runs as an unprivileged user, and its start command (ENTRYPOINT + CMD, ENV, WORKDIR)
// run here against the repository's build — with the quadlet's environment and a site address —
// starts the bridge (GET /healthz answers ok by the site's name, a foreign Host is refused), is
// pointed at guacd and the desktop as the stack names them, and stops cleanly on SIGTERM.
import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BRIDGE_CONTAINERFILE,
  REPO,
  missingBuild,
  startContainerBridge,
  waitHealthy,
  type ContainerBridge,
} from '../testing/containerBridge.js';
import { readFinalStage } from '../testing/containerfile.js';
import { environment, parseUnitFile } from '../testing/unitFile.js';

const SITE = 'desk.example.test';
const missing = missingBuild();
if (missing !== undefined) console.warn(`skipping the container start command test: ${missing}`);

let bridge: ContainerBridge | undefined;
afterEach(async () => {
  await bridge?.stop();
  bridge = undefined;
});

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('infra/bridge/Containerfile', () => {
  it('builds in stages from pinned images and runs as an unprivileged user', async () => {
    const stage = await readFinalStage(BRIDGE_CONTAINERFILE);
    expect(stage.images.length).toBeGreaterThanOrEqual(2);
    for (const image of stage.images) expect(image).toMatch(/^docker\.io\/[\w./-]+:\d+\.\d+/);
    expect(stage.user).toBeDefined();
    expect(['root', '0']).not.toContain(stage.user);
    expect(stage.workdir).toBe('/app');
    expect(stage.env.NODE_ENV).toBe('production');
    expect(stage.command.slice(0, 3)).toEqual(['node', 'apps/bridge/dist/cli/main.js', 'serve']);
    // The paths the final stage copies exist in the repository's layout.
    const text = await readFile(BRIDGE_CONTAINERFILE, 'utf8');
    expect(text).toMatch(/COPY --from=build \/src\/apps\/web\/dist apps\/web\/dist/);
    expect(text).toMatch(/COPY --from=build \/src\/apps\/bridge\/dist apps\/bridge\/dist/);
  });

  it.skipIf(missing !== undefined)(
    'its start command, run outside a container, serves /healthz and stops on SIGTERM',
    async () => {
      const quadlet = parseUnitFile(
        await readFile(join(REPO, 'infra/quadlet/oc-bridge.container'), 'utf8'),
      );
      bridge = await startContainerBridge({
        ...environment(quadlet),
        OC_PUBLIC_URL: `https://${SITE}`,
        OC_LOG_LEVEL: 'warn',
      });
      await waitHealthy(bridge, SITE);
      // The command ran is the image's, with only host, port and data dir changed.
      const ran = bridge.command.slice(1);
      const image = bridge.containerCommand.slice(1);
      expect(ran.length).toBe(image.length);
      const changed = ran.map((arg, i) => (arg === image[i] ? null : image[i - 1])).filter(Boolean);
      expect(changed).toEqual(['--host', '--port', '--data-dir']);
      expect(bridge.stdout()).toContain('RDP server desktop:3389');
      expect(bridge.stdout()).toContain('guacd on guacd:4822');
      const foreign = await bridge.get('/healthz', 'evil.example.test');
      expect(foreign.status).toBe(403);
      const port = bridge.port;
      const exit = await bridge.stop();
      bridge = undefined;
      expect(exit).toEqual({ code: 0, signal: null });
      expect(await portOpen(port)).toBe(false);
    },
  );
});
