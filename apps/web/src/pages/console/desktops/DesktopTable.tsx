// The desktops a person may see: name, kind, where, owner, who is in charge and their own
// access; Open shows it in the viewer (a new tab, `/?desktop=<id>`); for those who manage one (its
// owner, admins) Edit opens its form and grants below the row, and Remove asks first. When an edit closes, the keyboard goes back to its Edit button.
import { PAGES, type DesktopView } from '@overlay-companion/protocol';
import { Fragment, useEffect, useRef, type ReactNode } from 'react';
import { ConfirmButton } from '../../common/ConfirmButton.js';
import { KIND_LABELS, whereOf } from './desktopForm.js';

export const ACCESS_LABELS: Readonly<Record<DesktopView['access'], string>> = {
  owner: 'Owner',
  admin: 'Admin',
  control: 'Control',
  view: 'View',
};

export interface DesktopTableProps {
  desktops: readonly DesktopView[];
  busyId: string | null;
  editingId: string | null;
  onEdit: (desktop: DesktopView | null) => void;
  onRemove: (desktop: DesktopView) => void;
  /** What opens below the row being edited. */
  editor: (desktop: DesktopView) => ReactNode;
}

function editButtonId(desktopId: string): string {
  return `edit-desktop-${desktopId}`;
}

export function DesktopTable({
  desktops,
  busyId,
  editingId,
  onEdit,
  onRemove,
  editor,
}: DesktopTableProps) {
  const lastEditing = useRef<string | null>(null);
  useEffect(() => {
    const closed = lastEditing.current;
    lastEditing.current = editingId;
    if (closed !== null && editingId === null)
      document.getElementById(editButtonId(closed))?.focus();
  }, [editingId]);
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-label="Desktops">
      <table className="table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Kind</th>
            <th scope="col">Where</th>
            <th scope="col">Owner</th>
            <th scope="col">In charge</th>
            <th scope="col">Your access</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {desktops.map((desktop) => {
            const busy = busyId === desktop.id;
            const manages = desktop.access === 'owner' || desktop.access === 'admin';
            return (
              <Fragment key={desktop.id}>
                <tr>
                  <th scope="row" className="table__name">
                    {desktop.name}
                  </th>
                  <td>{KIND_LABELS[desktop.kind]}</td>
                  <td>{whereOf(desktop)}</td>
                  <td>{desktop.owner.name}</td>
                  <td>{desktop.in_charge.name}</td>
                  <td>{ACCESS_LABELS[desktop.access]}</td>
                  <td>
                    <div className="actions">
                      <a
                        className="button"
                        href={`${PAGES.viewer}?desktop=${encodeURIComponent(desktop.id)}`}
                        target="_blank"
                        rel="noopener"
                        aria-label={`Open ${desktop.name} in the viewer`}
                      >
                        Open
                      </a>
                      {manages ? (
                        <>
                          <a
                            className="button"
                            href={`${PAGES.layout}?desktop=${encodeURIComponent(desktop.id)}`}
                            aria-label={`Monitors and privacy masks of ${desktop.name}`}
                          >
                            Layout
                          </a>
                          <button
                            id={editButtonId(desktop.id)}
                            type="button"
                            className="button"
                            aria-expanded={editingId === desktop.id}
                            aria-label={`Edit ${desktop.name}`}
                            onClick={() => onEdit(editingId === desktop.id ? null : desktop)}
                          >
                            Edit
                          </button>
                          <ConfirmButton
                            label="Remove"
                            accessibleLabel={`Remove ${desktop.name}`}
                            question={`Remove ${desktop.name}? Everyone working on it is disconnected, and tokens naming it no longer reach it.`}
                            confirmLabel="Remove desktop"
                            disabled={busy}
                            onConfirm={() => onRemove(desktop)}
                          />
                        </>
                      ) : null}
                    </div>
                  </td>
                </tr>
                {editingId === desktop.id ? (
                  <tr>
                    <td colSpan={7}>{editor(desktop)}</td>
                  </tr>
                ) : null}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
