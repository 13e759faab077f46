// The console (console.html: /config, /desktops, /fleet, /layout, /settings, /audit, /recordings, /people): a header
// with the nav, the signed-in person's name and Sign out, and the page for the current path.
// Moving between pages does not reload; focus goes to the new page's heading so keyboard and
// screen-reader users land where the content changed.
import type { Me } from '@overlay-companion/protocol';
import { useEffect, useRef } from 'react';
import { ErrorMessage } from '../common/Alert.js';
import { SignOutButton } from '../common/SignOutButton.js';
import { refreshMe, useMe } from '../common/useMe.js';
import { AuditPage } from './audit/AuditPage.js';
import { ConfigPage } from './config/ConfigPage.js';
import { DesktopsPage } from './desktops/DesktopsPage.js';
import { LayoutPage } from './layout/LayoutPage.js';
import { followInApp, useLocationPath } from './navigation.js';
import { PeoplePage } from './people/PeoplePage.js';
import { navItems, pageFor, pageTitle, type ConsolePage } from './routes.js';
import { SettingsPage } from './settings/SettingsPage.js';
import { RecordingsPage } from '../../recordings/RecordingsPage.js';
import { FleetPage } from '../../fleet/FleetPage.js';

/**
 * Pages that use a wide screen's width: tables (a narrow column wraps their cells line after
 * line), the layout editor's picture of the desktop, the player and the fleet's tiles.
 */
const WIDE_PAGES: ReadonlySet<ConsolePage> = new Set([
  'audit',
  'desktops',
  'fleet',
  'layout',
  'people',
  'recordings',
]);

function PageBody({ page, me }: { page: ConsolePage | null; me: Me }) {
  switch (page) {
    case 'config':
      return <ConfigPage />;
    case 'desktops':
      return <DesktopsPage me={me} />;
    case 'fleet':
      return <FleetPage />;
    case 'layout':
      return <LayoutPage />;
    case 'settings':
      return <SettingsPage me={me} />;
    case 'audit':
      return <AuditPage me={me} />;
    case 'recordings':
      return <RecordingsPage />;
    case 'people':
      return me.person.role === 'admin' ? (
        <PeoplePage me={me} />
      ) : (
        <p>Only admins manage people. Ask an admin of this bridge to add or change someone.</p>
      );
    case null:
      return <p>This page does not exist. Pick one from the menu above.</p>;
    default: {
      const never: never = page;
      throw new Error(`unknown console page ${String(never)}`);
    }
  }
}

export function ConsoleApp() {
  const { me, error } = useMe();
  const path = useLocationPath();
  const pathname = path.split('?')[0] ?? path;
  const page = pageFor(pathname);
  const title = pageTitle(page);
  const heading = useRef<HTMLHeadingElement>(null);
  const firstPath = useRef(pathname);

  useEffect(() => {
    document.title = `${title} · Overlay Companion`;
  }, [title]);
  useEffect(() => {
    // Not on the first load: the browser's own focus start is right there.
    if (pathname !== firstPath.current) {
      firstPath.current = '';
      heading.current?.focus();
    }
  }, [pathname]);

  if (me === null) {
    return (
      <main className="console__main console__main--alone">
        {error !== null ? (
          <>
            <ErrorMessage message={error} />
            <button
              type="button"
              className="button"
              onClick={() => {
                refreshMe().catch(() => {
                  // Shown by useMe.
                });
              }}
            >
              Try again
            </button>
          </>
        ) : (
          <p role="status">Loading…</p>
        )}
      </main>
    );
  }

  return (
    <div className="console">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="console__header">
        <span className="console__brand">Overlay Companion</span>
        <nav className="console__nav" aria-label="Main">
          <ul>
            {navItems(me.person.role).map((item) => (
              <li key={item.href}>
                <a
                  href={item.href}
                  aria-current={item.page !== undefined && item.page === page ? 'page' : undefined}
                  onClick={
                    item.page === undefined ? undefined : (event) => followInApp(event, item.href)
                  }
                >
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div className="console__account">
          <span className="console__person" title={me.person.username}>
            {me.person.display_name}
          </span>
          <SignOutButton />
        </div>
      </header>
      <main
        id="main"
        className={
          page !== null && WIDE_PAGES.has(page)
            ? 'console__main console__main--wide'
            : 'console__main'
        }
      >
        <h1 className="console__title" ref={heading} tabIndex={-1}>
          {title}
        </h1>
        <PageBody page={page} me={me} />
      </main>
    </div>
  );
}
