// The session mode: one per bridge (the person has one desktop), changed by the person from a
// viewer, by Stop, or by an approved set_mode. Listeners (the viewer hub) mirror every change to
// the viewers with mode_changed. A custom policy that does not parse is stored as given, so the
// viewer can show it, and decidePolicy denies every input tool under it (fail closed).
import {
  CustomPolicy,
  decidePolicy,
  type Mode,
  type PolicyDecision,
} from '@overlay-companion/protocol';

export interface ModeSnapshot {
  mode: Mode;
  /** Only kept for mode custom. */
  metadata: Record<string, unknown> | undefined;
}

export type ModeChangeSource = 'start' | 'person' | 'ai' | 'stop';
export type ModeListener = (snapshot: ModeSnapshot, source: ModeChangeSource) => void;

export class ModeState {
  private current: ModeSnapshot;
  private readonly listeners = new Set<ModeListener>();

  constructor(initial: Mode = 'assist', metadata?: Record<string, unknown>) {
    this.current = { mode: initial, metadata: initial === 'custom' ? metadata : undefined };
  }

  get snapshot(): ModeSnapshot {
    return this.current;
  }

  get mode(): Mode {
    return this.current.mode;
  }

  set(mode: Mode, metadata: Record<string, unknown> | undefined, source: ModeChangeSource): void {
    this.current = { mode, metadata: mode === 'custom' ? (metadata ?? {}) : undefined };
    for (const listener of this.listeners) listener(this.current, source);
  }

  onChange(listener: ModeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The mode's decision for `tool`; see decidePolicy in the protocol package. */
  decide(tool: string): PolicyDecision {
    return decidePolicy(this.current.mode, this.current.metadata, tool);
  }

  /** True when the mode is custom and its policy cannot be read (so every input is denied). */
  get customPolicyMalformed(): boolean {
    return (
      this.current.mode === 'custom' && !CustomPolicy.safeParse(this.current.metadata ?? {}).success
    );
  }
}
