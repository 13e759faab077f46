// The person's controls in the chrome bar: the AI link state, the mode selector (shows the mode
// in force; choosing one sends mode_set, the person needs no approval) and the red Stop button,
// always visible and always enabled: it denies everything pending and stops input at once,
// even when the link to the bridge is down.
import { MODES, type Mode } from '@overlay-companion/protocol';
import { useShallow } from 'zustand/react/shallow';
import { useStore } from 'zustand';
import { controlStore } from '../store/control.js';

const MODE_LABELS: Record<Mode, string> = {
  passive: 'Passive — overlays only',
  assist: 'Assist — ask every time',
  composing: 'Composing — typing free',
  autopilot: 'Autopilot — no asking',
  custom: 'Custom',
};

const LINK_LABELS = {
  idle: 'AI link off',
  connecting: 'AI link connecting…',
  open: 'AI link up',
  reconnecting: 'AI link lost, retrying',
  incompatible: 'AI link refused',
} as const;

export interface ControlControlsProps {
  onStop: () => void;
  onChooseMode: (mode: Mode) => void;
}

export function ControlControls({ onStop, onChooseMode }: ControlControlsProps) {
  const { link, linkDetail, role, mode } = useStore(
    controlStore,
    useShallow(({ link, linkDetail, role, mode }) => ({ link, linkDetail, role, mode })),
  );
  const ready = link === 'open' && role !== null;
  return (
    <span className="control-controls">
      <span
        className={`control-controls__link control-controls__link--${link}`}
        data-testid="ai-link"
        title={linkDetail ?? (role === 'mirror' ? 'This window mirrors the control window.' : '')}
      >
        {LINK_LABELS[link]}
        {ready && role === 'mirror' ? ' · mirror' : ''}
      </span>
      <label className="control-controls__mode">
        <span>Mode</span>
        <select
          data-testid="mode-select"
          value={mode ?? ''}
          disabled={!ready}
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
