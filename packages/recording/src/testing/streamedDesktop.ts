// Test support: a real Xvnc desktop streamed through our gateway or Apache guacd 1.6 to the
// gateway's test client (standing in for the browser: PNG only, so every frame is lossless — guacd
// may still send JPEG under load), with everything the server sends after the handshake handed,
// as it arrives, to the writer under test and to a live display model (the client's own drawing
// does not grow buffers the way guacd 1.6's last-frame buffers need).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { pino } from 'pino';
import type { GuacInstruction } from '@overlay-companion/guac';
import {
  startGateway,
  startLocalDesktop,
  type Gateway,
  type LocalDesktop,
} from '@overlay-companion/gateway';
import { GuacTestClient } from '@overlay-companion/gateway/testing';
import { DisplayModel } from '../displayModel.js';
import { startGuacd, type TestGuacd } from './guacd.js';

const run = promisify(execFile);

export interface StreamedDesktop {
  desktop: LocalDesktop;
  client: GuacTestClient;
  /** The picture as the server drew it so far (applied in order). */
  live: DisplayModel;
  /** Resolves once every instruction received so far is applied to `live`. */
  liveDrawn: () => Promise<void>;
  /** Runs an X client on the desktop. */
  x: (command: string, args: string[]) => Promise<void>;
  stop: () => Promise<void>;
}

/** Starts the desktop and the server, connects, and waits for the first frame. */
export async function startStreamedDesktop(
  path: 'gateway' | 'guacd',
  size: { width: number; height: number },
  feed: (instruction: GuacInstruction) => void,
): Promise<StreamedDesktop> {
  let desktop: LocalDesktop;
  let gateway: Gateway | undefined;
  let guacd: TestGuacd | undefined;
  let client: GuacTestClient;
  const x = async (command: string, args: string[]): Promise<void> => {
    await run(command, args, { env: desktop.env });
  };
  const options = {
    select: 'vnc',
    size: [size.width, size.height, 96] as [number, number, number],
    imageTypes: ['image/png'],
  };
  if (path === 'gateway') {
    desktop = await startLocalDesktop(size);
    gateway = await startGateway({
      port: 0,
      vncUnixSockets: [desktop.rfbPath],
      logger: pino({ level: 'silent' }),
    });
    await x('xdotool', ['mousemove', '0', '0']);
    client = await GuacTestClient.connect(gateway, {
      ...options,
      params: { hostname: desktop.rfbPath },
    });
  } else {
    const password = 'rec-test';
    desktop = await startLocalDesktop({ ...size, rfbTcp: true, password });
    guacd = await startGuacd();
    await x('xdotool', ['mousemove', '0', '0']);
    client = await GuacTestClient.connect(
      { host: guacd.host, port: guacd.port },
      { ...options, params: { hostname: '127.0.0.1', port: String(desktop.port), password } },
    );
  }
  const live = new DisplayModel();
  let liveWork: Promise<void> = Promise.resolve();
  let liveFrames = 0;
  // Everything the server sends after the handshake, as the client parses it: what already came
  // with or after `ready`, then each instruction the moment the client receives it (its
  // `received` log is where it records them in order).
  const received = client.received;
  const ready = received.findIndex((i) => i.opcode === 'ready');
  const see = (instruction: GuacInstruction): void => {
    feed(instruction);
    liveWork = liveWork.then(() => live.apply(instruction));
    if (instruction.opcode === 'sync') liveWork = liveWork.then(() => void liveFrames++);
  };
  for (const instruction of received.slice(ready + 1)) see(instruction);
  const record = received.push.bind(received);
  received.push = (...instructions) => {
    for (const instruction of instructions) see(instruction);
    return record(...instructions);
  };
  for (const deadline = Date.now() + 15_000; liveFrames === 0;) {
    if (Date.now() > deadline) throw new Error('no frame from the server in 15 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    desktop,
    client,
    live,
    liveDrawn: () => liveWork,
    x,
    stop: async () => {
      client.close();
      await gateway?.close();
      await guacd?.stop();
      await desktop.stop();
    },
  };
}
