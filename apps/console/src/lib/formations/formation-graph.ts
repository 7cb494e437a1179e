/**
 * The formation as a graph (docs/console.md, "The formation as a graph"): the members and delegated sub-capsules as
 * nodes, the calls and delegations between them aggregated into edges, each call nested in the call that started its
 * caller's task, each linked to its place in the caller's record. Pure: layout is graph-layout.ts's.
 */
import type { ConsoleFormation, ConsoleFormationDelegation, ConsoleMemberCall } from '@murmur/protocol';
import { doorKeyOfUrl } from '../door/door-address.js';
import { type Activity, callElapsedMs, callStatus, memberActivity } from './formations.js';
import { href } from '../routing/routes.js';
import { formatDuration } from '../time/time.js';

interface GraphNode {
  id: string;
  kind: 'member' | 'sub-capsule';
  name: string;
  /** The second line of its box: `entry · idle`, `working`, `delegated by lead`. */
  detail: string;
}

type EdgeKind = 'call' | 'delegation';

/** One call or delegation of an edge. */
export interface GraphCall {
  /** `mcl_…` or `dlg_…`. */
  id: string;
  status: Activity;
  ended: boolean;
  /** @unit ms */
  elapsedMs: number;
  startedAt: string;
  /** Its place in the caller's waterfall (the caller's task page at the tool call's entry). */
  place: string | null;
  /** The edge of the call that started the caller's task, when one did. */
  within: string | null;
}

export interface GraphEdge {
  /** `<from> → <to>`. */
  id: string;
  from: string;
  to: string;
  kind: EdgeKind;
  /** Newest start first. */
  calls: GraphCall[];
  /** `1 completed, 1 in flight`. */
  endings: string;
  /** The calls' elapsed times summed. @unit ms */
  inFlightMs: number;
  /** The edges its calls were made within, in first-seen order. */
  within: string[];
  /** The edge's one-line label: `2 calls · 1 completed, 1 in flight · 6.1 s`. */
  label: string;
}

export interface FormationGraph {
  /** Members in roster order, then sub-capsules in the order their first delegation started. */
  nodes: GraphNode[];
  /** In the order of their first call's start. */
  edges: GraphEdge[];
}

const subCapsuleId = (member: string, capsule: string) => `${member} ▸ ${capsule}`;
const edgeId = (from: string, to: string) => `${from} → ${to}`;
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

const DELEGATION_TONE: Partial<Record<ConsoleFormationDelegation['status'], Activity['tone']>> = { completed: 'ok', running: 'info' };

/** How the calls ended, each ending once with its count (completed first, in flight last, the others between). */
export function endingsText(calls: readonly Pick<GraphCall, 'ended' | 'status'>[]): string {
  const counts = new Map<string, number>();
  for (const call of calls) {
    const key = call.ended ? call.status.label : 'in flight';
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const rank = (k: string) => (k === 'completed' ? 0 : k === 'in flight' ? 2 : 1);
  return [...counts.entries()]
    .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');
}

/** The graph of one formation's records; `nowMs` counts the calls in flight. */
export function formationGraph(formation: ConsoleFormation, nowMs: number): FormationGraph {
  const doorOf = new Map(formation.members.map((m) => [m.member, doorKeyOfUrl(m.url)]));
  const placeOf = (caller: string, taskId: string, toolCallId: string | null) => {
    const door = doorOf.get(caller);
    if (!door) return null;
    return href(toolCallId ? { name: 'task', door, taskId, toolCall: toolCallId } : { name: 'task', door, taskId });
  };
  // A call's member task, to find the call that started a caller's task.
  const startedBy = new Map<string, ConsoleMemberCall>();
  for (const call of formation.calls) if (call.memberTaskId !== null) startedBy.set(call.memberTaskId, call);
  const withinOf = (taskId: string) => {
    const parent = startedBy.get(taskId);
    return parent ? edgeId(parent.caller, parent.callee) : null;
  };

  const nodes: GraphNode[] = formation.members.map((m) => {
    const activity = memberActivity(m, formation.calls).label;
    return { id: m.member, kind: 'member', name: m.member, detail: m.entry ? `entry · ${activity}` : activity };
  });
  const edges = new Map<string, Omit<GraphEdge, 'endings' | 'inFlightMs' | 'label'>>();
  const add = (from: string, to: string, kind: EdgeKind, call: GraphCall) => {
    const id = edgeId(from, to);
    let edge = edges.get(id);
    if (!edge) {
      edge = { id, from, to, kind, calls: [], within: [] };
      edges.set(id, edge);
    }
    edge.calls.push(call);
    if (call.within !== null && !edge.within.includes(call.within)) edge.within.push(call.within);
  };

  const byStart = <T extends { startedAt: string }>(items: readonly T[]) => [...items].sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  for (const call of byStart(formation.calls)) {
    add(call.caller, call.callee, 'call', {
      id: call.callId,
      status: callStatus(call),
      ended: call.ended,
      elapsedMs: callElapsedMs(call, nowMs),
      startedAt: call.startedAt,
      place: placeOf(call.caller, call.callerTaskId, call.toolCallId),
      within: withinOf(call.callerTaskId),
    });
  }
  // A source that reads no delegations may leave them out.
  for (const d of byStart(formation.delegations ?? [])) {
    const child = subCapsuleId(d.member, d.capsule);
    if (!nodes.some((n) => n.id === child)) nodes.push({ id: child, kind: 'sub-capsule', name: d.capsule, detail: `delegated by ${d.member}` });
    add(d.member, child, 'delegation', {
      id: d.delegationId,
      status: { label: d.status.replace(/_/g, ' '), tone: DELEGATION_TONE[d.status] ?? 'bad' },
      ended: d.ended,
      elapsedMs: d.ended ? (d.elapsedMs ?? 0) : Math.max(0, nowMs - Date.parse(d.startedAt)),
      startedAt: d.startedAt,
      place: placeOf(d.member, d.taskId, d.toolCallId),
      within: withinOf(d.taskId),
    });
  }

  return {
    nodes,
    edges: [...edges.values()].map((edge) => {
      const inFlightMs = edge.calls.reduce((sum, c) => sum + c.elapsedMs, 0);
      const endings = endingsText(edge.calls);
      const count = plural(edge.calls.length, edge.kind === 'call' ? 'call' : 'delegation');
      return { ...edge, calls: edge.calls.reverse(), endings, inFlightMs, label: `${count} · ${endings} · ${formatDuration(inFlightMs)}` };
    }),
  };
}

/** The label drawn on each edge: its own, named by its caller where its callee has more than one caller. */
export function shownLabels(edges: readonly Pick<GraphEdge, 'id' | 'from' | 'to' | 'label'>[]): Map<string, string> {
  const callers = new Map<string, number>();
  for (const e of edges) callers.set(e.to, (callers.get(e.to) ?? 0) + 1);
  return new Map(edges.map((e) => [e.id, (callers.get(e.to) ?? 0) > 1 ? `from ${e.from}: ${e.label}` : e.label]));
}
