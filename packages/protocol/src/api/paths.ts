// Every HTTP path the web app and the bridge share: the public sign-in surface, the signed-in
// API, the pages, and the header that carries the CSRF token. One list so a renamed route cannot
// leave one side behind.

export const API = {
  /** GET, public: is setup needed, is OIDC on, is this browser signed in. */
  authState: '/api/auth/state',
  /** POST, public (with the one-time setup code): create the first admin and sign in. */
  setup: '/api/auth/setup',
  /** POST, public: sign in with a username and password. */
  signIn: '/api/auth/signin',
  /** POST: end this browser's session (and its sockets). */
  signOut: '/api/auth/signout',
  /** GET, public: start OpenID Connect sign-in (redirects to the provider). */
  oidcStart: '/api/auth/oidc/start',
  /** GET, public: the provider redirects back here. */
  oidcCallback: '/api/auth/oidc/callback',
  /** GET: who is signed in, their permissions and the CSRF token. */
  me: '/api/me',
  /** PUT: change one's own password. */
  myPassword: '/api/me/password',
  /** PUT: change one's own permission toggles. */
  myPermissions: '/api/me/permissions',
  /** GET list, POST create; DELETE `${tokens}/:id` revokes. */
  tokens: '/api/tokens',
  /** Admin: GET list, POST add; PATCH / DELETE `${people}/:id`. */
  people: '/api/people',
  /** GET entries (filters, paging). */
  audit: '/api/audit',
  /** GET the same entries as JSON lines (a download). */
  auditExport: '/api/audit/export',
  /** Admin: GET / PUT bridge-wide settings. */
  settings: '/api/settings',
  /** GET / PUT the signed-in person's monitor layout and privacy masks (never with a token). */
  layout: '/api/layout',
  /** POST: a single-use ticket for one WebSocket. */
  tickets: '/api/tickets',
  /**
   * GET the desktops one may see, POST add; GET / PATCH / DELETE `${desktops}/:id`;
   * PUT / DELETE `${desktops}/:id/grants/:personId`.
   */
  desktops: '/api/desktops',
} as const;

/** Pages served by the bridge. The first two are public; the rest need sign-in. */
export const PAGES = {
  signIn: '/signin',
  setup: '/setup',
  viewer: '/',
  config: '/config',
  settings: '/settings',
  audit: '/audit',
  people: '/people',
  layout: '/layout',
  desktops: '/desktops',
  /** Every desktop one may see at a glance: live tiles, approvals, Stop all (P13). */
  fleet: '/fleet',
  /** The recordings list; `${recordings}/:id?t=<epoch ms>` plays one from that moment. */
  recordings: '/recordings',
} as const;

/**
 * Which built HTML entry answers each page: the bridge serves these (and the Vite dev server
 * maps the same routes), so a page added here works in both.
 */
export const PAGE_ENTRIES: Readonly<Record<string, 'index.html' | 'console.html' | 'signin.html'>> =
  {
    [PAGES.viewer]: 'index.html',
    [PAGES.signIn]: 'signin.html',
    [PAGES.setup]: 'signin.html',
    [PAGES.config]: 'console.html',
    [PAGES.settings]: 'console.html',
    [PAGES.audit]: 'console.html',
    [PAGES.people]: 'console.html',
    [PAGES.layout]: 'console.html',
    [PAGES.desktops]: 'console.html',
    [PAGES.fleet]: 'console.html',
    [PAGES.recordings]: 'console.html',
  };

/** The HTML entry answering `path`: a page of PAGE_ENTRIES, or one recording's page. */
export function pageEntry(path: string): 'index.html' | 'console.html' | 'signin.html' | undefined {
  if (Object.hasOwn(PAGE_ENTRIES, path)) return PAGE_ENTRIES[path];
  const rest = path.startsWith(`${PAGES.recordings}/`)
    ? path.slice(PAGES.recordings.length + 1)
    : '';
  return rest !== '' && !rest.includes('/') ? 'console.html' : undefined;
}

/** Header every state-changing /api request of a signed-in browser carries (from GET /api/me). */
export const CSRF_HEADER = 'X-CSRF-Token';

/** The sign-in cookie (HttpOnly, SameSite=Strict; Secure over https). */
export const SESSION_COOKIE = 'oc_session';
