// Security test support: every endpoint the bridge serves, with its method and a request the
// route would accept from a signed-in admin (so that a refusal can only come from the defence
// under test, never from a bad body). Guards, CSRF and content-type tests walk this list;
// guards.test.ts checks it names every path of the protocol's API and PAGES tables.
import { API, PAGES, TUNNEL_SOCKET_PATH, VIEWER_SOCKET_PATH } from '@overlay-companion/protocol';
import { INITIALIZE_REQUEST } from '../../mcp/testing/fixtures.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Endpoint {
  method: Method;
  /** The route as the code names it, e.g. `/api/tokens/:id`. */
  route: string;
  /** A concrete path to send. */
  path: string;
  /** A JSON body the route accepts. */
  body?: unknown;
}

/** Ids of things a test made, so routes with parameters name real ones. */
export interface EndpointTargets {
  tokenId: string;
  personId: string;
  /** The signed-in admin's password (PUT /api/me/password must name it). */
  password: string;
  /** A desktop of the admin's (routes with a made-up id answer 404 past the defences). */
  desktopId?: string;
}

const LAYOUT = { layout: { monitors: [{ x: 0, y: 0, width: 800, height: 600 }] } };

/** Public POSTs: they sign people in, so they need no cookie and no CSRF token. */
export function publicStateChanging(targets: Pick<EndpointTargets, 'password'>): Endpoint[] {
  return [
    {
      method: 'POST',
      route: API.setup,
      path: API.setup,
      body: { code: 'x'.repeat(24), username: 'setup-person', password: 'setup-password-0123' },
    },
    {
      method: 'POST',
      route: API.signIn,
      path: API.signIn,
      body: { username: 'admin', password: targets.password },
    },
  ];
}

/**
 * Every state-changing /api route of a signed-in person, each with a body that would succeed.
 * Sign-out comes last: were a defence missing, it would end the session the others use.
 */
export function signedInStateChanging(targets: EndpointTargets): Endpoint[] {
  return [
    {
      method: 'PUT',
      route: API.myPassword,
      path: API.myPassword,
      body: { current_password: targets.password, new_password: targets.password },
    },
    {
      method: 'PUT',
      route: API.myPermissions,
      path: API.myPermissions,
      body: { clipboard_read: true },
    },
    {
      method: 'POST',
      route: API.tokens,
      path: API.tokens,
      body: { name: 'made by a forged request' },
    },
    { method: 'DELETE', route: `${API.tokens}/:id`, path: `${API.tokens}/${targets.tokenId}` },
    // Before the people routes: the grant goes to `personId`, whom DELETE /api/people removes.
    ...desktopRoutes(targets),
    {
      method: 'POST',
      route: API.people,
      path: API.people,
      body: { username: 'forged-person', password: 'forged-password-0123', role: 'admin' },
    },
    {
      method: 'PATCH',
      route: `${API.people}/:id`,
      path: `${API.people}/${targets.personId}`,
      body: { role: 'admin' },
    },
    { method: 'DELETE', route: `${API.people}/:id`, path: `${API.people}/${targets.personId}` },
    { method: 'PUT', route: API.settings, path: API.settings, body: { audit_retention_days: 1 } },
    { method: 'PUT', route: API.layout, path: API.layout, body: LAYOUT },
    { method: 'DELETE', route: API.layout, path: API.layout },
    { method: 'POST', route: API.tickets, path: API.tickets, body: { socket: 'viewer' } },
    { method: 'POST', route: API.signOut, path: API.signOut, body: {} },
  ];
}

/** The desktop routes that change something (a grant to `personId` on `desktopId`). */
function desktopRoutes(targets: EndpointTargets): Endpoint[] {
  const desktop = `${API.desktops}/${targets.desktopId ?? 'dsk_none'}`;
  const grant = `${desktop}/grants/${targets.personId}`;
  return [
    {
      method: 'POST',
      route: API.desktops,
      path: API.desktops,
      body: { name: 'forged desktop', kind: 'vnc', params: { host: 'forged.example', port: 5900 } },
    },
    { method: 'PATCH', route: `${API.desktops}/:id`, path: desktop, body: { name: 'forged' } },
    {
      method: 'PUT',
      route: `${API.desktops}/:id/grants/:personId`,
      path: grant,
      body: { level: 'control' },
    },
    { method: 'DELETE', route: `${API.desktops}/:id/grants/:personId`, path: grant },
    { method: 'DELETE', route: `${API.desktops}/:id`, path: desktop },
  ];
}

/** Every GET of the API, the pages, /healthz and the plain-HTTP face of /tunnel. */
export function reads(): Endpoint[] {
  const get = (route: string, path = route): Endpoint => ({ method: 'GET', route, path });
  return [
    get('/healthz'),
    ...Object.values(PAGES).map((page) => get(page)),
    get('/favicon.svg'),
    get(TUNNEL_SOCKET_PATH),
    get(API.authState),
    get(API.oidcStart),
    get(API.oidcCallback, `${API.oidcCallback}?code=x&state=y`),
    get(API.me),
    get(API.tokens),
    get(API.people),
    get(API.audit),
    get(API.auditExport),
    get(`${API.audit}/:id/screenshot`, `${API.audit}/1/screenshot`),
    get(API.settings),
    get(API.layout),
    get(API.desktops),
    get(`${API.desktops}/:id`, `${API.desktops}/dsk_none`),
  ];
}

/** /mcp with each method a client uses. */
export function mcpEndpoints(sessionId: string): Array<Endpoint & { sessionId?: string }> {
  return [
    { method: 'POST', route: '/mcp', path: '/mcp', body: INITIALIZE_REQUEST },
    { method: 'GET', route: '/mcp', path: '/mcp', sessionId },
    { method: 'DELETE', route: '/mcp', path: '/mcp', sessionId },
  ];
}

/** The two WebSocket endpoints. */
export const UPGRADE_PATHS = [VIEWER_SOCKET_PATH, TUNNEL_SOCKET_PATH] as const;
