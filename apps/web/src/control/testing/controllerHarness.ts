// The harness for ViewerController tests: the real stores, policy gate, overlay service and
// input handlers around one controller, with a recording FAKE Guacamole client at the edge (the
// only part that needs a browser), and helpers that make parsed bridge messages.
import {
  defaultPermissions,
  type Permissions,
  PROTOCOL_VERSION,
  parseBridgeMessage,
  type BridgeToViewer,
  type ViewerToBridge,
} from '@overlay-companion/protocol';
import type Guacamole from 'guacamole-common-js';
import { Confirmations } from '../../confirm/confirmations.js';
import { createConfirmationStore } from '../../store/pendingConfirmations.js';
import { createControlStore } from '../../store/control.js';
import { createOverlayStore } from '../../store/overlays.js';
import { EMPTY_VIEWPORT } from '../../viewport/viewport.js';
import { ViewerController, type ControllerDeps } from '../controller.js';
import { ClipboardWatch } from '../handlers/clipboard.js';
import { FakeGuacClient } from '../handlers/fakeGuacClient.js';
import { OverlayService } from '../handlers/overlay.js';
import { currentMonitors } from '../monitors.js';
import { FrameWatch } from '../screen/frameWatch.js';
import { sleep } from '../sleep.js';
import { HeldActions } from '../../takeover/heldActions.js';
import { PersonActivity } from '../../takeover/personActivity.js';
import { createHeldActionStore } from '../../store/heldActions.js';

export function msg(raw: unknown): BridgeToViewer {
  const parsed = parseBridgeMessage(JSON.stringify(raw));
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.message;
}

export const hello = (
  role: 'control' | 'mirror',
  mode = 'assist',
  version: number = PROTOCOL_VERSION,
  headless = false,
  permissions: Permissions = defaultPermissions(),
) =>
  msg({
    type: 'hello',
    protocol_version: version,
    viewer_id: 'v1',
    mode,
    role,
    headless,
    permissions,
  });

export const call = (
  id: string,
  name: string,
  args: unknown,
  policy = 'allow',
  deadline_ms = 60_000,
) => msg({ type: 'tool_call', id, name, args, policy, deadline_ms });

export function setup(
  options: {
    link?: { up: boolean };
    desktop?: () => { width: number; height: number };
    firstFrame?: ControllerDeps['firstFrame'];
    /** With it, the person's take-over rules too (PersonActivity and held actions). */
    takeOver?: ControllerDeps['takeOver'];
    desktopState?: ControllerDeps['desktopState'];
    /** A mirror gathers bursts of relayed overlay changes here (overlaySync.ts Burst). */
    overlayBurst?: ControllerDeps['overlayBurst'];
    /** When input counts as delivered (default: at once). */
    delivered?: ControllerDeps['env']['delivered'];
  } = {},
) {
  const sent: ViewerToBridge[] = [];
  const link = options.link ?? { up: true };
  // Like the channel: a message sent while the link is down is dropped and send says false.
  const send = (m: ViewerToBridge) => {
    if (link.up) sent.push(m);
    return link.up;
  };
  const control = createControlStore();
  const overlayStore = createOverlayStore();
  const confirmationStore = createConfirmationStore();
  const confirmations = new Confirmations(confirmationStore);
  const client = new FakeGuacClient();
  /** "x,y" of each move of the viewer's local cursor, in order. */
  const cursor: string[] = [];
  const desktop = { width: 1280, height: 800 };
  const overlays = new OverlayService({
    store: overlayStore,
    broadcast: (m) => void send(m),
    desktop: () => desktop,
    monitors: () => currentMonitors(desktop, 1),
    newId: () => `ov_${overlayStore.getState().seq + 1}`,

    now: () => 1_700_000_000_000,
  });
  let gaveUp: string | undefined;
  const heldStore = createHeldActionStore();
  const held = new HeldActions(heldStore);
  const person = options.takeOver
    ? new PersonActivity(options.takeOver, { now: Date.now, sleep })
    : undefined;
  const controller = new ViewerController({
    send,
    giveUp: (d) => (gaveUp = d),
    control,
    overlayStore,
    confirmations,
    env: {
      overlays,
      clipboard: new ClipboardWatch(),
      frames: new FrameWatch(),
      client: () => client as unknown as Guacamole.Client,
      // A fake: these tests have no tunnel; receipts are tested in display/inputReceipts.test.ts.
      delivered: options.delivered ?? (() => Promise.resolve()),
      // The fake client records the instruction; the local cursor's moves are recorded apart.
      pointer: {
        send: (c, state) => (c as unknown as FakeGuacClient).sendMouseState(state),
        cursor: (_c, x, y) => cursor.push(`${x},${y}`),
      },
      desktop: options.desktop ?? (() => desktop),
      monitors: () => currentMonitors(desktop, 1),
      masks: () => [],
      viewport: () => EMPTY_VIEWPORT,
      sleep,
      annotate: () => Promise.reject(new Error('not asked in these tests')),
    },
    ...(options.firstFrame ? { firstFrame: options.firstFrame } : {}),
    ...(options.takeOver ? { takeOver: options.takeOver, held } : {}),
    ...(person ? { person } : {}),
    ...(options.desktopState ? { desktopState: options.desktopState } : {}),
    ...(options.overlayBurst ? { overlayBurst: options.overlayBurst } : {}),
    warn: () => {},
  });
  const pending = () => confirmationStore.getState().pending;
  return {
    sent,
    control,
    overlayStore,
    confirmations,
    client,
    cursor,
    controller,
    pending,
    held,
    heldActions: () => heldStore.getState().held,
    person,
    gaveUp: () => gaveUp,
  };
}
