// Builds the viewer (apps/web) into apps/web/dist, which the bridge serves at `/`.
// In `npm run dev`, Vite proxies the bridge's HTTP and WebSocket routes so the page
// talks to a running bridge exactly as it does in production.
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const bridge = process.env.OC_BRIDGE_URL ?? 'http://127.0.0.1:8080';

export default defineConfig({
  root: 'apps/web',
  publicDir: '../../public',
  plugins: [react()],
  resolve: { conditions: ['overlay-source'] },
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true },
  server: {
    proxy: {
      '/api': bridge,
      '/mcp': bridge,
      '/tunnel': { target: bridge, ws: true },
      '/ws': { target: bridge, ws: true },
    },
  },
});
