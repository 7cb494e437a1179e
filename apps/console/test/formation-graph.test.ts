import type { ConsoleFormation, ConsoleFormationDelegation, ConsoleFormationMember, ConsoleMemberCall } from '@murmur/protocol';
import { describe, expect, it } from 'vitest';
import { endingsText, formationGraph, shownLabels } from '../src/lib/formations/formation-graph';
import { layoutGraph, rowsOf } from '../src/lib/formations/graph-layout';
import { entryOfToolCall } from '../src/lib/records/record-rows';
import { href, parseRoute } from '../src/lib/routing/routes';

const T0 = Date.parse('2026-12-01T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();

const member = (name: string, port: number, over: Partial<ConsoleFormationMember> = {}): ConsoleFormationMember => ({
  member: name,
  sessionId: `ses_${name}`,
  url: `http://127.0.0.1:${port}`,
  pid: port,
  entry: false,
  session: 'live',
  tasks: {},
  records: 'host',
  ...over,
});

const call = (over: Partial<ConsoleMemberCall> & Pick<ConsoleMemberCall, 'callId' | 'caller' | 'callee'>): ConsoleMemberCall => ({
  callerSessionId: `ses_${over.caller}`,
  callerTaskId: `tsk_${over.caller}`,
  calleeSessionId: `ses_${over.callee}`,
  memberTaskId: `tsk_${over.callee}_${over.callId}`,
  memberTaskState: 'TASK_STATE_COMPLETED',
  toolCallId: `call_${over.callId}`,
  status: 'completed',
  ended: true,
  offers: 1,
  startedAt: at(0),
  endedAt: at(1000),
  elapsedMs: 1000,
  ...over,
});

const delegation = (over: Partial<ConsoleFormationDelegation> = {}): ConsoleFormationDelegation => ({
  delegationId: 'dlg_1',
  member: 'worker',
  sessionId: 'ses_worker',
  taskId: 'tsk_worker_mcl_1',
  capsule: 'researcher',
  childSessionId: 'ses_child',
  childTaskId: 'tsk_child',
  toolCallId: 'call_d',
  status: 'completed',
  ended: true,
  startedAt: at(200),
  endedAt: at(700),
  elapsedMs: 500,
  ...over,
});

const formation = (calls: ConsoleMemberCall[], delegations: ConsoleFormationDelegation[] = []): ConsoleFormation => ({
  key: 'review-9',
  name: 'review',
  pid: 9,
  state: 'live',
  source: 'host',
  entry: 'planner',
  rosterFile: '/r/roster.yaml',
  startedAt: at(-5000),
  members: [member('planner', 4001, { entry: true }), member('worker', 4002), member('critic', 4003)],
  calls,
  delegations,
});

describe('formationGraph', () => {
  it('makes the members nodes in roster order, the entry and each state named, and no edge before any call', () => {
    const graph = formationGraph(formation([]), T0);
    expect(graph.nodes).toEqual([
      { id: 'planner', kind: 'member', name: 'planner', detail: 'entry · idle' },
      { id: 'worker', kind: 'member', name: 'worker', detail: 'idle' },
      { id: 'critic', kind: 'member', name: 'critic', detail: 'idle' },
    ]);
    expect(graph.edges).toEqual([]);
  });

  it('aggregates the calls of one pair into one edge: count, endings, time in flight, newest call first, each linked to its tool call', () => {
    const calls = [
      call({ callId: 'mcl_1', caller: 'planner', callee: 'worker', startedAt: at(0), elapsedMs: 6000 }),
      call({ callId: 'mcl_2', caller: 'planner', callee: 'worker', startedAt: at(7000), status: 'failed', elapsedMs: 500 }),
      call({ callId: 'mcl_3', caller: 'planner', callee: 'worker', startedAt: at(9000), status: 'running', ended: false, elapsedMs: null, endedAt: null }),
      call({ callId: 'mcl_4', caller: 'planner', callee: 'critic', startedAt: at(10), toolCallId: null, elapsedMs: 120 }),
    ];
    const graph = formationGraph(formation(calls), T0 + 11_000);
    expect(graph.edges.map((e) => e.id)).toEqual(['planner → worker', 'planner → critic']);
    const [toWorker, toCritic] = graph.edges;
    expect(toWorker.calls.map((c) => c.id)).toEqual(['mcl_3', 'mcl_2', 'mcl_1']);
    expect(toWorker.endings).toBe('1 completed, 1 failed, 1 in flight');
    // The call in flight counts up to now: 6 s + 0.5 s + 2 s.
    expect(toWorker.inFlightMs).toBe(8500);
    expect(toWorker.label).toBe('3 calls · 1 completed, 1 failed, 1 in flight · 8.5 s');
    expect(toWorker.calls[2].place).toBe('#/door/127.0.0.1:4001/tasks/tsk_planner?toolCall=call_mcl_1');
    expect(toWorker.within).toEqual([]);
    // A call whose tool call could not be told links to the caller's task.
    expect(toCritic.calls[0].place).toBe('#/door/127.0.0.1:4001/tasks/tsk_planner');
    expect(toCritic.label).toBe('1 call · 1 completed · 120 ms');
    expect(graph.nodes[0].detail).toBe('entry · waiting on 1 call');
  });

  it('nests a call made by a member task within the call that started that task, and a delegation likewise', () => {
    const outer = call({ callId: 'mcl_1', caller: 'planner', callee: 'worker', memberTaskId: 'tsk_w' });
    const nested = call({ callId: 'mcl_2', caller: 'worker', callee: 'critic', callerTaskId: 'tsk_w', startedAt: at(100) });
    const graph = formationGraph(
      formation(
        [outer, nested],
        [
          delegation({ taskId: 'tsk_w' }),
          delegation({ delegationId: 'dlg_2', taskId: 'tsk_other', status: 'running', ended: false, elapsedMs: null, endedAt: null, startedAt: at(900) }),
        ],
      ),
      T0 + 1900,
    );
    expect(graph.edges.map((e) => [e.id, e.kind, e.within])).toEqual([
      ['planner → worker', 'call', []],
      ['worker → critic', 'call', ['planner → worker']],
      ['worker → worker ▸ researcher', 'delegation', ['planner → worker']],
    ]);
    expect(graph.nodes.at(-1)).toEqual({ id: 'worker ▸ researcher', kind: 'sub-capsule', name: 'researcher', detail: 'delegated by worker' });
    const delegated = graph.edges[2];
    expect(delegated.label).toBe('2 delegations · 1 completed, 1 in flight · 1.5 s');
    expect(delegated.calls[0].place).toBe('#/door/127.0.0.1:4002/tasks/tsk_other?toolCall=call_d');
  });

  it('reads a formation whose source left delegations out', () => {
    const { delegations: _, ...without } = formation([call({ callId: 'mcl_1', caller: 'planner', callee: 'worker' })]);
    expect(formationGraph(without as ConsoleFormation, T0).edges).toHaveLength(1);
  });
});

describe('endingsText and shownLabels', () => {
  it('orders completed first, in flight last, the other endings between, alphabetically', () => {
    const s = (label: string, ended = true) => ({ ended, status: { label, tone: 'ok' as const } });
    expect(endingsText([s('timed out'), s('running', false), s('completed'), s('failed'), s('completed')])).toBe(
      '2 completed, 1 failed, 1 timed out, 1 in flight',
    );
  });
  it("names an edge's caller only where its callee has more than one", () => {
    const labels = shownLabels([
      { id: 'a → b', from: 'a', to: 'b', label: '1 call' },
      { id: 'a → c', from: 'a', to: 'c', label: '2 calls' },
      { id: 'b → c', from: 'b', to: 'c', label: '1 call' },
    ]);
    expect([...labels.values()]).toEqual(['1 call', 'from a: 2 calls', 'from b: 1 call']);
  });
});

describe('layoutGraph', () => {
  const nodes = ['planner', 'worker', 'critic', 'worker ▸ researcher'].map((id) => ({ id }));
  const edge = (from: string, to: string, label = 'x') => ({ id: `${from} → ${to}`, from, to, label });

  it('ranks by the longest chain above: a nested callee below its caller, a sub-capsule below its delegator; the uncalled on top', () => {
    expect(Object.fromEntries(rowsOf(nodes, []))).toEqual({ planner: 0, worker: 0, critic: 0, 'worker ▸ researcher': 0 });
    const edges = [edge('planner', 'worker'), edge('planner', 'critic'), edge('worker', 'critic'), edge('worker', 'worker ▸ researcher')];
    expect(Object.fromEntries(rowsOf(nodes, edges))).toEqual({ planner: 0, worker: 1, critic: 2, 'worker ▸ researcher': 2 });
  });

  it('draws every edge downward from the caller to the callee, its label just above the callee, stacked where a callee has two', () => {
    const edges = [edge('planner', 'worker', 'one'), edge('planner', 'critic', 'two'), edge('worker', 'critic', 'three')];
    const layout = layoutGraph(nodes.slice(0, 3), edges);
    const node = (id: string) => layout.nodes.find((n) => n.id === id)!;
    expect(layout.edges.every((e) => !e.upward)).toBe(true);
    for (const e of edges) {
      const placed = layout.edges.find((p) => p.id === e.id)!;
      const [from, to] = [node(e.from), node(e.to)];
      expect(from.y).toBeLessThan(to.y);
      expect(placed.d.startsWith(`M ${placed.d.split(' ')[1]} ${from.y + layout.nodeHeight} `)).toBe(true);
      expect(placed.d.endsWith(` ${to.y}`)).toBe(true);
      expect(placed.labelY).toBeLessThan(to.y);
      expect(placed.labelY).toBeGreaterThan(from.y + layout.nodeHeight);
    }
    const [toCritic, fromWorker] = [layout.edges[1], layout.edges[2]];
    expect(toCritic.labelX).toBe(fromWorker.labelX);
    expect(Math.abs(toCritic.labelY - fromWorker.labelY)).toBeGreaterThanOrEqual(16);
    // Everything is inside the drawing.
    for (const n of layout.nodes) {
      expect(n.x).toBeGreaterThanOrEqual(0);
      expect(n.x + layout.nodeWidth).toBeLessThanOrEqual(layout.width);
      expect(n.y + layout.nodeHeight).toBeLessThanOrEqual(layout.height);
    }
  });

  it('keeps siblings in their callers’ order and spaces columns by the widest label, so labels of one row never overlap', () => {
    const long = 'from planner: 12 calls · 11 completed, 1 in flight · 1 min 2 s';
    const layout = layoutGraph(nodes.slice(0, 3), [edge('planner', 'critic', long), edge('planner', 'worker', long)]);
    const [worker, critic] = [layout.nodes.find((n) => n.id === 'worker')!, layout.nodes.find((n) => n.id === 'critic')!];
    // Row 1 keeps roster order (both have the same caller).
    expect(worker.x).toBeLessThan(critic.x);
    expect(critic.x - worker.x).toBeGreaterThan(long.length * 6);
  });

  it('draws an edge closing a cycle upward instead of breaking the ranking', () => {
    const layout = layoutGraph(nodes.slice(0, 2), [edge('planner', 'worker'), edge('worker', 'planner')]);
    expect(layout.nodes.map((n) => n.row)).toEqual([0, 1]);
    expect(layout.edges.map((e) => e.upward)).toEqual([false, true]);
  });

  it('leaves out an edge to a node it does not know', () => {
    expect(layoutGraph(nodes.slice(0, 1), [edge('planner', 'ghost')]).edges).toEqual([]);
  });
});

describe('the ?toolCall= link', () => {
  it('round-trips through the route and finds its tool-call entry in the record', () => {
    const route = parseRoute('#/door/127.0.0.1:4001/tasks/tsk_1?toolCall=call_7');
    expect(route).toEqual({ name: 'task', door: '127.0.0.1:4001', taskId: 'tsk_1', toolCall: 'call_7' });
    expect(href(route)).toBe('#/door/127.0.0.1:4001/tasks/tsk_1?toolCall=call_7');
    expect(parseRoute('#/door/h%3A1/tasks/tsk_1?entry=2&toolCall=call_7')).toEqual({ name: 'task', door: 'h:1', taskId: 'tsk_1', entry: 2 });
    const entry = (toolCallId: string) => ({ kind: 'tool-call', toolCallId }) as never;
    const entries = [{ kind: 'input' } as never, entry('call_6'), entry('call_7')];
    expect(entryOfToolCall(entries, 'call_7')).toBe(2);
    expect(entryOfToolCall(entries, 'call_9')).toBeUndefined();
    expect(entryOfToolCall(entries, undefined)).toBeUndefined();
  });
});
