// The bridge's HTTP application, built without listening so tests can call `app.request()`.
// Order matters and is fixed here: the Host/Origin guard, the app-wide guards (security headers,
// body limits, JSON-only), the operator's /healthz, /readyz and /metrics (health/health.ts, public
// and uninformative or token/loopback-guarded), who is signed in (and the CSRF
// check), then the feature routes (`mounts`: /mcp and /api), then the pages and static files,
// which are mounted last so they never shadow an API route. A thrown error ends as a 503 with
// Retry-After when the store is unavailable (http/storeOutage.ts), else as a 500.
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { Logger } from 'pino';
import type { Access } from './auth/access.js';
import { apiError } from './http/apiError.js';
import type { BridgeEnv } from './http/env.js';
import { installGuards } from './perimeter/guards.js';
import { mountHealth, type HealthDeps } from './health/health.js';
import { mountPages } from './http/pages.js';
import { installSignIn } from './perimeter/signedIn.js';
import { storeOutageResponse } from './http/storeOutage.js';
import { storeOutage } from './store/errors.js';

export interface AppDeps {
  /** Folder of the built web app (apps/web/dist). */
  webRoot: string;
  access: Access;
  logger?: Logger;
  /** True when people reach the bridge over https (OC_PUBLIC_URL): HSTS on. */
  https?: boolean;
  /** Route groups mounted before the pages, in order. */
  mounts?: ReadonlyArray<(app: Hono<BridgeEnv>) => void>;
  /** Middleware that runs before everything (the server's Host/Origin guard). */
  guard?: (app: Hono<BridgeEnv>) => void;
  /** What /readyz and /metrics report (startBridge fills it in). */
  health?: HealthDeps;
}

export function createApp(deps: AppDeps): Hono<BridgeEnv> {
  const app = new Hono<BridgeEnv>();
  deps.guard?.(app);
  installGuards(app, { https: deps.https ?? false });
  // Deliberately uninformative: no version, hosts, ports or displays.
  mountHealth(app, deps.health);
  installSignIn(app, deps.access);
  // A plain GET on the tunnel means the caller is not speaking WebSocket (or a proxy stripped
  // the Upgrade header); say so (to signed-in people) instead of serving a page.
  app.get('/tunnel', (c) =>
    c.get('signedIn') === undefined
      ? apiError(c, 401, 'Sign in first.')
      : c.json(
          {
            error:
              'The Guacamole tunnel is a WebSocket endpoint: connect with subprotocol "guacamole" and a ticket from POST /api/tickets. If a proxy sits in front of the bridge, make it forward the Upgrade and Connection headers.',
          },
          426,
        ),
  );
  for (const mount of deps.mounts ?? []) mount(app);
  mountPages(app, deps.webRoot);
  app.onError((err, c) => {
    if (err instanceof HTTPException) return err.getResponse();
    // An outage is not a bug: one line at warn, and words with a time to retry for the caller.
    const outage = storeOutage(err);
    if (outage !== undefined) {
      deps.logger?.warn({ path: c.req.path, outage }, 'request failed: the store is unavailable');
      return storeOutageResponse(c, outage);
    }
    deps.logger?.error({ err: err.message, path: c.req.path }, 'request failed');
    return c.json({ error: 'Internal error in the bridge; see its log for details.' }, 500);
  });
  return app;
}
