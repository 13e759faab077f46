// Test support for the gateway pool (tunnel/gatewayPool.ts), with real parts: one Xvnc desktop
// on loopback TCP (no VNC password: the test owns the port for its run) and two of our gateways
// started with a pool secret; the bridge configuration that uses them as its pool; opening a
// window that shows the desktop; and moving the pointer through a window, checked from X.
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import {
  startGateway,
  startLocalDesktop,
  type TcpGateway,
  type TcpLocalDesktop,
} from '@overlay-companion/gateway';
import { expect } from 'vitest';
import type { BridgeConfigInput } from '../config.js';
import { silentLogger } from '../logger.js';
import { registerSecret } from './testLogs.js';
import { TunnelClient } from './tunnelClient.js';
import { eventually } from '@overlay-companion/gateway/testing';
import { pointer } from './xside.js';

export interface PoolParts {
  desktop: TcpLocalDesktop;
  gateways: TcpGateway[];
  secret: string;
  /** Connections running on each gateway. */
  counts(): number[];
  /** The bridge configuration with both gateways as its pool, with `secret` (default the pool's). */
  config(secret?: string): BridgeConfigInput;
  stop(): Promise<void>;
}

export async function startPoolParts(): Promise<PoolParts> {
  const secret = randomBytes(32).toString('base64url');
  registerSecret(secret);
  const desktop = await startLocalDesktop({ windowManager: false, rfbTcp: true });
  const gateways: TcpGateway[] = [];
  for (let i = 0; i < 2; i++)
    gateways.push(await startGateway({ port: 0, poolSecret: secret, logger: silentLogger() }));
  return {
    desktop,
    gateways,
    secret,
    counts: () => gateways.map((g) => g.connectionIds().length),
    config: (given = secret) => ({
      port: 0,
      webRoot: tmpdir(),
      guacd: { host: '127.0.0.1', port: gateways[0]!.port },
      connection: {
        protocol: 'vnc',
        params: { hostname: desktop.host, port: String(desktop.port) },
      },
      tunnel: {
        gatewayPool: {
          members: gateways.map((g) => ({ kind: 'gateway' as const, host: g.host, port: g.port })),
          secret: given,
        },
      },
    }),
    stop: async () => {
      for (const gateway of gateways) await gateway.close();
      await desktop.stop();
    },
  };
}

/** Opens a window and waits for the desktop's size; throws with the tunnel's error instead. */
export async function openShowing(url: string, ticket: string): Promise<TunnelClient> {
  const client = await TunnelClient.open(url, ticket);
  const shown = await client.waitFor(
    (i) => (i.opcode === 'size' && i.args[0] === '0') || i.opcode === 'error',
    { timeoutMs: 30_000, what: "the desktop's size" },
  );
  if (shown.opcode === 'error') {
    await client.close();
    throw new Error(`The tunnel failed: ${shown.args.join(' / ')}`);
  }
  return client;
}

/** Moves the pointer through the window and expects X to have it there. */
export async function pointerLands(
  client: TunnelClient,
  env: NodeJS.ProcessEnv,
  x: number,
  y: number,
): Promise<void> {
  client.send('mouse', x, y, 0);
  await eventually(
    `the X pointer at ${String(x)},${String(y)}`,
    async () => {
      const at = await pointer(env);
      return at.x === x && at.y === y;
    },
    10_000,
  ).catch(() => undefined);
  expect(await pointer(env)).toEqual({ x, y });
}
