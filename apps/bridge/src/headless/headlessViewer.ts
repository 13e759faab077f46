// The headless viewer behind `serve --headless-viewer`: a headless Chromium (playwright-core,
// Debian's binary) kept open on the viewer URL, so AI clients can work with nobody at a browser.
// Each launch gets a sign-in cookie the bridge minted in-process for a headless session (never
// issued over HTTP, so no page can claim to be headless); the bridge then marks that page's
// sockets headless, and approvals go to the MCP client through elicitation. If Chromium crashes, its page
// crashes or closes, or the page cannot load, the whole browser is relaunched after a backoff
// that grows while failures repeat and resets once a launch stays up. stop() ends it for good.
// While it is away, backInMs() says about how long until it is back, so a call that finds no
// viewer is told to retry then rather than to open a browser.
import { chromium, type Browser, type Page } from 'playwright-core';
import type { Logger } from 'pino';
import { StartupError, errorMessage } from '../errors.js';
import { CHROMIUM_FLAGS, chromiumPath } from './chromium.js';

export interface RelaunchPolicy {
  /** Delay before the first relaunch. */
  baseMs: number;
  /** Largest delay between relaunches. */
  maxMs: number;
  /** A launch that stayed up this long resets the delay to baseMs. */
  stableAfterMs: number;
}

export const DEFAULT_RELAUNCH: RelaunchPolicy = {
  baseMs: 500,
  maxMs: 30_000,
  stableAfterMs: 60_000,
};

/**
 * From launching Chromium to its page's viewer socket joining the bridge (a relaunch after the
 * 500 ms base delay measured 1.4–3.0 s in all).
 */
export const JOIN_ALLOWANCE_MS = 2_000;
/** Told while a page that has loaded opens its viewer socket. */
const JOINING_MS = 500;
/** A loaded page whose socket has not joined by then is not coming through this launch. */
const JOIN_GRACE_MS = 5_000;

/** Where the launcher is, for backInMs: each time is epoch ms, set while that state holds. */
export interface LaunchState {
  /** The next launch is scheduled for this time. */
  relaunchAt?: number | undefined;
  /** A launch started at this time and its page has not loaded yet. */
  launchingSince?: number | undefined;
  /** The page loaded at this time. */
  loadedAt?: number | undefined;
}

/** About how long until the viewer page is back (undefined: it is up, or stopped for good). */
export function backInMs(state: LaunchState, now: number): number | undefined {
  if (state.relaunchAt !== undefined)
    return Math.max(0, state.relaunchAt - now) + JOIN_ALLOWANCE_MS;
  if (state.launchingSince !== undefined)
    return Math.max(JOINING_MS, state.launchingSince + JOIN_ALLOWANCE_MS - now);
  if (state.loadedAt !== undefined && now - state.loadedAt < JOIN_GRACE_MS) return JOINING_MS;
  return undefined;
}

export function relaunchDelay(failures: number, policy: RelaunchPolicy): number {
  return Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, Math.min(failures, 30)));
}

export interface HeadlessViewerOptions {
  /** The bridge's base URL (the viewer is served at /). */
  bridgeUrl: string;
  logger: Logger;
  /** A fresh headless sign-in cookie for each launch (minted in-process by the bridge). */
  signIn: () => { name: string; value: string };
  /** Defaults to OC_CHROMIUM or /usr/bin/chromium. */
  executablePath?: string;
  relaunch?: RelaunchPolicy;
}

export interface HeadlessViewer {
  /** The viewer URL the page opens. */
  readonly url: string;
  /** Launches so far, the first included. */
  readonly launches: number;
  /** The live page, when Chromium is up (for tests and diagnostics). */
  readonly page: Page | undefined;
  /** While it is being relaunched: about how long until its page is back, in ms. */
  backInMs(): number | undefined;
  stop(): Promise<void>;
}

/** Launches Chromium on the viewer; throws StartupError when the first launch fails. */
export async function startHeadlessViewer(options: HeadlessViewerOptions): Promise<HeadlessViewer> {
  const executablePath = options.executablePath ?? chromiumPath();
  const policy = options.relaunch ?? DEFAULT_RELAUNCH;
  const url = options.bridgeUrl;
  const log = options.logger;
  let browser: Browser | undefined;
  let page: Page | undefined;
  let launches = 0;
  let failures = 0;
  let launchedAt = 0;
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let generation = 0;
  const state: LaunchState = {};

  const launch = async (): Promise<void> => {
    const mine = ++generation;
    launches += 1;
    launchedAt = Date.now();
    Object.assign(state, {
      relaunchAt: undefined,
      launchingSince: launchedAt,
      loadedAt: undefined,
    });
    const next = await chromium.launch({
      executablePath,
      headless: true,
      args: [...CHROMIUM_FLAGS],
      // The CLI owns the signals: Ctrl-C runs its orderly stop (which closes this browser) and
      // exits 0. Playwright's own handlers would exit 130 first. If this process dies anyway,
      // Chromium sees its control pipe close and exits.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    browser = next;
    next.on('disconnected', () => gone(mine, 'Chromium exited or crashed'));
    const context = await next.newContext();
    const cookie = options.signIn();
    await context.addCookies([
      {
        name: cookie.name,
        value: cookie.value,
        url: options.bridgeUrl,
        httpOnly: true,
        sameSite: 'Strict',
      },
    ]);
    const nextPage = await context.newPage();
    page = nextPage;
    nextPage.on('crash', () => gone(mine, 'the viewer page crashed'));
    nextPage.on('close', () => gone(mine, 'the viewer page was closed'));
    nextPage.on('pageerror', (err) => log.warn({ err: err.message }, 'headless viewer page error'));
    await nextPage.goto(url, { waitUntil: 'load' });
    if (mine === generation)
      Object.assign(state, { launchingSince: undefined, loadedAt: Date.now() });
    log.info({ url, launch: launches }, 'headless viewer open');
  };

  const relaunch = async (): Promise<void> => {
    timer = undefined;
    if (stopping) return;
    try {
      await launch();
    } catch (err) {
      log.warn({ err: errorMessage(err) }, 'headless viewer relaunch failed');
      gone(generation, `relaunch failed: ${errorMessage(err)}`);
    }
  };

  function gone(which: number, reason: string): void {
    // Only the current launch may schedule a relaunch, and only once.
    if (stopping || which !== generation || timer !== undefined) return;
    generation += 1;
    if (Date.now() - launchedAt >= policy.stableAfterMs) failures = 0;
    const delayMs = relaunchDelay(failures, policy);
    failures += 1;
    log.warn({ reason, delayMs, launches }, 'headless viewer gone; relaunching Chromium');
    const old = browser;
    browser = undefined;
    page = undefined;
    void old?.close().catch(() => undefined);
    Object.assign(state, {
      relaunchAt: Date.now() + delayMs,
      launchingSince: undefined,
      loadedAt: undefined,
    });
    timer = setTimeout(() => void relaunch(), delayMs);
  }

  try {
    await launch();
  } catch (err) {
    await browser?.close().catch(() => undefined);
    throw new StartupError(
      `The headless viewer could not start Chromium (${executablePath}) on ${url}: ${errorMessage(err)}. Install Debian's chromium or set OC_CHROMIUM to a Chromium binary.`,
    );
  }

  let stopped: Promise<void> | undefined;
  return {
    url,
    get launches() {
      return launches;
    },
    get page() {
      return page;
    },
    backInMs: () => (stopping ? undefined : backInMs(state, Date.now())),
    stop: () =>
      (stopped ??= (async () => {
        stopping = true;
        clearTimeout(timer);
        const old = browser;
        browser = undefined;
        page = undefined;
        await old?.close().catch(() => undefined);
      })()),
  };
}
