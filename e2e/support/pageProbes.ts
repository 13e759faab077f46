// Things the perimeter specs watch from inside a page (installed with page.addInitScript, so
// they run before the page's own scripts): how and why its WebSockets closed, kept in
// sessionStorage so the record survives the page sending itself to /signin; and every Content
// Security Policy violation, which is what injected markup would trigger (an inline handler or
// script blocked by the CSP) even though the CSP keeps it from running.
/// <reference lib="dom" />
import { expect, type Page } from '@playwright/test';

const CLOSES_KEY = 'oc-e2e-socket-closes';

export interface SocketClose {
  /** The socket's path: /tunnel or /ws/viewer. */
  path: string;
  /** The close frame's code: 4000 + the Guacamole status on the tunnel (e.g. 4769). */
  code: number;
  reason: string;
}

/** Init script: records every WebSocket close of the page (and its tab) in sessionStorage. */
export function recordSocketCloses(): void {
  const key = 'oc-e2e-socket-closes';
  const Original = window.WebSocket;
  class Recorded extends Original {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols);
      const path = new URL(String(url)).pathname;
      this.addEventListener('close', (event: CloseEvent) => {
        const list = JSON.parse(sessionStorage.getItem(key) ?? '[]') as unknown[];
        list.push({ path, code: event.code, reason: event.reason });
        sessionStorage.setItem(key, JSON.stringify(list));
      });
    }
  }
  window.WebSocket = Recorded;
}

/** The closes recorded so far in the page's tab (see recordSocketCloses). */
export async function socketCloses(page: Page): Promise<SocketClose[]> {
  const text = await page.evaluate((key) => sessionStorage.getItem(key), CLOSES_KEY);
  return JSON.parse(text ?? '[]') as SocketClose[];
}

/** Init script: collects the page's CSP violations in window.__ocViolations. */
export function recordPolicyViolations(): void {
  const seen: string[] = [];
  (window as unknown as { __ocViolations: string[] }).__ocViolations = seen;
  document.addEventListener('securitypolicyviolation', (event) => {
    seen.push(`${event.effectiveDirective} blocked ${event.blockedURI} (${event.sample})`);
  });
}

/**
 * What a page shows for text that looks like markup: every text in `texts` appears as visible
 * text, no element that markup would have made exists (an <img src="x">, a script mentioning
 * __pwned), the page tried nothing its CSP blocked, and `window.__pwned` was never set. The CSP
 * alone would stop the handler from running, so the first three are the checks that fail when
 * a page renders names as HTML.
 */
export async function expectShownAsText(page: Page, texts: readonly string[]): Promise<void> {
  for (const text of texts) {
    await expect(page.getByText(text).filter({ visible: true }).first()).toBeVisible();
  }
  const found = await page.evaluate(() => ({
    imgX: document.querySelectorAll('img[src="x"]').length,
    scripts: Array.from(document.querySelectorAll('script')).filter((s) =>
      (s.textContent ?? '').includes('__pwned'),
    ).length,
    violations: (window as unknown as { __ocViolations?: string[] }).__ocViolations ?? null,
    pwned: (window as unknown as { __pwned?: unknown }).__pwned,
  }));
  expect(found, `markup rendered as HTML on ${page.url()}`).toEqual({
    imgX: 0,
    scripts: 0,
    violations: [],
    pwned: undefined,
  });
}
