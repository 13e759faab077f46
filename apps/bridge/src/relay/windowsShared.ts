// What every window of one person is told about the others, kept by the bridge so a window that
// opens later learns it with its greeting: the control window's approval queue
// (approvals_waiting, shown by mirrors), the person's layout and masks, their AI clients, and
// whether they have taken the desktop over, and the desktop's standing permissions. Also which window may say what: only the control
// window announces its queue and the AI actions it runs (ai_action, drawn by the others); any
// window of the person may take over, but a headless viewer (no person) cannot hand back. An
// answer given in another window (approval_answer) counts only for a request the control window
// still lists: the first answer takes it off the list, so a second one is refused. In a site, the
// queue of a control window on another bridge is kept here the same way (listedElsewhere).
import type {
  ApprovalPreview,
  BridgeToViewer,
  MonitorLayout,
  ViewerToBridge,
} from '@overlay-companion/protocol';

type Msg<T extends BridgeToViewer['type']> = Extract<BridgeToViewer, { type: T }>;
export type WindowMessage = Extract<
  ViewerToBridge,
  { type: 'approvals_waiting' | 'ai_action' | 'take_over' }
>;

/** What to do with a window's message: refuse it, or send it on (to the others, or to all). */
export type WindowVerdict =
  { error: string } | { to: 'others' | 'all'; message: BridgeToViewer } | { to: 'nobody' };

export class SharedWindowState {
  #approvalsWaiting: Msg<'approvals_waiting'> | undefined;
  /** When the control window's last approvals_waiting came (its deadlines count from then). */
  #approvalsWaitingAt = 0;
  /** When each listed request was first listed (the fleet shows queues oldest first). */
  #askedAt = new Map<string, number>();
  #layout: Msg<'layout_changed'> | undefined;
  #aiClients: Msg<'ai_clients'> = { type: 'ai_clients', clients: [] };
  #takenOver = false;
  /** Made afresh for each window: its times are relative to when the window hears it. */
  #standing: (() => Msg<'standing_permissions'>) | undefined;

  get layout(): MonitorLayout | null | undefined {
    return this.#layout?.layout;
  }

  get approvalsWaitingCount(): number {
    return this.#approvalsWaiting?.requests.length ?? 0;
  }

  /** The control window's queue as last announced, with absolute times (the fleet feed). */
  listedApprovals(): Array<{
    request_id?: string;
    title: string;
    asked_at: number;
    deadline_at: number;
    intent?: string;
    preview?: ApprovalPreview;
  }> {
    const at = this.#approvalsWaitingAt;
    return (this.#approvalsWaiting?.requests ?? []).map((r) => ({
      ...(r.request_id === undefined ? {} : { request_id: r.request_id }),
      title: r.title,
      asked_at: (r.request_id === undefined ? undefined : this.#askedAt.get(r.request_id)) ?? at,
      deadline_at: at + r.deadline_in_ms,
      ...(r.intent === undefined ? {} : { intent: r.intent }),
      ...(r.preview === undefined ? {} : { preview: r.preview }),
    }));
  }

  layoutChanged(layout: MonitorLayout | null): Msg<'layout_changed'> {
    this.#layout = { type: 'layout_changed', layout };
    return this.#layout;
  }

  standingChanged(current: () => Msg<'standing_permissions'>): Msg<'standing_permissions'> {
    this.#standing = current;
    return current();
  }

  aiClientsChanged(message: Msg<'ai_clients'>): void {
    this.#aiClients = message;
  }

  /** The control window left: its questions went with it (the empty queue to tell, if any). */
  controlLeft(): Msg<'approvals_waiting'> | undefined {
    if (this.#approvalsWaiting === undefined || this.#approvalsWaiting.requests.length === 0)
      return undefined;
    this.#approvalsWaiting = { type: 'approvals_waiting', requests: [] };
    return this.#approvalsWaiting;
  }

  /**
   * Another window answered `requestId`: the queue as the other windows should now see it (the
   * answered request gone at once, before the control window's own update), or an error when
   * the control window lists no such request (unknown, already answered, timed out, withdrawn).
   */
  answered(requestId: string): { error: string } | { waiting: Msg<'approvals_waiting'> } {
    const listed = this.#approvalsWaiting?.requests ?? [];
    if (!listed.some((r) => r.request_id === requestId))
      return {
        error: `approval_answer: no approval ${requestId} is waiting (it was already answered, withdrawn or timed out); nothing changed.`,
      };
    this.#approvalsWaiting = {
      type: 'approvals_waiting',
      requests: listed.filter((r) => r.request_id !== requestId),
    };
    return { waiting: this.#approvalsWaiting };
  }

  /**
   * What the control window on another bridge of the site lists: shown here as if a window here
   * had announced it (and answerable through `answered`, then relayed to that bridge).
   */
  listedElsewhere(message: Msg<'approvals_waiting'>): Msg<'approvals_waiting'> {
    this.#approvalsWaiting = message;
    this.#noteAsked(message);
    return message;
  }

  /**
   * A window on another bridge of the site took the desktop over (or handed it back): the
   * message every window here must hear, or undefined when nothing changes.
   */
  takeOverElsewhere(on: boolean): Msg<'take_over'> | undefined {
    if (on === this.#takenOver) return undefined;
    this.#takenOver = on;
    return { type: 'take_over', on };
  }

  /** What a window that just got hello must also hear. */
  afterHello(role: 'control' | 'mirror'): BridgeToViewer[] {
    const messages: BridgeToViewer[] = [this.#aiClients];
    if (role === 'mirror' && this.#approvalsWaiting !== undefined)
      messages.push(this.#approvalsWaiting);
    if (this.#layout !== undefined) messages.push(this.#layout);
    if (this.#takenOver) messages.push({ type: 'take_over', on: true });
    if (this.#standing !== undefined) messages.push(this.#standing());
    return messages;
  }

  #noteAsked(message: Msg<'approvals_waiting'>): void {
    const now = Date.now();
    this.#approvalsWaitingAt = now;
    const askedAt = new Map<string, number>();
    for (const r of message.requests)
      if (r.request_id !== undefined)
        askedAt.set(r.request_id, this.#askedAt.get(r.request_id) ?? now);
    this.#askedAt = askedAt;
  }

  fromWindow(
    message: WindowMessage,
    sender: { role: 'control' | 'mirror'; headless: boolean },
  ): WindowVerdict {
    switch (message.type) {
      case 'approvals_waiting':
        // Only the control window asks the person; a mirror has no queue to announce.
        if (sender.role !== 'control')
          return {
            error: 'approvals_waiting: only the control viewer announces waiting approvals.',
          };
        this.#approvalsWaiting = message;
        this.#noteAsked(message);
        return { to: 'others', message };
      case 'ai_action':
        // Only the control window runs the AI's input; the others draw it where they show it.
        if (sender.role !== 'control')
          return { error: 'ai_action: only the control viewer runs AI input.' };
        return { to: 'others', message };
      case 'take_over':
        if (!message.on && sender.headless)
          return { error: 'take_over ignored: a headless viewer cannot hand the desktop back.' };
        if (message.on === this.#takenOver) return { to: 'nobody' };
        this.#takenOver = message.on;
        return { to: 'all', message };
    }
  }
}
