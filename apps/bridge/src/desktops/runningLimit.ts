// How many local desktops of one owner may run at once (localDesktopPool.ts counts them): no limit
// for an admin's desktops, the admin's setting (member_running_local_desktops) for everyone
// else's — a removed owner's included, so an unknown owner never means no limit.
import { BridgeSettings, DEFAULT_MEMBER_RUNNING_LOCAL_DESKTOPS } from '@overlay-companion/protocol';
import type { Store } from '../store/types.js';

/** The settings key of BridgeSettings.member_running_local_desktops. */
export const MEMBER_RUNNING_LOCAL_DESKTOPS_KEY = 'member_running_local_desktops';

/**
 * How many local desktops owned by one member may run at once. A stored value the schema does
 * not accept (a hand-edited store) counts as the default, never as no limit.
 */
export async function memberRunningLocalDesktops(store: Pick<Store, 'settings'>): Promise<number> {
  const stored = BridgeSettings.shape.member_running_local_desktops.safeParse(
    await store.settings.get(MEMBER_RUNNING_LOCAL_DESKTOPS_KEY),
  );
  return stored.success ? stored.data : DEFAULT_MEMBER_RUNNING_LOCAL_DESKTOPS;
}

/** The running limit for desktops owned by `ownerId`; undefined: none (an admin's). */
export async function runningLimitFor(
  store: Pick<Store, 'settings' | 'people'>,
  ownerId: string,
): Promise<number | undefined> {
  const owner = await store.people.byId(ownerId);
  if (owner?.role === 'admin') return undefined;
  return memberRunningLocalDesktops(store);
}
