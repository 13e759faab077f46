// Serves the built web app (apps/web/dist) behind sign-in. Public: the sign-in and setup pages
// (signin.html) and exactly the static files that page loads, computed from Vite's manifest;
// everything else — the viewer at /, the console pages, every other asset — needs a signed-in
// person (a page redirects to /signin?next=…, a file answers 404). Source maps are never served.
// When the build is missing, every page explains how to make it.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, normalize } from 'node:path';
import { serveStatic } from '@hono/node-server/serve-static';
import { PAGES, pageEntry } from '@overlay-companion/protocol';
import type { Context, Hono, MiddlewareHandler } from 'hono';
import type { BridgeEnv } from './env.js';
import { escapeHtml, htmlPage } from './html.js';

/** Paths owned by the API, MCP and WebSocket routes: never answered with a page. */
export const RESERVED_PREFIXES = [
  '/api',
  '/mcp',
  '/ws',
  '/tunnel',
  '/healthz',
  '/readyz',
  '/metrics',
] as const;

const PUBLIC_PAGES = new Set<string>([PAGES.signIn, PAGES.setup]);
/** Files the public pages may load besides their bundle. */
const PUBLIC_FILES = new Set(['/favicon.svg']);

function isReserved(path: string): boolean {
  return RESERVED_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

export function missingBuildPage(webRoot: string): string {
  return htmlPage(
    'The viewer has not been built yet',
    `<p>The bridge is running, but it found no viewer at <code>${escapeHtml(webRoot)}</code>.</p>
<p>Run <code>npm run build</code> in the repository root (or start with <code>npm start</code>,
which builds when needed), then reload this page.</p>`,
  );
}

interface ManifestChunk {
  file: string;
  css?: string[];
  assets?: string[];
  imports?: string[];
}

/**
 * The files signin.html loads: its entry chunk with its CSS, assets and imported chunks,
 * transitively (a chunk shared with the viewer, such as React, is public too: it is code, not
 * data). Read from dist/.vite/manifest.json; empty when the build has none.
 */
export function publicAssets(webRoot: string): Set<string> {
  const manifestPath = join(webRoot, '.vite', 'manifest.json');
  const files = new Set<string>();
  if (!existsSync(manifestPath)) return files;
  let manifest: Record<string, ManifestChunk>;
  try {
    manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, ManifestChunk>;
  } catch {
    return files;
  }
  const visit = (key: string, seen: Set<string>): void => {
    const chunk = manifest[key];
    if (chunk === undefined || seen.has(key)) return;
    seen.add(key);
    for (const file of [chunk.file, ...(chunk.css ?? []), ...(chunk.assets ?? [])]) {
      files.add(`/${file}`);
    }
    for (const imported of chunk.imports ?? []) visit(imported, seen);
  };
  const entry = Object.keys(manifest).find((key) => key.endsWith('signin.html'));
  if (entry !== undefined) visit(entry, new Set());
  return files;
}

/** Mounts the pages and static files. Must be the last GET routes added. */
export function mountPages(app: Hono<BridgeEnv>, webRoot: string): void {
  const built = (): boolean => existsSync(join(webRoot, 'index.html'));
  let files: MiddlewareHandler<BridgeEnv> | undefined;
  // Read once per build (the manifest's mtime): a rebuild while running renames the files.
  let publicFiles = { mtimeMs: -1, files: new Set<string>() };
  const publicFilesNow = (): Set<string> => {
    let mtimeMs = 0;
    try {
      mtimeMs = statSync(join(webRoot, '.vite', 'manifest.json')).mtimeMs;
    } catch {
      // No manifest: nothing beyond PUBLIC_FILES is public.
    }
    if (mtimeMs !== publicFiles.mtimeMs) publicFiles = { mtimeMs, files: publicAssets(webRoot) };
    return publicFiles.files;
  };

  app.use(async function staticFiles(c: Context<BridgeEnv, string>, next) {
    const path = c.req.path;
    if (isReserved(path) || pageEntry(path) !== undefined || !built()) return next();
    if (path.endsWith('.map') || path.startsWith('/.vite') || normalize(path) !== path) {
      return c.text('Not found.', 404);
    }
    const isPublic = PUBLIC_FILES.has(path) || publicFilesNow().has(path);
    if (!isPublic && c.get('signedIn') === undefined) {
      return path.endsWith('.html')
        ? c.redirect(signInRedirect(c), 302)
        : c.text('Not found.', 404);
    }
    files ??= serveStatic<BridgeEnv>({ root: webRoot });
    return files(c, next);
  });

  app.get('*', async function page(c) {
    const path = c.req.path;
    if (isReserved(path)) return c.json({ error: `No route ${path}.` }, 404);
    const file = pageEntry(path);
    if (file === undefined) return c.json({ error: `No page ${path}.` }, 404);
    const signedIn = c.get('signedIn');
    if (!PUBLIC_PAGES.has(path) && signedIn === undefined) {
      return c.redirect(signInRedirect(c), 302);
    }
    if (path === PAGES.people && signedIn?.person.role !== 'admin') {
      return c.redirect(PAGES.config, 302);
    }
    let html: string;
    try {
      html = await readFile(join(webRoot, file), 'utf8');
    } catch {
      return c.html(missingBuildPage(webRoot), 503);
    }
    c.header('Cache-Control', 'no-store');
    return c.html(html);
  });
}

function signInRedirect(c: Context): string {
  const url = new URL(c.req.url);
  const next = `${url.pathname}${url.search}`;
  return next === '/' ? PAGES.signIn : `${PAGES.signIn}?next=${encodeURIComponent(next)}`;
}
