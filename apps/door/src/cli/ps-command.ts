import { parseArgs } from 'node:util';
import { listSessions, type SessionEntry } from '../session/session-registry.js';
import { checkCard, clientFor, type CommandIo, fetchCard, inPlainWords, withUsage } from './client-command-support.js';
import { UsageError } from './usage-error.js';

export const PS_USAGE = 'usage: mur ps [--json]   list the sessions registered on this host, each reachable or not';

export interface PsRow {
  name: string;
  version: string;
  url: string;
  sessionId: string;
  pid: number;
  reachable: boolean;
  /** Why the session is unreachable; null when it is reachable. */
  reason: string | null;
  /** Present only for a formation member (mur run --roster): its formation, its member name, whether it is the entry. */
  formation?: { name: string; member: string; entry: boolean };
}

/** Whether one registered session's door answers as that session: its card, fetched with a short timeout. */
async function probe(session: SessionEntry & { stale: boolean }): Promise<PsRow> {
  const row = {
    name: session.name,
    version: session.version,
    url: session.url,
    sessionId: session.sessionId,
    pid: session.pid,
    ...(session.formation ? { formation: { name: session.formation.name, member: session.formation.member, entry: session.formation.entry } } : {}),
  };
  if (session.stale) return { ...row, reachable: false, reason: `its process ${session.pid} is gone (a stale record)` };
  try {
    const card = await fetchCard(clientFor(session.url, undefined));
    const verdict = checkCard(card, session);
    return verdict.ok ? { ...row, reachable: true, reason: null } : { ...row, reachable: false, reason: verdict.reason };
  } catch (error) {
    return { ...row, reachable: false, reason: inPlainWords(error, { url: session.url, label: session.sessionId }) };
  }
}

function table(rows: PsRow[]): string[] {
  // A FORMATION column only when a formation runs: `<formation>/<member>`, `(entry)` after the entry member.
  const formations = rows.some((r) => r.formation);
  const header = ['NAME', 'VERSION', 'ADDRESS', 'SESSION', 'PID', ...(formations ? ['FORMATION'] : []), 'STATE'];
  const formationCell = (r: PsRow) => (r.formation ? `${r.formation.name}/${r.formation.member}${r.formation.entry ? ' (entry)' : ''}` : '-');
  const cells = rows.map((r) => [r.name, r.version, r.url, r.sessionId, String(r.pid), ...(formations ? [formationCell(r)] : []), r.reachable ? 'reachable' : `unreachable: ${r.reason}`]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]) => c.map((cell, i) => (i === c.length - 1 ? cell : cell.padEnd(widths[i]))).join('  ');
  return [line(header), ...cells.map(line)];
}

/**
 * mur ps: every session in the registry, each reachable or not. Records are listed, never pruned: a stale one (its
 * process gone) and an unreachable one (no answer, a card without supportedInterfaces, a card naming another
 * session) are listed with the reason.
 */
export async function ps(argv: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = withUsage(PS_USAGE, () => parseArgs({ args: argv, allowPositionals: true, options: { json: { type: 'boolean', default: false } } }));
  if (positionals.length > 0) throw new UsageError(`mur ps takes no arguments\n${PS_USAGE}`);
  const rows = await Promise.all(listSessions().map(probe));
  if (values.json) {
    io.out(JSON.stringify(rows));
    return 0;
  }
  if (rows.length === 0) {
    io.out('no session is registered on this host (mur run starts one)');
    return 0;
  }
  for (const line of table(rows)) io.out(line);
  return 0;
}
