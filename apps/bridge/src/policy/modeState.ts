// One desktop's mode (each desktop's plane has its own, mcp/desktopPlanes.ts), changed by the
// person from a viewer, by Stop, or by an approved set_mode. Listeners (the viewer hub, the
// audit) see every change. A custom policy that does not parse is stored as given, so the viewer
// can show it, and the policy (decideCall) denies every input tool under it (fail closed).
import { CustomPolicy, type Mode } from '@overlay-companion/protocol';

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

  /** True when the mode is custom and its policy cannot be read (so every input is denied). */
  get customPolicyMalformed(): boolean {
    return (
      this.current.mode === 'custom' && !CustomPolicy.safeParse(this.current.metadata ?? {}).success
    );
  }
}
