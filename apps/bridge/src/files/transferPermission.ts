// Who may move files to and from a desktop. The person in charge may; a person with only a view
// grant never may (they may not change the desktop in any way); anyone else with access (control
// grant, its owner or an admin while someone else is in charge) only when the person in charge
// has let others transfer — off until they do, and off again as soon as the charge moves (the
// choice was that person's, like their standing permissions). The choice is kept in the store
// (store/transferPolicy.ts) and read there at every check, so it outlives a restart and every
// bridge of a site sees the same one, with nothing to tell on the site bus.
import type { DesktopAccess } from '@overlay-companion/protocol';
import { accessOf } from '../desktops/desktopAccess.js';
import type {
  DesktopGrant,
  DesktopRecord,
  PersonRecord,
  TransferPolicyRepo,
} from '../store/types.js';

export type TransferVerdict =
  | { may: true; inCharge: boolean }
  | { may: false; inCharge: false; status: 403 | 404; why: string };

export class TransferPolicies {
  constructor(private readonly stored: TransferPolicyRepo) {}

  /** The person in charge of `desktop` now (its owner until the charge moved). */
  static inChargeOf(desktop: Pick<DesktopRecord, 'inChargeId' | 'ownerId'>): string {
    return desktop.inChargeId ?? desktop.ownerId;
  }

  /** Whether the person in charge of `desktop` lets others with access transfer. */
  othersMay(desktop: Pick<DesktopRecord, 'id'>): Promise<boolean> {
    return this.stored.othersMay(desktop.id);
  }

  /** The person in charge's choice; false when `by` is not (or no longer) in charge. */
  set(desktopId: string, by: string, othersMay: boolean): Promise<boolean> {
    return this.stored.set(desktopId, by, othersMay);
  }

  async verdict(
    person: Pick<PersonRecord, 'id' | 'role'>,
    desktop: DesktopRecord,
    grants: readonly DesktopGrant[],
    inChargeName: string,
  ): Promise<TransferVerdict> {
    const level: DesktopAccess | null = accessOf(person, desktop, grants);
    if (level === null)
      return {
        may: false,
        inCharge: false,
        status: 404,
        why: 'No such desktop of yours; reload the list.',
      };
    if (level === 'view')
      return {
        may: false,
        inCharge: false,
        status: 403,
        why: `You may only watch "${desktop.name}", so you cannot move files to or from it; ask its owner or an admin for a control grant.`,
      };
    if (TransferPolicies.inChargeOf(desktop) === person.id) return { may: true, inCharge: true };
    if (await this.othersMay(desktop)) return { may: true, inCharge: false };
    return {
      may: false,
      inCharge: false,
      status: 403,
      why: `${inChargeName} is in charge of "${desktop.name}" and has not let others move files there; ask them to turn on "Others may transfer files" in its Files panel, or to hand you the charge.`,
    };
  }
}
