// Whether a desktop is recorded. Each desktop has a setting (desktops.recording): `off`, `on`,
// or `person` (the person in charge chooses, stored per desktop); a desktop without one follows
// the bridge's default, which an admin sets (settings `recording_default`) and `serve --record` /
// OC_RECORD=1 fixes at `on`. The admin also decides whether a person may turn recording off
// (settings `recording_person_may_turn_off`, default yes): when not, a `person` desktop is
// recorded whatever its person chose, and only an admin may set a desktop to `off`.
import type { RecordingMode, Store } from '../store/types.js';
import {
  limitsFrom,
  retentionView,
  type RetentionLimits,
  type RetentionPatch,
  type RetentionView,
} from './retention.js';

export const RECORDING_DEFAULT_KEY = 'recording_default';
export const RECORDING_PERSON_MAY_TURN_OFF_KEY = 'recording_person_may_turn_off';
/** Retention: how long and how much is kept (retention.ts), as the settings API's JSON. */
export const RECORDING_RETENTION_KEY = 'recording_retention';
const choiceKey = (desktopId: string): string => `recording_choice:${desktopId}`;

const MODES: readonly string[] = ['off', 'on', 'person'] satisfies RecordingMode[];

export interface RecordingDecision {
  /** The desktop's own setting, or null (the bridge's default applies). */
  own: RecordingMode | null;
  /** The setting in force. */
  mode: RecordingMode;
  /** The person in charge's choice where the mode is `person` (null: not chosen, off). */
  choice: boolean | null;
  personMayTurnOff: boolean;
  on: boolean;
}

export interface BridgeRecordingSettings {
  default_mode: RecordingMode;
  /** True when serve --record / OC_RECORD=1 fixed the default at `on`. */
  default_fixed: boolean;
  person_may_turn_off: boolean;
  /** How long and how much is kept. */
  retention: RetentionView;
}

export class RecordingPolicy {
  /** The last decision per desktop, for desktop_state (built synchronously). */
  private readonly decisions = new Map<string, RecordingDecision>();

  constructor(
    private readonly store: Pick<Store, 'settings' | 'recordings'>,
    private readonly recordByDefault: boolean,
  ) {}

  async bridgeSettings(): Promise<BridgeRecordingSettings> {
    const stored = await this.store.settings.get(RECORDING_DEFAULT_KEY);
    const mayTurnOff = await this.store.settings.get(RECORDING_PERSON_MAY_TURN_OFF_KEY);
    return {
      default_mode: this.recordByDefault
        ? 'on'
        : typeof stored === 'string' && MODES.includes(stored)
          ? (stored as RecordingMode)
          : 'off',
      default_fixed: this.recordByDefault,
      person_may_turn_off: mayTurnOff !== false,
      retention: retentionView(await this.retention()),
    };
  }

  /** The retention limits in force (the defaults where an admin set none). */
  async retention(): Promise<RetentionLimits> {
    return limitsFrom(await this.store.settings.get(RECORDING_RETENTION_KEY));
  }

  async setBridgeSettings(patch: {
    default_mode?: RecordingMode | undefined;
    person_may_turn_off?: boolean | undefined;
    retention?: RetentionPatch | undefined;
  }): Promise<void> {
    if (patch.retention !== undefined) {
      const now = retentionView(await this.retention());
      const next: Record<string, unknown> = { ...now };
      for (const [key, value] of Object.entries(patch.retention))
        if (value !== undefined) next[key] = value;
      await this.store.settings.set(RECORDING_RETENTION_KEY, next);
    }
    if (patch.default_mode !== undefined)
      await this.store.settings.set(RECORDING_DEFAULT_KEY, patch.default_mode);
    if (patch.person_may_turn_off !== undefined)
      await this.store.settings.set(RECORDING_PERSON_MAY_TURN_OFF_KEY, patch.person_may_turn_off);
  }

  async setChoice(desktopId: string, on: boolean): Promise<void> {
    await this.store.settings.set(choiceKey(desktopId), on);
  }

  async decide(desktopId: string): Promise<RecordingDecision> {
    const [bridge, own, choiceValue] = await Promise.all([
      this.bridgeSettings(),
      this.store.recordings.desktopMode(desktopId),
      this.store.settings.get(choiceKey(desktopId)),
    ]);
    const mode = own ?? bridge.default_mode;
    const choice = typeof choiceValue === 'boolean' ? choiceValue : null;
    const on =
      mode === 'on' || (mode === 'person' && (choice === true || !bridge.person_may_turn_off));
    const decision: RecordingDecision = {
      own,
      mode,
      choice,
      personMayTurnOff: bridge.person_may_turn_off,
      on,
    };
    this.decisions.set(desktopId, decision);
    return decision;
  }

  /** The decision last made for the desktop (undefined: none yet). */
  cached(desktopId: string): RecordingDecision | undefined {
    return this.decisions.get(desktopId);
  }
}

/** Whether the person in charge may switch the recording (the setting is theirs to choose). */
export function mayPersonChange(decision: RecordingDecision | undefined): boolean {
  if (decision === undefined || decision.mode !== 'person') return false;
  return decision.personMayTurnOff || !decision.on;
}
