// Assembles this window's control of the desktop, once per page (BrowserControl; the bridge's
// DesktopControl is the other end): the stores, the control channel (real WebSocket, ticket from
// the bridge), the controller, the frame/clipboard watchers and the person's event stream, all
// following the live Guacamole client. React components get the handle through
// getBrowserControl(); nothing here renders.
import { onAiActionRun } from '../activity/aiActivity.js';
import { toAiAction } from '../activity/aiActionWire.js';
import { afterAnswer } from '../net/afterAnswer.js';
import {
  MAX_LISTED_APPROVALS,
  type ChargeMessage,
  type Mode,
  type ViewerToBridge,
} from '@overlay-companion/protocol';
import { Confirmations } from '../confirm/confirmations.js';
import { getActiveClient, onActiveClientChange } from '../display/activeClient.js';
import { personInputBlocked } from '../display/personInput.js';
import { confirmationStore, type ConfirmDetails } from '../store/pendingConfirmations.js';
import { standingStore } from '../store/standing.js';
import { watchStandingExpiry } from '../store/standingExpiry.js';
import { PersonActivity, takeOverStore, watchPersonInput } from '../takeover/personActivity.js';
import { HeldActions } from '../takeover/heldActions.js';
import { heldActionStore } from '../store/heldActions.js';
import { DISPLAY_AREA_ATTRIBUTE } from '../display/guacBrowser.js';
import { toastStore } from '../store/toasts.js';
import { describeConfirmation, pointOf } from '../confirm/describe.js';
import { readPreviewSquare } from '../confirm/previewSquare.js';
import type { SettledReason } from '../confirm/confirmations.js';
import { controlStore } from '../store/control.js';
import { desktopStateStore } from '../store/desktopState.js';
import { connectionStore, displayStore } from '../store/index.js';
import { overlayStore } from '../store/overlays.js';
import { currentMasks, layoutStore } from '../store/layout.js';
import { viewportStore } from '../store/viewport.js';
import { ControlChannel, ticketSocketUrl } from './channel.js';
import { ViewerController } from './controller.js';
import { desktopNotShown } from './desktopAway.js';
import { ClipboardWatch } from './handlers/clipboard.js';
import { OverlayService } from './handlers/overlay.js';
import { channelBurst } from './overlaySync.js';
import { currentMonitors, type DesktopSize } from './monitors.js';
import { FrameWatch } from './screen/frameWatch.js';
import { sleep } from './sleep.js';
import { installTestApi } from './testApi.js';
import { AnnotationRequests } from '../teach/annotationRequests.js';
import { UiEventStream } from './uiEvents.js';
import { inputDelivered } from '../display/inputReceipts.js';
import { moveLocalCursor, sendPointer } from '../display/pointerInput.js';

/** How often a waiting question's preview square is read again for the other windows. */
const PREVIEW_REFRESH_MS = 1_000;

/** What the page's components may ask of this window's control of the desktop. */
export interface BrowserControl {
  /** The person pressed Stop. */
  stop: () => void;
  /** The person picked a mode; false when the bridge is not reachable right now. */
  chooseMode: (mode: Mode) => boolean;
  /** The person takes the charge of this desktop's AI or hands it over (the bridge decides). */
  charge: (message: ChargeMessage) => void;
  /** The person answered the confirmation `id` in the panel. */
  answer: (id: string, approved: boolean) => void;
  /** In a mirror: the person answered `id`, asked in their control window (approval_answer). */
  answerElsewhere: (id: string, approved: boolean) => void;
  /** In a mirror: "Make this the control window" (take_control; the bridge moves the role). */
  takeControl: () => void;
  /** The person chose Run (true) or Discard for an action held through a take-over. */
  answerHeld: (id: string, run: boolean) => void;
  /**
   * The person answered the approval of call `callId` with "allow this for `minutes`" (null:
   * for this AI session): the bridge makes the standing permission (store/standing.ts).
   */
  grant: (callId: string, minutes: number | null) => boolean;
  /** The person ended a standing permission (any window of theirs; the bridge ends it). */
  revoke: (id: string) => void;
  /** The remote clipboard, for the menu's clipboard panel (the person's own copy and paste). */
  clipboard: {
    latest: () => string;
    subscribe: (listener: (text: string) => void) => () => void;
    /** Put `text` on the remote clipboard; false when the desktop is not connected. */
    send: (text: string) => boolean;
  };
}

function knownDesktop(): DesktopSize | undefined {
  const { desktopWidth, desktopHeight } = displayStore.getState();
  return desktopWidth > 0 && desktopHeight > 0
    ? { width: desktopWidth, height: desktopHeight }
    : undefined;
}

function requireDesktop(): DesktopSize {
  const desktop = knownDesktop();
  if (desktop === undefined) throw desktopNotShown(connectionStore.getState(), Date.now());
  return desktop;
}

/**
 * While the page is still opening the desktop (a call right after the page loaded or was
 * reloaded: connecting, then the handshake, then the first frame), a promise that settles once
 * the desktop shows its first frame, after `timeoutMs`, or on abort. Undefined otherwise, so a
 * desktop that went away (reconnecting, failed) still fails calls at once.
 */
function firstFrame(timeoutMs: number, signal: AbortSignal): Promise<void> | undefined {
  const opening = (): boolean => {
    const { phase } = connectionStore.getState();
    if (phase === 'reconnecting' || phase === 'failed') return false;
    return phase !== 'connected' || knownDesktop() === undefined;
  };
  if (!opening()) return undefined;
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      unsubscribeDisplay();
      unsubscribeConnection();
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    const check = () => {
      if (!opening()) done();
    };
    const unsubscribeDisplay = displayStore.subscribe(check);
    const unsubscribeConnection = connectionStore.subscribe(check);
    signal.addEventListener('abort', done, { once: true });
  });
}

function requireClient() {
  const client = getActiveClient();
  const connection = connectionStore.getState();
  if (client === null || connection.phase !== 'connected')
    throw desktopNotShown(connection, Date.now());
  return client;
}

function monitors() {
  return currentMonitors(
    requireDesktop(),
    viewportStore.getState().viewport.scale,
    layoutStore.getState().layout,
  );
}

/** Outcomes the person did not see happen (they did not press the button) get a toast. */
function announceSettled(details: ConfirmDetails, reason: SettledReason): void {
  const what = describeConfirmation(details).title;
  const toasts = toastStore.getState();
  if (reason === 'timeout')
    toasts.toastShown('warn', `Denied automatically (no answer in time): ${what}.`);
  else if (reason === 'withdrawn' && takeOverStore.getState().takenOver)
    toasts.toastShown('info', `Withdrawn because you took over the desktop: ${what}.`);
  else if (reason === 'withdrawn')
    toasts.toastShown('info', `The AI withdrew its request: ${what}.`);
  else if (reason === 'denied') toasts.toastShown('info', `Denied: ${what}.`);
}

let control: BrowserControl | undefined;

export function getBrowserControl(): BrowserControl {
  control ??= startBrowserControl();
  return control;
}

function startBrowserControl(): BrowserControl {
  const frames = new FrameWatch(() => currentMasks());
  const clipboard = new ClipboardWatch();
  const confirmations = new Confirmations(confirmationStore, Date.now, announceSettled);
  const person = new PersonActivity(takeOverStore, { now: Date.now, sleep });
  const held = new HeldActions(heldActionStore);
  watchPersonInput(
    document,
    (target) => target instanceof Element && target.closest(`[${DISPLAY_AREA_ATTRIBUTE}]`) !== null,
    person,
  );
  // Standing permissions end on their own: drop them when due, and say so.
  watchStandingExpiry(standingStore, (gone) =>
    toastStore
      .getState()
      .toastShown(
        'info',
        `${gone.client.name} must ask again before ${gone.tool}: your “allow” ended.`,
      ),
  );
  // Its callbacks only run after start(), by which time the controller below exists.
  const channel = new ControlChannel({
    socketUrl: ticketSocketUrl(),
    openSocket: (url) => new WebSocket(url),
    onMessage: (message) => controller.handle(message),
    onOpen: () => controller.linkOpened(),
    onConnecting: () => {
      if (controlStore.getState().link !== 'reconnecting')
        controlStore.getState().linkChanged('connecting');
    },
    onDown: (detail, retryAt) => {
      controller.linkLost();
      controlStore
        .getState()
        .linkChanged(retryAt === null ? 'incompatible' : 'reconnecting', detail);
    },
  });
  const send = (m: ViewerToBridge): boolean => channel.send(m);
  const annotations = new AnnotationRequests({
    desktop: requireDesktop,
    monitors,
    masks: () => currentMasks(),
    headless: () => controlStore.getState().headless,
    notify: (tone, text) => toastStore.getState().toastShown(tone, text),
  });
  const overlays = new OverlayService({
    store: overlayStore,
    broadcast: afterAnswer((m) => void send(m)),
    desktop: knownDesktop,
    monitors: () => (knownDesktop() === undefined ? [] : monitors()),
  });
  const controller = new ViewerController({
    send,
    giveUp: (detail) => channel.giveUp(detail),
    control: controlStore,
    overlayStore,
    overlayBurst: channelBurst(),
    confirmations,
    env: {
      overlays,
      clipboard,
      frames,
      client: requireClient,
      delivered: inputDelivered,
      pointer: { send: sendPointer, cursor: moveLocalCursor },
      desktop: requireDesktop,
      monitors,
      masks: () => currentMasks(),
      viewport: () => viewportStore.getState().viewport,
      sleep,
      annotate: (args, signal) => annotations.request(args, signal),
    },
    firstFrame,
    standing: standingStore,
    layout: layoutStore,
    person,
    takeOver: takeOverStore,
    held,
    desktopState: desktopStateStore,
  });
  // The person's Take over / Hand back in this window reaches every window (the bridge relays).
  takeOverStore.subscribe((now, before) => {
    if (now.takenOver !== before.takenOver && now.changedBy === 'person')
      send({ type: 'take_over', on: now.takenOver });
  });

  const events = new UiEventStream({
    send: (event) => void send({ type: 'event', event }),
    interest: () => controlStore.getState().eventInterest,
    interestChanges: (listener) =>
      controlStore.subscribe((now, before) => {
        if (now.eventInterest !== before.eventInterest) listener();
      }),
    viewport: () => viewportStore.getState().viewport,
    frames,
    masks: () => currentMasks(),
  });
  events.start();
  onActiveClientChange((client) => {
    frames.attach(client);
    clipboard.attach(client);
    events.watchDisplay(client === null ? null : client.getDisplay().getElement());
  });
  // Every other window of the person shows what this (control) window is asking them.
  // The preview squares last sent: the timer below re-sends only when one of them changed.
  let previewsSent = '';
  const announceApprovals = (onlyIfPreviewsChanged = false) => {
    if (controlStore.getState().role !== 'control') return;
    const now = Date.now();
    const waiting = (
      title: string,
      deadlineAt: number,
      requestId?: string,
      shown?: { intent: string | undefined; details: ConfirmDetails },
    ) => {
      const point = shown === undefined ? undefined : pointOf(shown.details);
      const preview = point === undefined ? undefined : readPreviewSquare(point);
      // As the AI sent it (the bridge checked it with the tool's Intent schema); each window
      // shows it through intentText.
      const intent = shown?.intent;
      return {
        title: title.slice(0, 200),
        deadline_in_ms: Math.min(3_600_000, Math.max(0, Math.round(deadlineAt - now))),
        // The other windows answer a question by its id (approval_answer); held actions' Run /
        // Discard is answered here only, so it has none.
        ...(requestId === undefined ? {} : { request_id: requestId }),
        // What the person needs to judge it where this desktop is not shown (the fleet page,
        // their other desktops' viewers): the AI's reason and the desktop's own pixels.
        ...(intent === undefined ? {} : { intent }),
        ...(preview === undefined ? {} : { preview }),
      };
    };
    const requests = [
      ...confirmationStore.getState().pending.map((p) =>
        waiting(describeConfirmation(p.details).title, p.deadlineAt, p.id, {
          intent: p.intent,
          details: p.details,
        }),
      ),
      // Held through a take-over: Run / Discard is asked in this window too.
      ...heldActionStore
        .getState()
        .held.map((h) =>
          waiting(`Run after hand back? ${describeConfirmation(h.details).title}`, h.deadlineAt),
        ),
    ].slice(0, MAX_LISTED_APPROVALS);
    const previews = requests.map((r) => r.preview?.png ?? '').join(' ');
    if (onlyIfPreviewsChanged && previews === previewsSent) return;
    previewsSent = previews;
    send({ type: 'approvals_waiting', requests });
  };
  // While a question waits its preview square is read again now and then, so the other windows
  // see the desktop as it is (a frame still arriving when it was asked, a lossy one refined);
  // the list goes out again only when a square changed.
  let previewTimer: ReturnType<typeof setInterval> | undefined;
  confirmationStore.subscribe((now, before) => {
    if (now.pending === before.pending) return;
    announceApprovals();
    if (now.pending.length > 0)
      previewTimer ??= setInterval(() => announceApprovals(true), PREVIEW_REFRESH_MS);
    else if (previewTimer !== undefined) {
      clearInterval(previewTimer);
      previewTimer = undefined;
    }
  });
  heldActionStore.subscribe((now, before) => {
    if (now.held !== before.held) announceApprovals();
  });
  // ...and draws the AI's actions this window runs where they happen (ai_action).
  onAiActionRun((details) => {
    const action = toAiAction(details);
    if (action !== undefined && controlStore.getState().role === 'control')
      send({ type: 'ai_action', action });
  });
  controlStore.subscribe((now, before) => {
    if (now.role === 'control' && before.role !== 'control') announceApprovals();
  });
  channel.start();
  window.addEventListener('pagehide', () => channel.stop());
  installTestApi({
    overlays: overlayStore,
    control: controlStore,
    viewport: viewportStore,
    confirmations: confirmationStore,
  });

  return {
    stop: () => {
      controller.pressStop();
      toastStore
        .getState()
        .toastShown('stop', 'Stopped: every request denied, AI input halted, mode set to Passive.');
    },
    grant: (callId, minutes) => {
      const sent = send({ type: 'standing_grant', call_id: callId, minutes });
      if (!sent)
        toastStore
          .getState()
          .toastShown(
            'warn',
            'The link to the bridge is down, so nothing was allowed for later; this one action was not approved either. The AI will ask again.',
          );
      return sent;
    },
    revoke: (id) => {
      if (!send({ type: 'standing_revoke', id }))
        toastStore
          .getState()
          .toastShown(
            'warn',
            'The link to the bridge is down, so the permission did not end here. Press Stop to end every permission at once.',
          );
    },
    chooseMode: (mode) => controller.chooseMode(mode),
    charge: (message) => {
      if (!send(message))
        toastStore
          .getState()
          .toastShown(
            'warn',
            'The link to the bridge is down, so the charge did not change. Try again once it is back.',
          );
    },
    answer: (id, approved) => confirmations.answer(id, approved),
    answerElsewhere: (id, approved) => {
      if (!send({ type: 'approval_answer', request_id: id, approved }))
        toastStore
          .getState()
          .toastShown(
            'warn',
            'The link to the bridge is down, so your answer did not reach your control window. Answer there, or try again once the link is back.',
          );
    },
    takeControl: () => {
      if (!send({ type: 'take_control' }))
        toastStore
          .getState()
          .toastShown(
            'warn',
            'The link to the bridge is down, so this window did not become the control window. Try again once it is back.',
          );
    },
    answerHeld: (id, run) => held.answer(id, run),
    clipboard: {
      latest: () => clipboard.latest,
      subscribe: (listener) => clipboard.subscribe(listener),
      send: (text) => {
        const client = getActiveClient();
        if (client === null || personInputBlocked()) return false;
        clipboard.set(client, { text });
        return true;
      },
    },
  };
}
