// The console's pages (all served as console.html) and the nav that leads to them: which path
// shows which page, its title, and who sees it. Pure, so the table is tested without a DOM.
import { PAGES, pageEntry, type Role } from '@overlay-companion/protocol';

export type ConsolePage =
  'config' | 'desktops' | 'fleet' | 'layout' | 'settings' | 'audit' | 'recordings' | 'people';

export interface NavItem {
  href: string;
  label: string;
  /** Set for pages of this app (client-side navigation); unset for the viewer (another page). */
  page?: ConsolePage;
}

const PAGE_ROUTES: readonly (NavItem & { page: ConsolePage; adminOnly: boolean })[] = [
  { href: PAGES.config, label: 'Config & tokens', page: 'config', adminOnly: false },
  { href: PAGES.desktops, label: 'Desktops', page: 'desktops', adminOnly: false },
  { href: PAGES.fleet, label: 'Fleet', page: 'fleet', adminOnly: false },
  { href: PAGES.layout, label: 'Monitor layout', page: 'layout', adminOnly: false },
  { href: PAGES.settings, label: 'Settings', page: 'settings', adminOnly: false },
  { href: PAGES.audit, label: 'Audit', page: 'audit', adminOnly: false },
  { href: PAGES.recordings, label: 'Recordings', page: 'recordings', adminOnly: false },
  { href: PAGES.people, label: 'People', page: 'people', adminOnly: true },
];

/** The nav for a person: the viewer first, People only for admins. */
export function navItems(role: Role): NavItem[] {
  return [
    { href: PAGES.viewer, label: 'Viewer' },
    ...PAGE_ROUTES.filter((route) => role === 'admin' || !route.adminOnly).map(
      ({ href, label, page }) => ({ href, label, page }),
    ),
  ];
}

/**
 * The page a path shows, or null for a path the console does not know (tolerates a trailing
 * '/'); /recordings/<id> is the recordings page playing one.
 */
export function pageFor(pathname: string): ConsolePage | null {
  const path = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
  if (pageEntry(path) === 'console.html' && path.startsWith(`${PAGES.recordings}/`)) {
    return 'recordings';
  }
  return PAGE_ROUTES.find((route) => route.href === path)?.page ?? null;
}

export function pageTitle(page: ConsolePage | null): string {
  return PAGE_ROUTES.find((route) => route.page === page)?.label ?? 'Page not found';
}
