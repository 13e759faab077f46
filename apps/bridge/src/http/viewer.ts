// Serves the built viewer (apps/web/dist) with a single-page-app fallback: any GET that is not a
// file and not a reserved route answers index.html so client-side routes survive a reload.
// When the build is missing, `/` explains how to make it instead of answering a bare 404.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { serveStatic } from '@hono/node-server/serve-static';
import type { Context, Env, Hono, MiddlewareHandler, Next } from 'hono';

/** Paths owned by the API, MCP and WebSocket routes: never answered with index.html. */
export const RESERVED_PREFIXES = ['/api', '/mcp', '/ws', '/tunnel', '/healthz'] as const;

function isReserved(path: string): boolean {
  return RESERVED_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

export function missingBuildPage(webRoot: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Overlay Companion: viewer not built</title></head>
<body style="font-family: sans-serif; max-width: 40em; margin: 3em auto; line-height: 1.5">
<h1>The viewer has not been built yet</h1>
<p>The bridge is running, but it found no viewer at <code>${escapeHtml(webRoot)}</code>.</p>
<p>Run <code>npm run build</code> in the repository root (or start with <code>npm start</code>,
which builds when needed), then reload this page.</p>
</body></html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** Mounts the viewer at `/` on `app`. Must be the last GET routes added. */
export function mountViewer(app: Hono, webRoot: string): void {
  const indexFile = join(webRoot, 'index.html');
  // serveStatic warns on stderr when its root is missing, so it is created only once the build
  // exists; checking per request lets a build made after start be picked up without a restart.
  let files: MiddlewareHandler | undefined;

  app.use(async function viewerFiles(c: Context<Env, string>, next: Next) {
    if (isReserved(c.req.path) || !existsSync(indexFile)) return next();
    files ??= serveStatic({ root: webRoot });
    return files(c, next);
  });

  app.get('*', async function viewerFallback(c) {
    if (isReserved(c.req.path)) return c.json({ error: `No route ${c.req.path}.` }, 404);
    let html: string;
    try {
      html = await readFile(indexFile, 'utf8');
    } catch {
      return c.html(missingBuildPage(webRoot), 503);
    }
    c.header('Cache-Control', 'no-cache');
    return c.html(html);
  });
}
