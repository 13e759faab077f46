// The indicator that must be on whenever the AI may act on the desktop without asking — by the
// mode (autopilot, composing, a custom allow) or by a standing permission — and that turns
// stronger while an AI input action runs. Each standing permission (kept by the bridge, the same
// in every window) is listed with its time left and, for the person in charge, a one-click
// Revoke.
import { useShallow } from 'zustand/react/shallow';
import { useStore } from 'zustand';
import { controlStore } from '../store/control.js';
import { standingStore } from '../store/standing.js';
import { desktopStateStore } from '../store/desktopState.js';
import { useNow } from '../ui/useNow.js';
import { activityStore } from './aiActivity.js';
import { toolsAllowedUnasked } from './unasked.js';
import { BarWords } from '../ui/BarWords.js';
import './indicator.css';

function timeLeft(expiresAt: number | null, now: number): string {
  if (expiresAt === null) return 'for this AI session';
  const seconds = Math.max(0, Math.ceil((expiresAt - now) / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')} left`;
}

export function UnaskedIndicator({ onRevoke }: { onRevoke: (id: string) => void }) {
  const { mode, metadata, permissions } = useStore(
    controlStore,
    useShallow(({ mode, metadata, permissions }) => ({ mode, metadata, permissions })),
  );
  const standing = useStore(standingStore, (s) => s.permissions);
  // Only the person in charge may end one (the bridge refuses anyone else); a watcher sees them.
  const mayRevoke = useStore(desktopStateStore, (s) => s.people?.you.in_charge ?? true);
  const acting = useStore(activityStore, (s) => s.acting > 0);
  // The clock runs only for a countdown on screen: one that lasts the AI session shows no time.
  const now = useNow(
    standing.some((s) => s.expiresAt !== null),
    1000,
  );
  const tools = toolsAllowedUnasked({ mode, metadata, permissions, standing, now });
  if (tools.length === 0 && !acting) return null;
  return (
    <span
      className={`unasked${acting ? ' unasked--acting' : ''}`}
      data-testid="unasked-indicator"
      data-acting={acting ? 'true' : 'false'}
    >
      <span className="unasked__label" title={`Without asking: ${tools.join(', ')}`}>
        {/* A phone's or a laptop's bar has room for two words; screen readers get the long ones. */}
        <BarWords
          long={acting ? 'AI is acting' : 'AI may act without asking'}
          short={acting ? 'AI acting' : 'No asking'}
          narrow="laptop"
        />
      </span>
      {standing.map((s) => (
        <span key={s.id} className="unasked__standing" data-testid="standing-permission">
          <span title={`Standing permission ${s.number}, given by ${s.grantedBy}`}>
            {s.client.name}: {s.tool},
          </span>{' '}
          <span className="unasked__time">{timeLeft(s.expiresAt, now)}</span>
          {mayRevoke && (
            <button
              type="button"
              onClick={() => onRevoke(s.id)}
              aria-label={`Revoke ${s.tool} for ${s.client.name}`}
            >
              Revoke
            </button>
          )}
        </span>
      ))}
    </span>
  );
}
