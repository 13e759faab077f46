// The operator's routes, public and free of hosts, ports, versions and secrets: /healthz (the
// process answers: "ok"), /readyz (it can serve: "ready", "ready (degraded: <note>)" when part of
// its gateway pool is out, or 503 "not ready: <reason>", see
// readiness.ts) and /metrics (Prometheus text, behind OC_METRICS_TOKEN, or loopback when opted in, see
// perimeter/metricsAccess.ts). Mounted before sign-in, so no cookie is read for them.
import type { Hono } from 'hono';
import type { BridgeMetrics } from '../metrics/bridgeMetrics.js';
import { metricsRefusal } from '../perimeter/metricsAccess.js';
import type { BridgeEnv } from '../http/env.js';
import type { Readiness } from './readiness.js';

export const HEALTH_PATHS = { alive: '/healthz', ready: '/readyz', metrics: '/metrics' } as const;

export interface HealthDeps {
  readiness?: Readiness | undefined;
  metrics?: BridgeMetrics | undefined;
  /** OC_METRICS_TOKEN; without it /metrics is closed unless metricsOpenLoopback. */
  metricsToken?: string | undefined;
  /** OC_METRICS_OPEN_LOOPBACK: without a token, /metrics answers direct loopback callers. */
  metricsOpenLoopback?: boolean | undefined;
}

export function mountHealth(app: Hono<BridgeEnv>, deps: HealthDeps = {}): void {
  app.get(HEALTH_PATHS.alive, (c) => {
    c.header('Cache-Control', 'no-store');
    return c.text('ok');
  });
  app.get(HEALTH_PATHS.ready, async (c) => {
    c.header('Cache-Control', 'no-store');
    if (deps.readiness === undefined) return c.text('not ready: no readiness checks', 503);
    const result = await deps.readiness.check();
    if (!result.ready) return c.text(`not ready: ${result.reason}`, 503);
    return c.text(result.note === undefined ? 'ready' : `ready (degraded: ${result.note})`);
  });
  app.get(HEALTH_PATHS.metrics, async (c) => {
    c.header('Cache-Control', 'no-store');
    if (deps.metrics === undefined) return c.text('This bridge keeps no metrics.', 404);
    const refusal = metricsRefusal(c, deps.metricsToken, deps.metricsOpenLoopback);
    if (refusal !== undefined) {
      if (refusal.status === 401) c.header('WWW-Authenticate', 'Bearer realm="metrics"');
      return c.text(refusal.message, refusal.status);
    }
    const { body, contentType } = await deps.metrics.scrape();
    c.header('Content-Type', contentType);
    return c.body(body);
  });
}
