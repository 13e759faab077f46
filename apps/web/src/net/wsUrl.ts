// WebSocket URLs for the bridge's routes, on the same origin that served the page (the bridge
// serves both; in `npm run dev` Vite proxies them), so no host or port is ever configured here.

export interface PageLocation {
  protocol: string;
  host: string;
}

/** `ws://host/path` for an http page, `wss://host/path` for an https page. */
export function wsUrl(path: string, location: PageLocation = window.location): string {
  if (!path.startsWith('/'))
    throw new Error(`wsUrl needs an absolute path such as '/tunnel', got '${path}'`);
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}${path}`;
}
