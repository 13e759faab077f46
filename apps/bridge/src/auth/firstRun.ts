// First run: a bridge with no admin is useless and must not be open, so at start either the
// scripted admin (OC_ADMIN_USER / OC_ADMIN_PASSWORD) is created, or a one-time setup code is
// minted for the link `serve` prints. An existing admin is never touched (a restart with the
// variables still set changes nothing).
import type { Store } from '../store/types.js';
import { StoreConflictError } from '../store/types.js';
import { StartupError } from '../errors.js';
import { firstActiveAdmin } from './apiTokens.js';
import { hashPassword } from './passwords.js';
import type { SetupCode } from './setupCode.js';
import type { AuditLog } from '../audit/auditLog.js';

export type FirstRun =
  | { kind: 'admin-exists'; username: string }
  | { kind: 'admin-created'; username: string }
  | { kind: 'setup'; code: string };

export async function prepareFirstRun(
  store: Store,
  setup: SetupCode,
  audit: AuditLog,
  admin: { username: string; password: string } | undefined,
): Promise<FirstRun> {
  const existing = await firstActiveAdmin(store);
  if (existing !== undefined) return { kind: 'admin-exists', username: existing.username };
  if (admin === undefined) return { kind: 'setup', code: setup.issue() };
  try {
    const person = await store.people.add({
      username: admin.username,
      displayName: admin.username,
      passwordHash: await hashPassword(admin.password),
      role: 'admin',
    });
    audit.record({
      kind: 'person_added',
      actor: 'system',
      personId: person.id,
      personName: person.displayName,
      outcome: 'ok',
      detail: 'admin created from OC_ADMIN_USER/OC_ADMIN_PASSWORD',
    });
    return { kind: 'admin-created', username: person.username };
  } catch (err) {
    if (err instanceof StoreConflictError) {
      throw new StartupError(
        `OC_ADMIN_USER "${admin.username}" exists but is not an active admin. Sign in as an admin and fix it on the People page, or choose another OC_ADMIN_USER.`,
      );
    }
    throw err;
  }
}
