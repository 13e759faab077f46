// The Hono environment of the bridge's app: what middleware leaves on the context for routes.
import type { SignedIn } from '../auth/webSessions.js';

export interface BridgeEnv {
  Variables: {
    /** The signed-in person behind the request's cookie, if any (perimeter/signedIn.ts). */
    signedIn: SignedIn | undefined;
  };
}
