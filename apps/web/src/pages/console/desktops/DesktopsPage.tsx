// /desktops: the desktops this person may see, adding one (admins; members when an admin allows
// it on Settings), and — for a desktop's owner and admins — changing it, removing it and saying
// who else may use it. Passwords go to the bridge and never come back. The bridge's refusals are
// shown as it words them.
import {
  API,
  DesktopList,
  DesktopView,
  PeopleList,
  type GrantLevel,
  type Me,
} from '@overlay-companion/protocol';
import { useCallback, useRef, useState } from 'react';
import { AnyAnswer, api } from '../../../net/api.js';
import { ErrorMessage, StatusMessage } from '../../common/Alert.js';
import { errorText } from '../../common/errors.js';
import { useLoad } from '../../common/useLoad.js';
import { DesktopForm } from './DesktopForm.js';
import { DesktopTable } from './DesktopTable.js';
import { GrantsEditor } from './GrantsEditor.js';
import { createRequest, updateRequest, type DesktopFields } from './desktopForm.js';

const loadDesktops = () => api.get(API.desktops, DesktopList);

function desktopPath(desktop: { id: string }): string {
  return `${API.desktops}/${encodeURIComponent(desktop.id)}`;
}

export function DesktopsPage({ me }: { me: Me }) {
  const isAdmin = me.person.role === 'admin';
  const desktops = useLoad(loadDesktops);
  const loadPeople = useCallback(
    () => (isAdmin ? api.get(API.people, PeopleList) : Promise.resolve(undefined)),
    [isAdmin],
  );
  const people = useLoad(loadPeople);
  const [editingId, setEditingId] = useState<string | null>(null);
  const [busyId, setBusyId] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const listHeading = useRef<HTMLHeadingElement>(null);
  const everyone = people.data?.people;

  const act = (
    desktop: DesktopView,
    request: Promise<unknown>,
    done: string,
    afterDone?: () => void,
  ) => {
    setBusyId(desktop.id);
    setError(null);
    setNotice(null);
    request.then(
      () => {
        setBusyId(null);
        setNotice(done);
        desktops.reload();
        afterDone?.();
      },
      (thrown: unknown) => {
        setBusyId(null);
        setError(`${desktop.name}: ${errorText(thrown)}`);
        desktops.reload();
      },
    );
  };

  const add = async (fields: DesktopFields, ownerId: string) => {
    const built = createRequest(fields, ownerId === me.person.id ? undefined : ownerId);
    if (!built.ok) return built.fields;
    const made = await api.post(API.desktops, built.body, DesktopView);
    setError(null);
    setNotice(`Added ${made.name}.`);
    desktops.reload();
    return null;
  };

  const save = async (desktop: DesktopView, fields: DesktopFields) => {
    const built = updateRequest(fields, desktop);
    if (!built.ok) return built.fields;
    await api.patch(desktopPath(desktop), built.body, AnyAnswer);
    setError(null);
    setNotice(`Saved ${fields.name.trim()}.`);
    setEditingId(null);
    desktops.reload();
    return null;
  };

  const grant = (desktop: DesktopView, personId: string, name: string, level: GrantLevel) =>
    act(
      desktop,
      api.put(
        `${desktopPath(desktop)}/grants/${encodeURIComponent(personId)}`,
        { level },
        AnyAnswer,
      ),
      `${name} may now ${level === 'control' ? 'control' : 'view'} ${desktop.name}.`,
    );
  const revoke = (desktop: DesktopView, personId: string, name: string) =>
    act(
      desktop,
      api.del(
        `${desktopPath(desktop)}/grants/${encodeURIComponent(personId)}`,
        undefined,
        AnyAnswer,
      ),
      `${name} no longer has access to ${desktop.name}.`,
    );
  const remove = (desktop: DesktopView) =>
    act(
      desktop,
      api.del(desktopPath(desktop), undefined, AnyAnswer),
      `Removed ${desktop.name}.`,
      () => {
        setEditingId(null);
        listHeading.current?.focus();
      },
    );

  return (
    <>
      <section aria-labelledby="desktops-title" className="section">
        <h2 id="desktops-title" ref={listHeading} tabIndex={-1}>
          Your desktops
        </h2>
        <ErrorMessage message={error} />
        <StatusMessage message={notice} />
        {desktops.error !== null ? <ErrorMessage message={desktops.error} /> : null}
        {desktops.data === undefined ? (
          desktops.error === null ? (
            <p role="status">Loading desktops…</p>
          ) : null
        ) : desktops.data.desktops.length === 0 ? (
          <p>
            No desktop is yours to use yet.
            {desktops.data.may_add ? ' Add one below.' : ' Ask an admin to give you access to one.'}
          </p>
        ) : (
          <DesktopTable
            desktops={desktops.data.desktops}
            busyId={busyId}
            editingId={editingId}
            onEdit={(desktop) => setEditingId(desktop?.id ?? null)}
            onRemove={remove}
            editor={(desktop) => (
              <>
                <DesktopForm
                  desktop={desktop}
                  myId={me.person.id}
                  onSubmit={(fields) => save(desktop, fields)}
                  onCancel={() => setEditingId(null)}
                />
                <GrantsEditor
                  desktop={desktop}
                  people={everyone}
                  busy={busyId === desktop.id}
                  onGrant={(personId, name, level) => grant(desktop, personId, name, level)}
                  onRevoke={(personId, name) => revoke(desktop, personId, name)}
                />
              </>
            )}
          />
        )}
      </section>
      {desktops.data?.may_add === true ? (
        <section aria-labelledby="add-desktop-title" className="section">
          <h2 id="add-desktop-title">Add a desktop</h2>
          <DesktopForm people={everyone} myId={me.person.id} onSubmit={add} />
        </section>
      ) : null}
    </>
  );
}
