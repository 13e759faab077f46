// The account area at the right end of the viewer's status bar: the signed-in person's name
// as a button that opens a small menu with Config & tokens, Monitor layout, Settings, Audit and
// Sign out. The pages open in a new tab, so this window — which may be the one executing the AI's
// calls and showing its approvals — stays open. Escape or a click elsewhere closes the menu.
import { PAGES } from '@overlay-companion/protocol';

import { SignOutButton } from '../pages/common/SignOutButton.js';
import { useMe } from '../pages/common/useMe.js';
import { useStore } from 'zustand';
import { desktopStateStore } from '../store/desktopState.js';
import { useDisclosure } from './useDisclosure.js';

const LINKS = [
  { href: PAGES.config, label: 'Config & tokens' },
  { href: PAGES.layout, label: 'Monitor layout' },
  { href: PAGES.settings, label: 'Settings' },
  { href: PAGES.audit, label: 'Audit' },
] as const;

export function AccountMenu() {
  const { me, error } = useMe();
  const { open, setOpen, area, button } = useDisclosure();
  const desktop = useStore(desktopStateStore, (s) => s.people);
  // This window's desktop, when the person arranges it (its owner, an admin): the layout page
  // opens on that desktop's own layout.
  const layoutHref =
    desktop !== null && (desktop.you.access === 'owner' || desktop.you.access === 'admin')
      ? `${PAGES.layout}?desktop=${encodeURIComponent(desktop.desktop.id)}`
      : PAGES.layout;

  const name = me?.person.display_name ?? (error !== null ? 'Account' : '…');
  return (
    <div className="account" ref={area}>
      <button
        ref={button}
        type="button"
        className="status-bar__button account__button"
        aria-expanded={open}
        aria-controls="account-menu"
        title={me ? `Signed in as ${me.person.username}` : (error ?? undefined)}
        onClick={() => setOpen((value) => !value)}
      >
        <span className="visually-hidden">Account: </span>
        <span className="account__name" data-testid="account-name">
          {name}
        </span>
      </button>
      {open ? (
        <div id="account-menu" className="account__panel">
          {me ? (
            <p className="account__who">
              Signed in as <strong>{me.person.display_name}</strong> ({me.person.username})
            </p>
          ) : null}
          {error !== null ? (
            <p className="account__error" role="alert">
              {error}
            </p>
          ) : null}
          <ul className="account__links">
            {LINKS.map((link) => (
              <li key={link.href}>
                <a
                  href={link.href === PAGES.layout ? layoutHref : link.href}
                  target="_blank"
                  rel="noopener noreferrer"
                >
                  {link.label}
                  <span className="visually-hidden"> (opens in a new tab)</span>
                </a>
              </li>
            ))}
          </ul>
          <SignOutButton className="status-bar__button account__sign-out" />
        </div>
      ) : null}
    </div>
  );
}
