// Which person an OpenID Provider's verified answer signs in. In order: the person already linked
// to that issuer and subject; else the person whose username is the provider's *verified* email
// (linked from then on, so a later email change at the provider keeps working); else, only with
// OC_OIDC_AUTO_CREATE=1, a new member. An unverified email never matches or claims a username:
// anyone can type any address into some providers. Disabled people are refused, and are never
// linked.
import { DisplayName, Username } from '@overlay-companion/protocol';
import type { PersonRecord, Store } from '../store/types.js';
import { StoreConflictError } from '../store/types.js';

export interface OidcClaims {
  sub: string;
  email?: string;
  emailVerified: boolean;
  name?: string;
  preferredUsername?: string;
}

/** Already linked, linked by verified email just now, or created just now. */
export type MatchedHow = 'linked' | 'linked_now' | 'created';

export type PersonMatch =
  { ok: true; person: PersonRecord; how: MatchedHow } | { ok: false; message: string };

const DISABLED = 'This account is disabled here. Ask an admin of this bridge to enable it.';

/** Usernames to try for a new person, best first; each valid as a Username. */
function usernameCandidates(claims: OidcClaims): string[] {
  const subject = claims.sub.replace(/[^A-Za-z0-9._@-]/g, '-').slice(0, 59);
  const candidates = [
    claims.emailVerified ? claims.email : undefined,
    claims.preferredUsername,
    `oidc-${subject}`,
  ];
  return candidates.filter((c): c is string => c !== undefined && Username.safeParse(c).success);
}

function displayNameOf(claims: OidcClaims): string {
  for (const candidate of [claims.name, claims.preferredUsername, claims.email, claims.sub]) {
    const clean = candidate
      ?.replace(/\p{Cc}/gu, ' ')
      .trim()
      .slice(0, 100);
    if (clean !== undefined && DisplayName.safeParse(clean).success) return clean;
  }
  return 'OpenID Connect user';
}

async function createMember(
  store: Store,
  issuer: string,
  claims: OidcClaims,
): Promise<PersonRecord | undefined> {
  for (const username of usernameCandidates(claims)) {
    try {
      return await store.people.add({
        username,
        displayName: displayNameOf(claims),
        passwordHash: null,
        role: 'member',
        oidcIssuer: issuer,
        oidcSubject: claims.sub,
      });
    } catch (err) {
      // Taken by someone else: never theirs to claim, try the next name.
      if (!(err instanceof StoreConflictError)) throw err;
    }
  }
  return undefined;
}

export async function matchPerson(
  store: Store,
  issuer: string,
  claims: OidcClaims,
  autoCreate: boolean,
): Promise<PersonMatch> {
  const linked = await store.people.byOidc(issuer, claims.sub);
  if (linked !== undefined) {
    return linked.disabled
      ? { ok: false, message: DISABLED }
      : { ok: true, person: linked, how: 'linked' };
  }
  if (claims.emailVerified && claims.email !== undefined) {
    const byEmail = await store.people.byUsername(claims.email);
    if (byEmail !== undefined) {
      if (byEmail.disabled) return { ok: false, message: DISABLED };
      if (byEmail.oidcSubject !== null) {
        return {
          ok: false,
          message: `The account "${byEmail.username}" here is already linked to another identity-provider account. Sign in with that one, or ask an admin.`,
        };
      }
      const person = await store.people.update(byEmail.id, {
        oidcIssuer: issuer,
        oidcSubject: claims.sub,
      });
      if (person !== undefined) return { ok: true, person, how: 'linked_now' };
    }
  }
  if (autoCreate) {
    const person = await createMember(store, issuer, claims);
    if (person !== undefined) return { ok: true, person, how: 'created' };
  }
  if (claims.email !== undefined && !claims.emailVerified) {
    return {
      ok: false,
      message:
        'Your identity provider did not confirm your email address, so it cannot be matched to an account here. Verify your email address at the provider and sign in again, or ask an admin to add you.',
    };
  }
  return {
    ok: false,
    message:
      claims.email === undefined
        ? 'Your identity-provider account is not known here, and the provider did not share an email address to match it by. Ask an admin to add you.'
        : Username.safeParse(claims.email).success
          ? `Your identity-provider account is not known here. Ask an admin to add you with the username "${claims.email}".`
          : `Your identity-provider account is not known here, and your email address "${claims.email}" cannot be a username here (letters, digits and . _ @ - only). Ask an admin to turn on OC_OIDC_AUTO_CREATE=1.`,
  };
}
