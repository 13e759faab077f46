// What people and AIs typed (names, token names, audit summaries) reaches the page as text:
// the tables rendered to HTML with React's server renderer keep hostile strings escaped. Plus
// the checks that keep the pages inside the bridge's CSP: no raw-HTML escape hatches in the
// sources, and no inline script or style in the HTML entries.
import type { AuditEntryView, PersonView, TokenView } from '@overlay-companion/protocol';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { KeyReadingNotice } from '../ui/KeyReadingBanner.js';
import { AuditTable } from './console/audit/AuditTable.js';
import { TokenTable } from './console/config/TokenTable.js';
import { PeopleTable } from './console/people/PeopleTable.js';
import consoleHtml from '../../console.html?raw';
import indexHtml from '../../index.html?raw';
import signinHtml from '../../signin.html?raw';

const HOSTILE = '<img src=x onerror="alert(1)"><script>alert(2)</script>';

function expectEscaped(html: string) {
  expect(html).not.toContain('<img');
  expect(html).not.toContain('<script');
  expect(html).toContain('&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&lt;script&gt;');
}

const person: PersonView = {
  id: 'p1',
  username: 'ada',
  display_name: HOSTILE,
  role: 'admin',
  disabled: false,
  created_at: 0,
  has_password: true,
  oidc_linked: false,
};

describe('rendered as text', () => {
  it('people names', () => {
    const html = renderToStaticMarkup(
      <PeopleTable
        people={[person]}
        myId="p1"
        busyId={null}
        resettingId="p1"
        onChange={() => undefined}
        onRemove={() => undefined}
        onReset={() => undefined}
      />,
    );
    expectEscaped(html);
  });

  it('token names', () => {
    const token: TokenView = {
      id: 't1',
      name: HOSTILE,
      created_at: 0,
      expires_at: null,
      last_used_at: null,
      revoked_at: null,
      hint: 'oc_Ab',
      desktops: null,
    };
    expectEscaped(
      renderToStaticMarkup(
        <TokenTable tokens={[token]} now={1} busyId={null} onRevoke={() => undefined} />,
      ),
    );
  });

  it('audit summaries, details and names', () => {
    const entry: AuditEntryView = {
      id: 7,
      at: 0,
      kind: 'tool_call',
      actor: 'ai',
      person_id: 'p1',
      person_name: HOSTILE,
      token_name: HOSTILE,
      client_name: HOSTILE,
      tool: 'draw_overlay',
      summary: `label ${HOSTILE}`,
      decision: 'allow',
      approved_by: HOSTILE,
      decided_by: HOSTILE,
      decided_by_person_id: null,
      outcome: 'ok',
      duration_ms: 3,
      detail: HOSTILE,
      has_screenshot: true,
    };
    const html = renderToStaticMarkup(<AuditTable entries={[entry]} />);
    expectEscaped(html);
    expect(html).toContain('href="/api/audit/7/screenshot"');
  });

  it('the key-reading banner appears only while an AI reads key presses', () => {
    expect(renderToStaticMarkup(<KeyReadingNotice reading={false} />)).not.toContain('reading');
    const html = renderToStaticMarkup(<KeyReadingNotice reading />);
    expect(html).toContain('An AI is reading your key presses.');
    expect(html).toContain('href="/settings"');
  });
});

// Every source file of the web app, as text (Vite's glob import; the tests run without node types).
const SOURCES: Record<string, string> = import.meta.glob(
  ['../**/*.{ts,tsx}', '!../**/*.test.{ts,tsx}'],
  {
    query: '?raw',
    import: 'default',
    eager: true,
  },
);

describe('inside the CSP', () => {
  it('no source sets raw HTML or evaluates strings', () => {
    expect(Object.keys(SOURCES).length).toBeGreaterThan(50);
    const offenders = Object.entries(SOURCES)
      .filter(([, text]) =>
        /dangerouslySetInnerHTML|\.innerHTML\s*=|\.outerHTML\s*=|insertAdjacentHTML|new Function\(|\beval\(/.test(
          text,
        ),
      )
      .map(([path]) => path);
    expect(offenders).toEqual([]);
  });

  it('the HTML entries have no inline script or style', () => {
    const entries = {
      'index.html': indexHtml,
      'console.html': consoleHtml,
      'signin.html': signinHtml,
    };
    for (const [name, html] of Object.entries(entries)) {
      const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
      expect(scripts.length, name).toBe(1);
      for (const [, attributes, body] of scripts) {
        expect(attributes, name).toMatch(/\bsrc="\/src\/[^"]+\.tsx"/);
        expect(body?.trim(), name).toBe('');
      }
      expect(html, name).not.toMatch(/<style\b|\sstyle=|\son[a-z]+=/i);
    }
  });
});
