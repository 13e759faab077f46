// The name a connection goes by in logs. A connection id is a bearer credential — whoever
// knows it can `select $<id>` and join the live desktop (where no join secret is configured) —
// and logs are read by more people and programs than the gateway's clients, so logs carry a
// short, non-reversible label instead: enough to follow one connection through a log, useless
// for joining it.
import { createHash } from 'node:crypto';

/** The first 8 hex digits of SHA-256 of the id. */
export function connectionLabel(connectionId: string): string {
  return createHash('sha256').update(connectionId, 'utf8').digest('hex').slice(0, 8);
}
