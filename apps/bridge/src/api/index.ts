// Mounts every /api route group on the bridge's app.
import type { Hono } from 'hono';
import type { BridgeEnv } from '../http/env.js';
import { mountAuditRoutes } from './audit.js';
import { mountAuthRoutes } from './auth.js';
import type { ApiDeps } from './deps.js';
import { mountDesktopRoutes } from './desktops.js';
import { mountLayoutRoutes } from './layout.js';
import { mountMeRoutes } from './me.js';
import { mountOidcRoutes } from './oidcRoutes.js';
import { mountPeopleRoutes } from './people.js';
import { mountSettingsRoutes } from './settings.js';
import { mountTicketRoutes } from './tickets.js';
import { mountTokenRoutes } from './tokens.js';

export type { ApiDeps } from './deps.js';

export function mountApi(app: Hono<BridgeEnv>, deps: ApiDeps): void {
  mountAuthRoutes(app, deps);
  mountOidcRoutes(app, deps);
  mountMeRoutes(app, deps);
  mountTokenRoutes(app, deps);
  mountPeopleRoutes(app, deps);
  mountAuditRoutes(app, deps);
  mountSettingsRoutes(app, deps);
  mountLayoutRoutes(app, deps);
  mountTicketRoutes(app, deps);
  mountDesktopRoutes(app, deps);
}
