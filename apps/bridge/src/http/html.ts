// The few HTML pages the bridge writes itself (the missing-build page, the OpenID Connect
// callback pages): text escaped for HTML, and one small page shell without script, so they stay
// inside the CSP. Everything else people see is the built web app.

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** A page with a heading and `body` (already HTML); `refreshTo` moves on to that path by itself. */
export function htmlPage(title: string, body: string, refreshTo?: string): string {
  const refresh =
    refreshTo === undefined
      ? ''
      : `<meta http-equiv="refresh" content="0;url=${escapeHtml(refreshTo)}">`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">${refresh}<title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}
