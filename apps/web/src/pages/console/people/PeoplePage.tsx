// /people, for admins: everyone on this bridge, adding people, and changing, disabling,
// resetting or removing them. The bridge's refusals (e.g. "cannot remove the last admin") are
// shown as it words them. Removing someone takes their row (and the focused button) away, so
// the focus moves to the list's heading.
import { API, PeopleList, type Me, type PersonView } from '@overlay-companion/protocol';
import { useRef, useState } from 'react';
import { AnyAnswer, api } from '../../../net/api.js';
import { ErrorMessage, StatusMessage } from '../../common/Alert.js';
import { errorText } from '../../common/errors.js';
import { useLoad } from '../../common/useLoad.js';
import { AddPersonForm } from './AddPersonForm.js';
import { PeopleTable, type PersonChange } from './PeopleTable.js';

const loadPeople = () => api.get(API.people, PeopleList);

function personPath(person: PersonView): string {
  return `${API.people}/${encodeURIComponent(person.id)}`;
}

export function PeoplePage({ me }: { me: Me }) {
  const people = useLoad(loadPeople);
  const [busyId, setBusyId] = useState<string | null>(null);
  const [resettingId, setResettingId] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const listHeading = useRef<HTMLHeadingElement>(null);

  const act = (
    person: PersonView,
    request: Promise<unknown>,
    done: string,
    afterDone?: () => void,
  ) => {
    setBusyId(person.id);
    setError(null);
    setNotice(null);
    request.then(
      () => {
        setBusyId(null);
        setResettingId(null);
        setNotice(done);
        people.reload();
        afterDone?.();
      },
      (thrown: unknown) => {
        setBusyId(null);
        setError(`${person.username}: ${errorText(thrown)}`);
        // The table shows what the bridge has, not what was attempted.
        people.reload();
      },
    );
  };

  const change = (person: PersonView, body: PersonChange, done: string) =>
    act(person, api.patch(personPath(person), body, AnyAnswer), done);
  const remove = (person: PersonView) =>
    act(
      person,
      api.del(personPath(person), undefined, AnyAnswer),
      `Removed ${person.username}.`,
      () => listHeading.current?.focus(),
    );

  return (
    <>
      <section aria-labelledby="add-person-title" className="section">
        <h2 id="add-person-title">Add a person</h2>
        <AddPersonForm
          onAdded={(username) => {
            setError(null);
            setNotice(`Added ${username}.`);
            people.reload();
          }}
        />
      </section>
      <section aria-labelledby="people-title" className="section">
        <h2 id="people-title" ref={listHeading} tabIndex={-1}>
          Everyone on this bridge
        </h2>
        <ErrorMessage message={error} />
        <StatusMessage message={notice} />
        {people.error !== null ? <ErrorMessage message={people.error} /> : null}
        {people.data === undefined ? (
          people.error === null ? (
            <p role="status">Loading people…</p>
          ) : null
        ) : (
          <PeopleTable
            people={people.data.people}
            myId={me.person.id}
            busyId={busyId}
            resettingId={resettingId}
            onChange={change}
            onRemove={remove}
            onReset={(person) => setResettingId(person?.id ?? null)}
          />
        )}
      </section>
    </>
  );
}
