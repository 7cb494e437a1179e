/** Fixtures: real doors (`mur run`) and the real console (`mur console`) in a private MURMUR_HOME per worker. */
import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { test as base, expect } from '@playwright/test';
import { axeViolations, FAILING_IMPACTS } from './axe.js';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));
/** The `mur` users run: bin/mur.js runs the bundle the build makes. */
export const MUR = path.join(REPO, 'apps/door/bin/mur.js');

export interface Door {
  sessionId: string;
  url: string;
  /** host:port, as the console's routes name a door. */
  address: string;
  recordsDir: string;
  name: string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** How a `mur` process is started: `spawn` itself, or a wrapper such as `ip netns exec` (support/netns.ts). */
export type Launcher = (command: string, args: readonly string[], options: SpawnOptions) => ChildProcess;

/** Starts `mur <args>` under MURMUR_HOME `home`; `first` is its first stdout line (the announcement). */
export function spawnMur(
  args: string[],
  home: string,
  env: Record<string, string> = {},
  launch: Launcher = spawn,
): { child: ChildProcess; first: Promise<string> } {
  const child = launch(process.execPath, [MUR, ...args], { env: { ...process.env, MURMUR_HOME: home, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const first = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`mur ${args.join(' ')} exited ${code}: ${stderr}`)));
  });
  return { child, first };
}

/** Stops a `mur` process with a signal (SIGTERM by default) and resolves once it has exited. */
export function stopper(child: ChildProcess) {
  return (signal: NodeJS.Signals = 'SIGTERM') =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill(signal);
    });
}

/** `mur run --roster … --json` as announced (docs/formations.md). */
export interface Formation {
  formation: string;
  pid: number;
  /** `<name>-<pid>`: the console's key for it. */
  key: string;
  entry: string;
  members: { member: string; sessionId: string; url: string; pid: number; recordsDir: string; address: string }[];
  member(name: string): Formation['members'][number];
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export interface Murmur {
  home: string;
  consoleUrl: string;
  /**
   * Starts `mur run <capsule>`; the capsule is a folder under examples/ or an absolute path. With `resume`, `mur run
   * <capsule> --resume <session id>` reopens that session's records (docs/cli.md) instead of minting a new session.
   */
  startDoor(capsule: string, env?: Record<string, string>, options?: { resume?: string }): Promise<Door>;
  /** Starts `mur run --roster <roster.yaml>` (no launch task) and resolves once every member is announced. */
  startFormation(roster: string): Promise<Formation>;
}

/**
 * The line Chromium logs for every answer with status 400 or more. The console asks for such answers on purpose (a
 * 401 opens the token prompt, a 403 says a token may not do that, a 404 that a record is not on this host, a 422 that
 * the control surface refused a choice, a 502 that the door is unreachable) and shows
 * them as problems; how often it asks is what auth.spec.ts counts. Every other console error fails a test.
 */
const REFUSAL_LOG = /^Failed to load resource: the server responded with a status of (401|403|404|422|502) /;

/** The browser console errors a test expects (a door it kills mid-stream): each pattern excuses the lines it matches. */
export interface ConsoleErrors {
  allow(pattern: RegExp): void;
}

export const test = base.extend<{ consoleErrors: ConsoleErrors & { allowed: RegExp[] } }, { murmur: Murmur }>({
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this destructuring.
  consoleErrors: async ({}, use) => {
    const allowed: RegExp[] = [];
    await use({ allowed, allow: (pattern) => allowed.push(pattern) });
  },
  // Every test's page: an error in the browser's console fails the test (a refusal the console shows as a problem
  // excepted: Chromium logs each 4xx/5xx answer, see REFUSAL_LOG); and where the test ends it is checked with axe, a
  // serious or critical violation failing the test that left it.
  page: async ({ page, murmur, consoleErrors }, use, testInfo) => {
    const errors: string[] = [];
    page.on('console', (message) => {
      const text = message.text();
      if (message.type() !== 'error' || REFUSAL_LOG.test(text) || consoleErrors.allowed.some((p) => p.test(text))) return;
      errors.push(`console error at ${message.location().url}: ${text}`);
    });
    page.on('pageerror', (error) => errors.push(`uncaught: ${error.stack ?? error.message}`));
    await use(page);
    if (testInfo.status !== 'passed' || page.isClosed()) return;
    expect(errors, 'errors in the browser console').toEqual([]);
    if (!page.url().startsWith(murmur.consoleUrl)) return;
    expect(await axeViolations(page, FAILING_IMPACTS), `axe: serious or critical violations on ${page.url()}`).toEqual([]);
  },
  murmur: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this destructuring.
    async ({}, use) => {
      const home = mkdtempSync(path.join(os.tmpdir(), 'murmur-e2e-'));
      const running: (() => Promise<void>)[] = [];
      const consoleProc = spawnMur(['console', '--port', '0', '--json'], home);
      const consoleUrl = (JSON.parse(await consoleProc.first) as { url: string }).url;
      running.push(stopper(consoleProc.child));
      const startDoor = async (capsule: string, env: Record<string, string> = {}, options: { resume?: string } = {}): Promise<Door> => {
        const dir = path.isAbsolute(capsule) ? capsule : path.join(REPO, 'examples', capsule);
        const resume = options.resume === undefined ? [] : ['--resume', options.resume];
        const proc = spawnMur(['run', dir, ...resume, '--json'], home, env);
        const announced = JSON.parse(await proc.first) as { sessionId: string; url: string; recordsDir: string; name: string };
        const stop = stopper(proc.child);
        running.push(stop);
        return { ...announced, address: new URL(announced.url).host, stop };
      };
      const startFormation = async (roster: string): Promise<Formation> => {
        const proc = spawnMur(['run', '--roster', roster, '--json'], home);
        const announced = JSON.parse(await proc.first) as Omit<Formation, 'key' | 'member' | 'stop' | 'members'> & {
          members: Omit<Formation['members'][number], 'address'>[];
        };
        const stop = stopper(proc.child);
        running.push(stop);
        const members = announced.members.map((m) => ({ ...m, address: new URL(m.url).host }));
        return { ...announced, key: `${announced.formation}-${announced.pid}`, members, member: (name) => members.find((m) => m.member === name)!, stop };
      };
      await use({ home, consoleUrl, startDoor, startFormation });
      await Promise.all(running.map((stop) => stop()));
      rmSync(home, { recursive: true, force: true });
    },
    { scope: 'worker' },
  ],
});

/**
 * Whether this run measures: the project `measured`, which `npm run bench` runs one spec at a time with nothing beside
 * it (playwright.config.ts). Only then do the perf specs write their figures; in `npm test` they run with the others
 * and check what they show, not how fast.
 */
export const measuring = (): boolean => test.info().project.name === 'measured';

export { expect };
