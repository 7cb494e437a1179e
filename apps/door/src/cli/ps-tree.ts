/**
 * How `mur ps` nests sessions (docs/cli.md, "mur ps"): a formation's members under one formation line, in roster
 * order, and a delegated sub-capsule under the session that delegated to it.
 */

/** The part of a ps row the tree reads. */
export interface TreeRow {
  sessionId: string;
  formation?: { name: string; member: string; entry: boolean };
  parent?: { sessionId: string; delegationId: string };
}

/** A formation as its supervisor registered it: the order of its members, and the supervisor's pid. */
export interface FormationOrder {
  name: string;
  pid: number;
  entry: string;
  members: readonly string[];
}

export type TreeLine<R> =
  | { kind: 'formation'; name: string; members: number; entry: string | null; supervisorPid: number | null }
  | { kind: 'session'; row: R; prefix: string };

/**
 * The rows in tree order, each with the prefix its NAME cell carries (`├─ `, `└─ `, `│  `), and one line per formation
 * before its members. A child whose parent is not listed is a root of its own; its `parent` still names the parent.
 */
export function psTree<R extends TreeRow>(rows: readonly R[], formations: readonly FormationOrder[]): TreeLine<R>[] {
  const listed = new Set(rows.map((r) => r.sessionId));
  const children = new Map<string, R[]>();
  for (const row of rows) {
    if (!row.parent || !listed.has(row.parent.sessionId) || row.parent.sessionId === row.sessionId) continue;
    const siblings = children.get(row.parent.sessionId) ?? [];
    siblings.push(row);
    children.set(row.parent.sessionId, siblings);
  }
  const isChild = (row: R) => row.parent !== undefined && listed.has(row.parent.sessionId) && row.parent.sessionId !== row.sessionId;
  const lines: TreeLine<R>[] = [];
  const seen = new Set<string>();
  const descend = (row: R, prefix: string, indent: string) => {
    if (seen.has(row.sessionId)) return;
    seen.add(row.sessionId);
    lines.push({ kind: 'session', row, prefix });
    const kids = children.get(row.sessionId) ?? [];
    kids.forEach((kid, i) => {
      const last = i === kids.length - 1;
      descend(kid, `${indent}${last ? '└─ ' : '├─ '}`, `${indent}${last ? '   ' : '│  '}`);
    });
  };
  const done = new Set<string>();
  for (const row of rows) {
    if (isChild(row)) continue;
    if (!row.formation) {
      descend(row, '', '');
      continue;
    }
    const name = row.formation.name;
    if (done.has(name)) continue;
    done.add(name);
    const order = formations.find((f) => f.name === name);
    const rank = (r: R) => {
      const at = order?.members.indexOf(r.formation!.member) ?? -1;
      return at < 0 ? Number.MAX_SAFE_INTEGER : at;
    };
    const members = rows
      .filter((r) => !isChild(r) && r.formation?.name === name)
      .sort((a, b) => rank(a) - rank(b) || a.formation!.member.localeCompare(b.formation!.member));
    const entry = members.find((m) => m.formation?.entry)?.formation?.member ?? order?.entry ?? null;
    lines.push({ kind: 'formation', name, members: members.length, entry, supervisorPid: order?.pid ?? null });
    members.forEach((member, i) => {
      const last = i === members.length - 1;
      descend(member, last ? '└─ ' : '├─ ', last ? '   ' : '│  ');
    });
  }
  // A cycle of parents (records that name each other) leaves rows unvisited: they are listed as roots.
  for (const row of rows) if (!seen.has(row.sessionId)) descend(row, '', '');
  return lines;
}
