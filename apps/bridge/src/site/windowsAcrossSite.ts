// What a person's windows on one bridge of a site show of a desktop whose control window (the
// window that runs the AI's calls and asks the person) is on another bridge: the approvals it
// lists (`approvals_listed`, shown in every window of the person in charge on every bridge) and
// its overlay changes (`overlays_changed`, drawn by every window and fed to /ws/overlays on every
// bridge; the viewer keeps the overlay store, the bridges relay it), the AI actions it announces
// (`ai_action`), and the AI clients with a session on the desktop through each bridge
// (`ai_clients_listed`, merged into the list every window shows). And an approval answered in a
// window here for a request listed there: sent to the bridge that holds the control window
// (ForwardedApprovalAnswer over request/reply), signed with the site's key for approval answers,
// which only a bridge that reads the site's database has (siteKeys.ts). The holder checks the
// signature, then decides exactly as for a window of its own (HubSite.answerFromSite): only the
// person in charge, never a view grant, only a request still listed, once.
import {
  SyncStateMessage,
  type DesktopAccessLevel,
  type ViewerToBridge,
} from '@overlay-companion/protocol';
import type { Msg } from 'nats';
import type { Logger } from 'pino';
import { errorMessage } from '../errors.js';
import type { DesktopPlanes } from '../mcp/desktopPlanes.js';
import {
  ForwardedAnswer,
  ForwardedApprovalAnswer,
  OverlaysWanted,
  approvalAnswerFields,
  type SiteEvent,
} from './messages.js';
import type { RemoteControl } from './remoteControl.js';
import type { SiteBus } from './siteBus.js';
import type { SiteKeys } from './siteKeys.js';

/** How long an answer waits for the holder's word before the person is told it did not arrive. */
const ANSWER_WAIT_MS = 5_000;
/**
 * How often each bridge tells its AI clients of a desktop again while it has any; the others
 * forget a bridge's list after three times this untold (its bridge died).
 */
export const AI_CLIENTS_REFRESH_MS = 10_000;

type AiClientsList = Extract<SiteEvent, { type: 'ai_clients_listed' }>['clients'];

type ApprovalAnswer = Extract<ViewerToBridge, { type: 'approval_answer' }>;

export interface WindowsAcrossSiteOptions {
  bus: SiteBus;
  planes: DesktopPlanes;
  remote: RemoteControl;
  keys: SiteKeys;
  logger: Logger;
}

export class WindowsAcrossSite {
  /** The other bridges' AI clients, by desktop, then bridge: the list and when it was told. */
  private readonly clients = new Map<string, Map<string, { list: AiClientsList; at: number }>>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly options: WindowsAcrossSiteOptions) {
    const { bus } = options;
    bus.listen(bus.bridgeSubject(bus.bridgeId, 'answer'), ForwardedApprovalAnswer, (answer, msg) =>
      this.answered(answer, msg),
    );
    bus.listen(bus.bridgeSubject(bus.bridgeId, 'overlays'), OverlaysWanted, (wanted, msg) =>
      this.overlaysAsked(wanted, msg),
    );
    this.timer = setInterval(() => void this.refreshClients(), AI_CLIENTS_REFRESH_MS);
    this.timer.unref();
  }

  close(): void {
    clearInterval(this.timer);
  }

  /** Tells this bridge's AI clients again, and forgets the lists of bridges that went quiet. */
  private async refreshClients(): Promise<void> {
    const { bus, planes } = this.options;
    for (const { desktopId } of await planes.loaded()) {
      const here = (await planes.ifLoaded(desktopId))?.aiClientsHere ?? [];
      if (here.length > 0)
        void bus.publish({ type: 'ai_clients_listed', desktopId, clients: here });
    }
    const stale = Date.now() - 3 * AI_CLIENTS_REFRESH_MS;
    for (const [desktopId, byBridge] of this.clients) {
      let dropped = false;
      for (const [bridge, told] of byBridge)
        if (told.at < stale) dropped = byBridge.delete(bridge) || dropped;
      if (dropped) await this.showClients(desktopId);
    }
  }

  /** The other bridges' AI clients of a desktop, as told so far (one list; merged by the plane). */
  listedElsewhere(desktopId: string): AiClientsList {
    return [...(this.clients.get(desktopId)?.values() ?? [])].flatMap((told) => told.list);
  }

  /** The other bridges' AI clients of a desktop, merged into what its windows here show. */
  private async showClients(desktopId: string): Promise<void> {
    if (this.clients.get(desktopId)?.size === 0) this.clients.delete(desktopId);
    const plane = await this.options.planes.ifLoaded(desktopId);
    plane?.aiClientsElsewhere(this.listedElsewhere(desktopId));
  }

  /** Sends an answer given here to the bridge whose control window lists the request. */
  async answer(
    desktopId: string,
    person: { personId: string; access: DesktopAccessLevel },
    message: ApprovalAnswer,
  ): Promise<string | undefined> {
    const { bus, keys, remote, logger } = this.options;
    const holder = await remote.holder(desktopId);
    if (holder === undefined)
      return 'approval_answer: the window that asked is no longer open on any bridge; nothing changed.';
    const unsigned = {
      type: 'approval_answer' as const,
      from: bus.bridgeId,
      desktopId,
      personId: person.personId,
      access: person.access,
      requestId: message.request_id,
      approved: message.approved,
    };
    const answer: ForwardedApprovalAnswer = {
      ...unsigned,
      mac: keys.sign('approval answers', approvalAnswerFields(unsigned)),
    };
    let reply: ForwardedAnswer;
    try {
      const subject = bus.bridgeSubject(holder.bridge, 'answer');
      reply = await bus.request(subject, answer, ForwardedAnswer, ANSWER_WAIT_MS).answer;
    } catch (err) {
      logger.warn(
        { desktopId, err: errorMessage(err) },
        'site: an approval answer found no holder',
      );
      return 'approval_answer: the bridge whose window asked did not take the answer (it may have stopped); nothing changed there. If the request is still listed, answer it again.';
    }
    return reply.ok ? undefined : reply.error.message;
  }

  /**
   * A window opened here while the control window is on another bridge: that bridge's copy of
   * the overlays is asked for and kept here (a newer one than it is not replaced).
   */
  async fetchOverlays(desktopId: string): Promise<void> {
    const { bus, remote, planes, logger } = this.options;
    const holder = await remote.holder(desktopId);
    if (holder === undefined) return;
    const wanted = { type: 'overlays_wanted' as const, from: bus.bridgeId, desktopId };
    try {
      const subject = bus.bridgeSubject(holder.bridge, 'overlays');
      const overlays = await bus.request(subject, wanted, SyncStateMessage, ANSWER_WAIT_MS).answer;
      (await planes.ifLoaded(desktopId))?.hub.site.overlaysElsewhere(overlays);
    } catch (err) {
      logger.warn({ desktopId, err: errorMessage(err) }, 'site: the overlays were not fetched');
    }
  }

  /** Another bridge's window asks for this bridge's overlays of a desktop it controls here. */
  private async overlaysAsked(wanted: { desktopId: string }, msg: Msg): Promise<void> {
    const plane = await this.options.planes.ifLoaded(wanted.desktopId);
    if (msg.reply === undefined || msg.reply === '' || plane?.hub.control === undefined) return;
    msg.respond(this.options.bus.sealReply(msg, plane.hub.overlayFeed.syncMessage()));
  }

  /** An answer from a window on another bridge, for the control window here. */
  private async answered(answer: ForwardedApprovalAnswer, msg: Msg): Promise<void> {
    const { keys, planes, logger } = this.options;
    const { mac, ...signed } = answer;
    let problem: string | undefined;
    if (!keys.verify('approval answers', approvalAnswerFields(signed), mac)) {
      logger.warn(
        { from: answer.from, desktopId: answer.desktopId },
        "site: refused an approval answer not signed with the site's key",
      );
      problem =
        "approval_answer: not signed with the site's key (only a bridge of this site can answer); nothing changed.";
    } else {
      const plane = await planes.ifLoaded(answer.desktopId);
      problem =
        plane === undefined
          ? 'approval_answer: the desktop is not open here any more; nothing changed.'
          : plane.hub.site.answerFromSite(
              { personId: answer.personId, access: answer.access },
              { type: 'approval_answer', request_id: answer.requestId, approved: answer.approved },
            );
    }
    if (msg.reply === undefined || msg.reply === '') return;
    const reply: ForwardedAnswer =
      problem === undefined
        ? { ok: true, approved: answer.approved }
        : {
            ok: false,
            error: { kind: 'permission_denied', message: problem.slice(0, 500), viewer: false },
          };
    msg.respond(this.options.bus.sealReply(msg, reply));
  }

  /** Applies what another bridge's control window listed or drew to this bridge's windows. */
  async apply(
    event: Extract<
      SiteEvent,
      {
        type:
          'approvals_listed' | 'overlays_changed' | 'ai_action' | 'ai_clients_listed' | 'take_over';
      }
    >,
  ): Promise<void> {
    if (event.type === 'ai_clients_listed') {
      const byBridge =
        this.clients.get(event.desktopId) ?? new Map<string, { list: AiClientsList; at: number }>();
      if (event.clients.length === 0) byBridge.delete(event.from);
      else byBridge.set(event.from, { list: event.clients, at: Date.now() });
      this.clients.set(event.desktopId, byBridge);
      await this.showClients(event.desktopId);
      return;
    }
    const plane = await this.options.planes.ifLoaded(event.desktopId);
    if (plane === undefined) return;
    if (event.type === 'overlays_changed') {
      plane.hub.site.overlaysElsewhere(event.change);
      return;
    }
    if (event.type === 'take_over') {
      plane.hub.site.takeOverElsewhere(event.on);
      return;
    }
    if (event.type === 'ai_action') {
      plane.hub.site.aiActionElsewhere({ type: 'ai_action', action: event.action });
      return;
    }
    // Listed for the person in charge there; if the charge moved meanwhile, it is not theirs.
    if (plane.inCharge().id !== event.inChargeId) return;
    plane.hub.site.approvalsListedElsewhere({
      type: 'approvals_waiting',
      requests: event.requests,
    });
  }
}
