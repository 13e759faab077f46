// The person's tokens (GET /api/tokens): name, the desktops it may use, when made, when they
// expire, last use, status and the hint that tells them apart; active ones can be revoked after
// a confirmation.
import type { TokenView } from '@overlay-companion/protocol';
import { ConfirmButton } from '../../common/ConfirmButton.js';
import { formatDateTime } from '../../common/time.js';
import { tokenStatus } from './clientConfig.js';

const STATUS_TEXT = { active: 'Active', expired: 'Expired', revoked: 'Revoked' } as const;

/** The hint with one trailing ellipsis (the bridge's hints already end with one). */
function hintText(hint: string): string {
  return hint.endsWith('…') ? hint : `${hint}…`;
}

export interface TokenTableProps {
  tokens: readonly TokenView[];
  now: number;
  onRevoke: (token: TokenView) => void;
  busyId: string | null;
  /** Desktop id → name, for the tokens limited to some desktops. */
  desktopNames?: ReadonlyMap<string, string>;
}

/** "All my desktops", or the names of the ones the token is limited to (ids it cannot name). */
export function tokenDesktopsText(
  token: Pick<TokenView, 'desktops'>,
  names: ReadonlyMap<string, string> = new Map(),
): string {
  if (token.desktops === null) return 'All my desktops';
  return token.desktops.map((id) => names.get(id) ?? `${id} (gone or not yours)`).join(', ');
}

export function TokenTable({ tokens, now, onRevoke, busyId, desktopNames }: TokenTableProps) {
  if (tokens.length === 0) {
    return <p>No tokens yet. Create one above for each AI client you use.</p>;
  }
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-label="Your tokens">
      <table className="table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Desktops</th>
            <th scope="col">Created</th>
            <th scope="col">Expires</th>
            <th scope="col">Last used</th>
            <th scope="col">Status</th>
            <th scope="col">Starts with</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {tokens.map((token) => {
            const status = tokenStatus(token, now);
            return (
              <tr key={token.id} className={status === 'active' ? undefined : 'table__row--muted'}>
                <th scope="row" className="table__name">
                  {token.name}
                </th>
                <td>{tokenDesktopsText(token, desktopNames)}</td>
                <td>{formatDateTime(token.created_at)}</td>
                <td>{token.expires_at === null ? 'Never' : formatDateTime(token.expires_at)}</td>
                <td>
                  {token.last_used_at === null ? 'Never' : formatDateTime(token.last_used_at)}
                </td>
                <td>
                  {STATUS_TEXT[status]}
                  {status === 'revoked' && token.revoked_at !== null
                    ? ` ${formatDateTime(token.revoked_at)}`
                    : ''}
                </td>
                <td>
                  <code>{hintText(token.hint)}</code>
                </td>
                <td>
                  <div className="actions">
                    {status === 'active' ? (
                      <ConfirmButton
                        label="Revoke"
                        accessibleLabel={`Revoke ${token.name}`}
                        question={`Revoke “${token.name}”? Clients using it stop working at once.`}
                        confirmLabel="Revoke token"
                        disabled={busyId === token.id}
                        onConfirm={() => onRevoke(token)}
                      />
                    ) : null}
                  </div>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
