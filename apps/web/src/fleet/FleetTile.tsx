// One desktop on the fleet page: its live picture, name (a link to its full viewer), who is in
// charge, its mode, its AI clients and what each last did, the approvals waiting, what is wrong,
// and its own Stop. The picture is painted at full rate only while the tile has the focus or the
// pointer (TileDisplay.tsx).
import { PAGES, type FleetDesktop } from '@overlay-companion/protocol';
import { useState } from 'react';
import { fileDropHandlers } from '../files/fileDrop.js';
import { TransferList } from '../files/TransferList.js';
import { TileDisplay } from './TileDisplay.js';
import { lastDid, MODE_WORDS, needsMe } from './fleetOrder.js';

export interface FleetTileProps {
  desktop: FleetDesktop;
  now: number;
  onStop: (desktopId: string) => void;
}

export function viewerHref(desktopId: string): string {
  return `${PAGES.viewer}?desktop=${encodeURIComponent(desktopId)}`;
}

export function FleetTile({ desktop, now, onStop }: FleetTileProps) {
  const [pointed, setPointed] = useState(false);
  const [focused, setFocused] = useState(false);
  const need = needsMe(desktop, now);
  const headingId = `fleet-tile-${desktop.id}`;
  return (
    <li
      className={`fleet-tile fleet-tile--${need}`}
      aria-labelledby={headingId}
      data-testid="fleet-tile"
      data-desktop-id={desktop.id}
      onPointerEnter={() => setPointed(true)}
      onPointerLeave={() => setPointed(false)}
      onFocus={() => setFocused(true)}
      onBlur={(event) => {
        if (!event.currentTarget.contains(event.relatedTarget)) setFocused(false);
      }}
      // Files dropped on the tile go to its desktop; their progress shows below.
      {...fileDropHandlers(desktop.id)}
    >
      {/* The picture opens the viewer for the mouse; the keyboard has the Open button below. */}
      <a
        className="fleet-tile__open"
        href={viewerHref(desktop.id)}
        aria-label={`Open ${desktop.name} in the viewer`}
        tabIndex={-1}
        data-testid="fleet-tile-picture-link"
      >
        <TileDisplay
          desktopId={desktop.id}
          desktopName={desktop.name}
          lively={pointed || focused}
        />
      </a>
      <div className="fleet-tile__body">
        <h3 className="fleet-tile__name" id={headingId}>
          {desktop.name}
        </h3>
        <dl className="fleet-tile__facts">
          <div>
            <dt>In charge</dt>
            <dd>
              {desktop.you_in_charge ? `${desktop.in_charge.name} (you)` : desktop.in_charge.name}
            </dd>
          </div>
          <div>
            <dt>Mode</dt>
            <dd data-testid="fleet-tile-mode">{MODE_WORDS[desktop.mode]}</dd>
          </div>
          <div>
            <dt>Approvals</dt>
            <dd data-testid="fleet-tile-approvals">
              {desktop.you_in_charge ? desktop.approvals.length : '—'}
            </dd>
          </div>
        </dl>
        {desktop.ai_clients.length === 0 ? (
          <p className="fleet-tile__muted">No AI client connected.</p>
        ) : (
          <ul className="fleet-tile__clients" aria-label={`AI clients on ${desktop.name}`}>
            {desktop.ai_clients.map((c) => (
              <li key={c.client.key}>
                <span className="fleet-tile__client">{c.client.name}</span>
                {` (token ${c.client.token})`}:{' '}
                <span data-testid="fleet-tile-last">{lastDid(c, now)}</span>
              </li>
            ))}
          </ul>
        )}
        {desktop.error !== null && (
          <p className="fleet-tile__error" role="note">
            {desktop.error}
          </p>
        )}
        {need === 'idle' && desktop.error === null && (
          <p className="fleet-tile__muted">An AI here has been idle for over a minute.</p>
        )}
        <TransferList desktopId={desktop.id} />
        <div className="fleet-tile__actions">
          <a className="button" href={viewerHref(desktop.id)} data-testid="fleet-tile-open">
            Open<span className="visually-hidden"> {desktop.name} in the viewer</span>
          </a>
          <button
            type="button"
            className="button button--danger"
            data-testid="fleet-tile-stop"
            onClick={() => onStop(desktop.id)}
          >
            Stop<span className="visually-hidden"> the AI on {desktop.name}</span>
          </button>
        </div>
      </div>
    </li>
  );
}
