import { parseArgs } from 'node:util';
import { listFormations, listSessions, type SessionEntry } from '../session/session-registry.js';
import { checkCard, clientFor, type CommandIo, fetchCard, inPlainWords, withUsage } from './client-command-support.js';
import { pruneRegistry } from './prune-registry.js';
import { type FormationOrder, psTree } from './ps-tree.js';
import type { Line } from './terminal-lines.js';
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
  /** Present only for a delegated sub-capsule: the session that delegated to it, and the delegation. */
  parent?: { sessionId: string; delegationId: string };
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
    ...(session.delegation ? { parent: { sessionId: session.delegation.parentSessionId, delegationId: session.delegation.delegationId } } : {}),
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

/** A session's NAME cell: its tree prefix, a member's roster name (and capsule name when they differ), a child's delegation. */
function nameCell(r: PsRow, prefix: string): string {
  const name = r.formation ? `${r.formation.member}${r.formation.member === r.name ? '' : `: ${r.name}`}${r.formation.entry ? ' (entry)' : ''}` : r.name;
  return `${prefix}${name}${r.parent ? ` (delegation ${r.parent.delegationId})` : ''}`;
}

function table(rows: PsRow[], formations: readonly FormationOrder[]): Line[] {
  const lines = psTree(rows, formations);
  const header = ['NAME', 'VERSION', 'ADDRESS', 'SESSION', 'PID', 'STATE'];
  const cells = lines.map((l) =>
    l.kind === 'formation'
      ? null
      : [
          nameCell(l.row, l.prefix),
          l.row.version,
          l.row.url,
          l.row.sessionId,
          String(l.row.pid),
          l.row.reachable ? 'reachable' : `unreachable: ${l.row.reason}`,
        ],
  );
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c === null ? 0 : c[i].length))));
  const line = (c: string[]) => c.map((cell, i) => (i === c.length - 1 ? cell : cell.padEnd(widths[i]))).join('  ');
  // A session's STATE, painted: reachable or not (docs/cli.md, "Colour").
  const sessionLine = (c: string[], reachable: boolean): Line => [
    `${line([...c.slice(0, -1), ''])}`,
    { text: c[c.length - 1]!, tone: reachable ? 'good' : 'bad' },
  ];
  // A formation's own line, above its members: its name, size, entry and supervisor.
  const formationLine = (l: Extract<(typeof lines)[number], { kind: 'formation' }>) =>
    `formation ${l.name}: ${l.members} member${l.members === 1 ? '' : 's'}${l.entry === null ? '' : `, entry ${l.entry}`}${l.supervisorPid === null ? '' : `, supervisor pid ${l.supervisorPid}`}`;
  return [line(header), ...lines.map((l, i) => (l.kind === 'formation' ? formationLine(l) : sessionLine(cells[i]!, l.row.reachable)))];
}

/** The running formations' member order, from the supervisors' records. */
function formationOrders(formations: ReturnType<typeof listFormations>): FormationOrder[] {
  return formations.filter((f) => !f.stale).map((f) => ({ name: f.name, pid: f.pid, entry: f.entry, members: f.members.map((m) => m.member) }));
}

/**
 * mur ps: every session in the registry, each reachable or not, with the reason when not (no answer, a card without
 * supportedInterfaces, a card naming another session, its process gone). A stale entry (its process gone) is listed
 * this once and removed, as a stale formation's entry is (docs/cli.md, "Stale registry entries"); every other entry
 * is kept.
 */
export async function ps(argv: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = withUsage(PS_USAGE, () =>
    parseArgs({ args: argv, allowPositionals: true, options: { json: { type: 'boolean', default: false } } }),
  );
  if (positionals.length > 0) throw new UsageError(`mur ps takes no arguments\n${PS_USAGE}`);
  const sessions = listSessions();
  const registered = listFormations();
  const pruned = new Set(pruneRegistry({ sessions, formations: registered }).sessions.map((s) => s.sessionId));
  const probed = (await Promise.all(sessions.map(probe))).map((r) =>
    pruned.has(r.sessionId) ? { ...r, reason: `${r.reason}: removed from the registry` } : r,
  );
  const formations = formationOrders(registered);
  // Tree order: a formation's members together in roster order, each delegated sub-capsule after its parent.
  const rows = psTree(probed, formations).flatMap((l) => (l.kind === 'session' ? [l.row] : []));
  if (values.json) {
    io.out(JSON.stringify(rows));
    return 0;
  }
  if (rows.length === 0) {
    io.out('no session is registered on this host (mur run starts one)');
    return 0;
  }
  for (const line of table(rows, formations)) io.out(line);
  return 0;
}
