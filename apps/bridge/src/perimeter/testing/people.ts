// Security test support: more people on a test bridge, made the way an admin makes them (POST
// /api/people from the admin's signed-in browser) and signed in over HTTP, so every attack by
// "a second person" runs with a real account, a real cookie and real tickets.
import { API, type PersonView } from '@overlay-companion/protocol';
import { signIn, type BrowserSession } from '../../testing/browserSession.js';
import { registerSecret } from '../../testing/testLogs.js';

export interface OtherPerson {
  person: PersonView;
  password: string;
  /** Signed in over HTTP (a fresh sign-in session). */
  session: BrowserSession;
}

/** Adds a person as `admin` and signs them in. */
export async function addPerson(
  admin: BrowserSession,
  username: string,
  options: {
    role?: 'admin' | 'member';
    password?: string;
    displayName?: string;
    /** A grant on the admin's (the command line's) desktop, so they can open a window there. */
    grant?: 'view' | 'control';
  } = {},
): Promise<OtherPerson> {
  const password = options.password ?? `${username}-password-0123456789`;
  const answer = await admin.request(API.people, {
    body: {
      username,
      password,
      role: options.role ?? 'member',
      ...(options.displayName === undefined ? {} : { display_name: options.displayName }),
    },
  });
  if (answer.status !== 201)
    throw new Error(`adding ${username}: ${answer.status} ${await answer.text()}`);
  const person = (await answer.json()) as PersonView;
  if (options.grant !== undefined) {
    const list = (await (await admin.request(API.desktops)).json()) as {
      desktops: Array<{ id: string; name: string }>;
    };
    const desktop = list.desktops[0];
    if (desktop === undefined) throw new Error('the admin sees no desktop to grant');
    const granted = await admin.request(`${API.desktops}/${desktop.id}/grants/${person.id}`, {
      method: 'PUT',
      body: { level: options.grant },
    });
    if (granted.status >= 300) throw new Error(`granting ${username}: ${granted.status}`);
  }
  return { person, password, session: await signIn(admin.url, username, password) };
}

/** Creates an API token over HTTP as `session` and returns its id and secret. */
export async function createToken(
  session: BrowserSession,
  name: string,
): Promise<{ id: string; secret: string }> {
  const answer = await session.request(API.tokens, { body: { name } });
  if (answer.status !== 201)
    throw new Error(`creating token ${name}: ${answer.status} ${await answer.text()}`);
  const created = (await answer.json()) as { token: { id: string }; secret: string };
  registerSecret(created.secret);
  return { id: created.token.id, secret: created.secret };
}
