// Builds the web app (apps/web) into apps/web/dist, which the bridge serves: three HTML entries
// — index.html (the viewer, `/`), console.html (`/config`, `/settings`, `/audit`, `/people`) and
// signin.html (`/signin`, `/setup`, public). The bridge reads `.vite/manifest.json` to learn which
// assets belong to signin.html (the only ones it serves without sign-in), so the manifest is
// always written. Production builds carry no source maps: the bridge must not serve our sources.
// In `npm run dev`, Vite proxies the bridge's HTTP and WebSocket routes so the pages talk to a
// running bridge exactly as they do in production, and answers the page routes with the same
// HTML entry the bridge would.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
// Relative, not the package name: the config is loaded before any workspace package is built.
import { PAGES, pageEntry } from './packages/protocol/src/api/paths.js';

const bridge = process.env.OC_BRIDGE_URL ?? 'http://127.0.0.1:8080';
const webRoot = fileURLToPath(new URL('./apps/web/', import.meta.url));

/** Dev server only: `/config` → console.html and so on, instead of Vite's index.html fallback. */
function pageRoutes(): Plugin {
  return {
    name: 'overlay-companion-page-routes',
    configureServer(server) {
      server.middlewares.use(function pageRoute(req, _res, next) {
        const url = req.url ?? '/';
        const queryAt = url.indexOf('?');
        const path = queryAt < 0 ? url : url.slice(0, queryAt);
        const entry = pageEntry(path);
        if (entry !== undefined && path !== PAGES.viewer) {
          req.url = `/${entry}${queryAt < 0 ? '' : url.slice(queryAt)}`;
        }
        next();
      });
    },
  };
}

export default defineConfig(({ mode }) => ({
  root: 'apps/web',
  publicDir: '../../public',
  plugins: [react(), pageRoutes()],
  resolve: { conditions: ['overlay-source'] },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    manifest: true,
    // Maps only for an explicit `vite build --mode development`; never in what the bridge serves.
    sourcemap: mode === 'development',
    rolldownOptions: {
      // Shared chunks get a neutral name (they would otherwise be named after one of their
      // modules, e.g. "theme-….js" for React and the protocol).
      output: { chunkFileNames: 'assets/shared-[hash].js' },
      input: {
        index: resolve(webRoot, 'index.html'),
        console: resolve(webRoot, 'console.html'),
        signin: resolve(webRoot, 'signin.html'),
      },
    },
  },
  server: {
    proxy: {
      '/api': bridge,
      '/mcp': bridge,
      '/healthz': bridge,
      '/tunnel': { target: bridge, ws: true },
      '/ws': { target: bridge, ws: true },
    },
  },
}));
