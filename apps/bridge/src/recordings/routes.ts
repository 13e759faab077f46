// Session recordings over HTTP, for a signed-in browser (the /api perimeter: cookie session,
// CSRF on changes, Host/Origin). This mounts them; each module owns its part:
// routeAccess.ts — who may see and delete which recording (else 404), and the audit of it;
// readRoutes.ts — the list, each one's Guacamole stream and event track, and deletion;
// exportRoutes.ts — JSON lines and WebM video exports; frameRoute.ts — the picture at a moment;
// storageRoute.ts — the admins' storage view; settingsRoutes.ts — the bridge's recording settings
// (admins), each desktop's setting and the person in charge's choice. The files are read where
// the recording's row says they are (the data dir, or the S3 store: storage/).
import type { Hono } from 'hono';
import type { BridgeEnv } from '../http/env.js';
import { mountExportRoutes } from './exportRoutes.js';
import { mountFrameRoute } from './frameRoute.js';
import { mountReadRoutes } from './readRoutes.js';
import { routeAccess, type RecordingRoutesDeps } from './routeAccess.js';
import { mountSettingsRoutes } from './settingsRoutes.js';
import { mountStorageRoute } from './storageRoute.js';

export type { RecordingRoutesDeps } from './routeAccess.js';

export function mountRecordingRoutes(app: Hono<BridgeEnv>, deps: RecordingRoutesDeps): void {
  const shared = routeAccess(deps);
  // In the order they were mounted before the split (Hono matches routes in order).
  mountReadRoutes(app, deps, shared);
  mountExportRoutes(app, deps, shared);
  mountFrameRoute(app, deps, shared);
  mountStorageRoute(app, deps);
  mountSettingsRoutes(app, deps, shared);
}
