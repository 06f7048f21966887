// What dashboard tests share: a daemon with a workspace (test/support/apiFixture.ts), Chromium,
// and people signed in through the real path: the operator's `flipbook user invite` link, the
// invitation page, a password. Every test opens its own browser context.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { type ApiFixture, type StorePlace, startApi } from './apiFixture.ts';
import { flipbook } from './cli.ts';
import { appFetch } from './inProcess.ts';
import { launchChromium, PHONE3 } from './readerBrowser.ts';

export const DESKTOP: BrowserContextOptions = { viewport: { width: 1280, height: 860 } };
/** The reader's upright phone with touch, at 2×: the dashboard's screenshots are taken on it. */
export const PHONE: BrowserContextOptions = { ...PHONE3, deviceScaleFactor: 2 };
export const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
export const PASSWORD = 'a long enough secret 42';

/** One event of `flipbook audit log --json`. */
export type AuditLine = {
  type: string;
  data: Record<string, unknown>;
  metadata: { actor: Record<string, unknown> } & Record<string, unknown>;
} & Record<string, unknown>;

export type DashboardFixture = {
  fx: ApiFixture;
  /** the daemon's address */
  url: string;
  browser: Browser;
  /** seconds added to the daemon's clock (FLIPBOOK_TEST_CLOCK_FILE): sessions and links age */
  advanceClock: (seconds: number) => void;
  /** a new context; every page's console errors and page errors are collected */
  open: (options?: BrowserContextOptions) => Promise<Page>;
  /** `flipbook user invite`'s link for email (JSON output) */
  invite: (email: string, role?: 'owner' | 'member', workspace?: string) => Promise<string>;
  /** invited, password chosen, signed in: the page on /dashboard */
  signedIn: (
    email: string,
    options?: { role?: 'owner' | 'member'; workspace?: string; context?: BrowserContextOptions },
  ) => Promise<Page>;
  /** the workspace's audit trail, as `flipbook audit log --json` prints it */
  auditLog: (workspace?: string) => Promise<AuditLine[]>;
  /** what went wrong in any page so far (console errors, uncaught errors) */
  problems: string[];
  closeContexts: () => Promise<void>;
  stop: () => Promise<void>;
};

export const startDashboard = async (
  kind: StorePlace = 'embedded',
  serveArgs: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<DashboardFixture> => {
  const clockFile = join(mkdtempSync(join(tmpdir(), 'flipbook-clock-')), 'offset');
  let offset = 0;
  writeFileSync(clockFile, '0');
  const [fx, browser] = await Promise.all([
    startApi(kind, ['--rate-limit', '0', ...serveArgs], {
      ...env,
      FLIPBOOK_TEST_CLOCK_FILE: clockFile,
    }),
    launchChromium(),
  ]);
  const problems: string[] = [];
  let contexts: BrowserContext[] = [];
  const open = async (options: BrowserContextOptions = DESKTOP) => {
    const context = await browser.newContext(options);
    contexts.push(context);
    const page = await context.newPage();
    page.on('console', (m) => {
      // A 4xx a test provokes on purpose (a wrong password) is logged by Chromium as an error
      // about the resource: not a problem of the page.
      if (m.type() === 'error' && !/status of (4\d\d)/.test(m.text())) problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    return page;
  };
  const invite = async (email: string, role: 'owner' | 'member' = 'owner', workspace = 'acme') => {
    const made = await flipbook(
      [
        'user',
        'invite',
        email,
        '--workspace',
        workspace,
        '--role',
        role,
        '--json',
        '--public-url',
        fx.daemon.url,
        ...fx.storeArgs,
      ],
      { FLIPBOOK_TEST_CLOCK_FILE: clockFile },
    ); // the link ages on the daemon's clock
    expect(made.code, made.stderr).toBe(0);
    return JSON.parse(made.stdout).url as string;
  };
  const signedIn: DashboardFixture['signedIn'] = async (email, options = {}) => {
    const link = await invite(email, options.role ?? 'owner', options.workspace ?? 'acme');
    const page = await open(options.context ?? DESKTOP);
    await page.goto(link);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: /Create my account|Save the password/ }).click();
    await page.waitForURL(/\/dashboard$/);
    return page;
  };
  const auditLog = async (workspace = 'acme') => {
    const log = await flipbook([
      'audit',
      'log',
      '--workspace',
      workspace,
      '--json',
      ...fx.storeArgs,
    ]);
    expect(log.code, log.stderr).toBe(0);
    return log.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as AuditLine);
  };
  return {
    fx,
    url: fx.daemon.url,
    auditLog,
    browser,
    advanceClock: (seconds) => {
      offset += seconds;
      writeFileSync(clockFile, String(offset));
    },
    open,
    invite,
    signedIn,
    problems,
    closeContexts: async () => {
      await Promise.all(contexts.map((c) => c.close()));
      contexts = [];
    },
    stop: async () => {
      await browser.close();
      await fx.stop();
    },
  };
};

/**
 * A dashboard for the suite it is called in: started before its first test, stopped after its
 * last; after each test its browser contexts close and no page may have logged a problem. The
 * value stands for the started fixture (reading it before the suite starts is an error).
 */
export const useDashboard = (...start: Parameters<typeof startDashboard>): DashboardFixture => {
  let started: DashboardFixture | undefined;
  beforeAll(async () => {
    started = await startDashboard(...start);
  });
  afterEach(async () => {
    await started?.closeContexts();
    expect(started?.problems).toEqual([]);
  });
  afterAll(async () => {
    await started?.stop();
  });
  return new Proxy({} as DashboardFixture, {
    get: (_, key) => {
      if (!started) throw new Error("the dashboard starts before the suite's first test");
      return Reflect.get(started, key);
    },
  });
};

/** The sign-in form posted without a browser (same origin): the daemon's answer, unfollowed. */
export const postSignIn = (base: string, email: string, password = PASSWORD) =>
  appFetch(`${base}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base },
    body: new URLSearchParams({ email, password }).toString(),
  });

/** axe-core on the page as it is (the page's CSP keeps axe out: open it with bypassCSP). */
export const axeViolations = async (page: Page) => {
  await page.addScriptTag({ path: AXE });
  return (await page.evaluate(`axe
    .run(document, { resultTypes: ['violations'] })
    .then((r) => r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, help: v.help, targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) })))`)) as {
    id: string;
    help: string;
    targets: string[];
  }[];
};
