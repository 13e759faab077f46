// The person's controls in the chrome bar: which AI clients are connected (or, when the link to
// the bridge is down, that), the mode selector (shows the mode
// in force; choosing one sends mode_set, the person needs no approval) and the red Stop button,
// always visible and always enabled: it denies everything pending and stops input at once,
// even when the link to the bridge is down.
import { MODES, type Mode } from '@overlay-companion/protocol';
import { useShallow } from 'zustand/react/shallow';
import { useStore } from 'zustand';
import { controlStore } from '../store/control.js';
import { useNow } from '../ui/useNow.js';
import { aiClientsLabel, aiClientsTitle } from '../activity/aiClientsText.js';
import { BarWords } from '../ui/BarWords.js';

const MODE_LABELS: Record<Mode, string> = {
  passive: 'Passive',
  assist: 'Assist',
  composing: 'Composing',
  autopilot: 'Autopilot',
  custom: 'Custom',
};

/** What each mode lets the AI do, shown as the selector's tooltip. */
const MODE_HINTS: Record<Mode, string> = {
  passive: 'Passive: the AI can only draw overlays and take screenshots.',
  assist: 'Assist: the AI asks you before every click, key press or clipboard use.',
  composing: 'Composing: typing and the clipboard run freely; pointer actions ask you.',
  autopilot: 'Autopilot: the AI clicks and types without asking. Stop is always there.',
  custom: 'Custom: a per-tool list decides; anything unlisted asks you.',
};

/** The viewer⇄bridge link when it is not up (when it is, the AI clients are shown instead). */
const LINK_LABELS = {
  idle: 'Bridge link off',
  connecting: 'Connecting to the bridge…',
  reconnecting: 'Bridge link lost, retrying',
  incompatible: 'Bridge refused this viewer',
} as const;

export interface ControlControlsProps {
  onStop: () => void;
  onChooseMode: (mode: Mode) => void;
}

export function ControlControls({ onStop, onChooseMode }: ControlControlsProps) {
  const { link, linkDetail, role, mode, aiClients } = useStore(
    controlStore,
    useShallow(({ link, linkDetail, role, mode, aiClients }) => ({
      link,
      linkDetail,
      role,
      mode,
      aiClients,
    })),
  );
  const ready = link === 'open' && role !== null;
  const now = useNow(ready && aiClients.length > 0, 5_000);
  return (
    <span className="control-controls">
      <span
        className={`control-controls__link control-controls__link--${link}`}
        data-testid="ai-link"
        data-link={link}
        title={
          link === 'open'
            ? aiClientsTitle(aiClients, now)
            : (linkDetail ?? (role === 'mirror' ? 'This window mirrors the control window.' : ''))
        }
      >
        {link === 'open' ? (
          <span data-testid="ai-clients">{aiClientsLabel(aiClients, now)}</span>
        ) : (
          LINK_LABELS[link]
        )}
        {ready && role === 'mirror' ? ' · mirror' : ''}
      </span>
      <label className="control-controls__mode">
        <BarWords long="Mode" narrow="laptop" />
        <select
          data-testid="mode-select"
          value={mode ?? ''}
          disabled={!ready}
          title={
            mode === null ? 'The mode is not known until the AI link is up.' : MODE_HINTS[mode]
          }
          onChange={(event) => onChooseMode(event.target.value as Mode)}
        >
          {mode === null && <option value="">unknown</option>}
          {MODES.map((m) => (
            <option key={m} value={m}>
              {MODE_LABELS[m]}
            </option>
          ))}
        </select>
      </label>
      <button
        type="button"
        className="control-controls__stop"
        onClick={onStop}
        title="Stop: deny every pending request, stop any typing or clicking now, and switch to passive."
      >
        Stop
      </button>
    </span>
  );
}
