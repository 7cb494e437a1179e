import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CONTROL_PATH, type ControlChange, type ControlChangeRequest, type ControlSettings } from '@murmur/protocol';
import { CONTROL_TOKEN_FILE, readControlToken } from '../auth/control-token.js';
import type { SessionEntry } from '../session/session-registry.js';
import { type CommandIo, DoorFailure, withUsage } from './client-command-support.js';
import { findSession } from './session-lookup.js';
import { UsageError } from './usage-error.js';

export const CONTROL_USAGE = `usage: mur control [SESSION] [driver CHOICE] [--token T] [--json]

Steers a running session through its control surface (docs/control.md). With driver CHOICE, selects the
driver choice that serves the session's next inference call and every one after it; without, prints the
settings the control surface changes and their values. The token is --token T, else the session's control
token from its records (mur token prints it). --json prints the control surface's answer as it came.`;

/** The words a setting is named by on the command line. */
const SETTING_WORDS: Readonly<Record<string, 'inference.driver'>> = { driver: 'inference.driver', 'inference.driver': 'inference.driver' };

/** How long mur control waits for the control surface's answer. */
const CONTROL_TIMEOUT_MS = 5000;

/** The positionals: [SESSION] [SETTING VALUE]. A session is never named like a setting (ids are ses_…, addresses host:port). */
function readPositionals(positionals: string[]): { session: string | undefined; change: ControlChangeRequest | null } {
  const [first, second, third] = positionals;
  const change = (word: string, value: string | undefined) => {
    const setting = Object.hasOwn(SETTING_WORDS, word) ? SETTING_WORDS[word] : undefined;
    if (setting === undefined) throw new UsageError(`mur control changes driver (inference.driver), not ${JSON.stringify(word)}\n${CONTROL_USAGE}`);
    if (value === undefined || value.trim() === '')
      throw new UsageError(`mur control ${word} takes a choice name, such as mur control ${word} fast\n${CONTROL_USAGE}`);
    return { setting, value };
  };
  if (positionals.length > 3) throw new UsageError(`mur control takes at most a session, a setting and a value\n${CONTROL_USAGE}`);
  if (positionals.length === 3) return { session: first, change: change(second, third) };
  if (first !== undefined && Object.hasOwn(SETTING_WORDS, first)) return { session: undefined, change: change(first, second) };
  if (positionals.length === 2) return { session: first, change: change(second, undefined) };
  return { session: first, change: null };
}

function controlToken(session: SessionEntry, explicit: string | undefined): string {
  if (explicit !== undefined) return explicit;
  if (!existsSync(path.join(session.recordsDir, CONTROL_TOKEN_FILE))) {
    throw new DoorFailure(`session ${session.sessionId} has no control token in its records (its runtime mints none); pass one with --token`);
  }
  return readControlToken(session.recordsDir).token;
}

/** mur control: GET /control, or POST /control with one change (docs/control.md). */
export async function control(argv: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = withUsage(CONTROL_USAGE, () =>
    parseArgs({ args: argv, allowPositionals: true, options: { token: { type: 'string' }, json: { type: 'boolean' } } }),
  );
  const { session: named, change } = readPositionals(positionals);
  const session = findSession(named);
  const token = controlToken(session, values.token);
  const who = `session ${session.sessionId}`;
  let response: Response;
  try {
    response = await fetch(`${session.url}${CONTROL_PATH}`, {
      method: change ? 'POST' : 'GET',
      headers: { authorization: `Bearer ${token}`, ...(change ? { 'content-type': 'application/json' } : {}) },
      body: change ? JSON.stringify(change) : undefined,
      signal: AbortSignal.timeout(CONTROL_TIMEOUT_MS),
    });
  } catch (error) {
    const cause =
      error instanceof Error && error.cause instanceof Error
        ? `: ${error.cause.message}`
        : error instanceof Error && error.name === 'TimeoutError'
          ? ' in time'
          : '';
    throw new DoorFailure(`no answer from ${session.url} (${session.sessionId})${cause}`);
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new DoorFailure(`the answer from ${session.url}${CONTROL_PATH} is not the control surface's (HTTP ${response.status})`);
  }
  if (!response.ok) {
    const { error, message } = body as { error?: string; message?: string };
    throw new DoorFailure(`the control surface of ${who} refused (${response.status} ${error ?? 'refused'}): ${message ?? text}`);
  }
  if (values.json) {
    io.out(JSON.stringify(body));
    return 0;
  }
  if (change) {
    io.out((body as ControlChange).message);
    return 0;
  }
  printSettings(body as ControlSettings, who, io);
  return 0;
}

function printSettings(answer: ControlSettings, who: string, io: CommandIo): void {
  if (answer.settings.length === 0) {
    io.out(`${who} has no setting the control surface changes: it declares no inference: block`);
    return;
  }
  for (const { setting, value, choices } of answer.settings) {
    io.out(`${setting}: ${value}`);
    const width = Math.max(...choices.map((c) => c.name.length));
    for (const c of choices) {
      const described = c.model === undefined ? c.driver : `${c.driver}, ${c.model}`;
      io.out(`  ${c.name === value ? '*' : ' '} ${c.name.padEnd(width)}  ${described}${c.usable ? '' : ` — cannot be used: ${c.problem}`}`);
    }
  }
}
