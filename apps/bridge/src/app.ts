// The bridge's HTTP application, built without listening so tests can call `app.request()`.
// Feature areas mount themselves through `deps.mounts` (the MCP control plane adds `/mcp` and
// `/api/*` there); the viewer and its SPA fallback are mounted last so they never shadow them.
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { Logger } from 'pino';
import { mountViewer } from './http/viewer.js';

export interface HealthReport {
  status: 'ok';
  version: string;
  uptimeSeconds: number;
  /** Open Guacamole tunnels. */
  tunnels: number;
  /** Where the tunnel connects: protocol and guacd address, never credentials. */
  upstream: { protocol: string; guacd: string };
  /** The local desktop started by `serve --desktop local`, for X-side tools. */
  desktop?: { display: string };
}

export interface AppDeps {
  /** Folder of the built viewer (apps/web/dist). */
  webRoot: string;
  /** Snapshot for `/healthz`. */
  health: () => HealthReport;
  logger?: Logger;
  /** Route groups mounted before the viewer, in order. */
  mounts?: ReadonlyArray<(app: Hono) => void>;
  /** Middleware that runs before every route (the server's Host/Origin guard). */
  guard?: (app: Hono) => void;
}

export function createApp(deps: AppDeps): Hono {
  const app = new Hono();
  deps.guard?.(app);

  app.get('/healthz', (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json(deps.health());
  });

  // A plain GET on the tunnel means the caller is not speaking WebSocket (or a proxy stripped
  // the Upgrade header); say so instead of serving the viewer.
  app.get('/tunnel', (c) =>
    c.json(
      {
        error:
          'The Guacamole tunnel is a WebSocket endpoint: connect with subprotocol "guacamole". If a proxy sits in front of the bridge, make it forward the Upgrade and Connection headers.',
      },
      426,
    ),
  );

  for (const mount of deps.mounts ?? []) mount(app);

  mountViewer(app, deps.webRoot);

  app.onError((err, c) => {
    if (err instanceof HTTPException) return err.getResponse();
    deps.logger?.error({ err, path: c.req.path }, 'request failed');
    return c.json({ error: 'Internal error in the bridge; see its log for details.' }, 500);
  });

  return app;
}
