/**
 * OpenTelemetry export (docs/telemetry.md): spans received on a local OTLP/HTTP endpoint and decoded from protobuf —
 * the task span, its inference and tool-call children with token counts, timing order, a caller's traceparent
 * continued, a formation member's task joined to its caller's trace, and a collector that never answers neither
 * blocking a task nor holding the door open.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type DoorProcess, makeCapsule, manifestYaml, runDoor, tempDir } from './support/door-process.js';
import { forkMember, makeFormation, memberManifest, nextMessage, runFormation } from './support/formation.js';
import { type Collector, type OtlpSpan, startCollector } from './support/otlp.js';
import { rpc, userMessage, waitFor } from './support/rpc.js';
import { openStream } from './support/sse.js';

const SCRIPT = `
rules:
  - match: '^work$'
    turns:
      - usage: { input: 120, output: 7, cached: 100 }
        tools:
          - tool: bash
            input: { command: "echo hi" }
      - usage: { input: 300, output: 11 }
        tools:
          - tool: bash
            input: { command: "exit 3" }
          - tool: nosuchtool
            input: {}
      - usage: { input: 310, output: 4, reasoning: 2 }
        thinking: ["adding up"]
        answer: "done"
default:
  turns:
    - answer: "plain"
`;

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';
const TRACESTATE = 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7';

const doors: DoorProcess[] = [];
const collectors: Collector[] = [];
after(async () => {
  await Promise.all(doors.map((d) => d.stop('SIGKILL')));
  await Promise.all(collectors.map((c) => c.close()));
});

async function collector(opts: { hang?: boolean } = {}): Promise<Collector> {
  const c = await startCollector(opts);
  collectors.push(c);
  return c;
}

async function door(endpoint: string): Promise<DoorProcess> {
  const d = await runDoor(makeCapsule(manifestYaml({ name: 'otel-capsule' }), SCRIPT), [], tempDir('home'), { env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint } });
  doors.push(d);
  return d;
}

const ms = (ns: bigint) => Number(ns / 1_000_000n);
const traceRecords = (dir: string) =>
  readFileSync(path.join(dir, 'trace.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('spans of one task on a live collector', () => {
  let c: Collector;
  let taskId: string;
  let spans: OtlpSpan[];
  before(async () => {
    c = await collector();
    const d = await door(c.url);
    const answer = await rpc(d.url, 'SendMessage', { message: userMessage('work') }, { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` });
    taskId = answer.json.result.task.id;
    assert.equal(answer.json.result.task.status.state, 'TASK_STATE_COMPLETED');
    spans = await waitFor(async () => {
      const task = c.spans.find((s) => s.attributes['murmur.task.id'] === taskId && s.name.startsWith('invoke_agent'));
      return task ? c.spans.filter((s) => s.traceId === task.traceId) : undefined;
    }, 'the task span at the collector');
  });

  test('OTLP/HTTP protobuf to /v1/traces (and /v1/metrics)', () => {
    assert.ok(c.requests.some((r) => r.path === '/v1/traces'));
    for (const r of c.requests) {
      assert.ok(['/v1/traces', '/v1/metrics'].includes(r.path), r.path);
      assert.equal(r.contentType, 'application/x-protobuf');
    }
  });

  test('the task span continues the caller’s traceparent and says what the task was', () => {
    const task = spans.find((s) => s.name === 'invoke_agent otel-capsule')!;
    assert.ok(task, spans.map((s) => s.name).join(', '));
    const server = spans.find((s) => s.name === 'SendMessage' && s.kind === 2)!;
    assert.ok(server, 'the SendMessage a2a.server span');
    assert.deepEqual([server.traceId, server.parentSpanId], [TRACE_ID, PARENT_ID]);
    assert.equal(task.traceId, TRACE_ID);
    assert.equal(task.parentSpanId, server.spanId, 'the task continues the request’s server span');
    assert.equal(task.kind, 1, 'INTERNAL: the convention’s invoke agent internal span');
    assert.equal(task.attributes['gen_ai.operation.name'], 'invoke_agent');
    assert.equal(task.attributes['murmur.task.state'], 'TASK_STATE_COMPLETED');
    assert.equal(task.attributes['murmur.task.turns'], 3);
    assert.match(String(task.attributes['gen_ai.conversation.id']), /^ctx_/);
    assert.equal(task.status.code, 0);
    assert.equal(task.resource['service.name'], 'otel-capsule');
    assert.match(String(task.resource['murmur.session.id']), /^ses_/);
  });

  test('three inference children with their token counts, three tool-call children with status and exit code', () => {
    const task = spans.find((s) => s.name.startsWith('invoke_agent'))!;
    const chats = spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'chat').sort((a, b) => Number(a.startNs - b.startNs));
    const tools = spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'execute_tool').sort((a, b) => Number(a.startNs - b.startNs));
    assert.equal(chats.length, 3);
    assert.equal(tools.length, 3);
    for (const child of [...chats, ...tools]) assert.equal(child.parentSpanId, task.spanId, child.name);
    assert.deepEqual(
      chats.map((s) => [s.attributes['murmur.turn'], s.attributes['gen_ai.usage.input_tokens'], s.attributes['gen_ai.usage.output_tokens']]),
      [
        [1, 120, 7],
        [2, 300, 11],
        [3, 310, 4],
      ],
    );
    assert.equal(chats[0].attributes['gen_ai.usage.cache_read.input_tokens'], 100);
    assert.deepEqual(chats[0].attributes['gen_ai.response.finish_reasons'], ['tool_use']);
    assert.equal(chats[0].kind, 3, 'CLIENT');
    // Reasoning tokens, when reported (the third turn's usage says 2), and the time to the first streamed chunk
    // (the third turn streams its thinking; the first two stream nothing) in seconds, within the call.
    assert.deepEqual(
      chats.map((s) => s.attributes['gen_ai.usage.reasoning.output_tokens']),
      [undefined, undefined, 2],
    );
    assert.deepEqual(
      chats.map((s) => s.attributes['gen_ai.request.stream']),
      [true, true, true],
    );
    assert.deepEqual(
      chats.slice(0, 2).map((s) => s.attributes['gen_ai.response.time_to_first_chunk']),
      [undefined, undefined],
    );
    const firstChunk = chats[2].attributes['gen_ai.response.time_to_first_chunk'];
    assert.equal(typeof firstChunk, 'number');
    assert.ok((firstChunk as number) >= 0 && (firstChunk as number) <= Number(chats[2].endNs - chats[2].startNs) / 1e9, `${firstChunk} s`);
    for (const chat of chats) assert.equal(chat.attributes['murmur.first_token_ms'], undefined, 'the convention’s name replaces murmur.first_token_ms');
    assert.deepEqual(
      tools.map((s) => [s.name, s.attributes['murmur.tool.status'], s.attributes['murmur.tool.exit_code'], s.status.code]),
      [
        ['execute_tool bash', 'passed', 0, 0],
        ['execute_tool bash', 'passed', 3, 0],
        ['execute_tool nosuchtool', 'error', undefined, 2],
      ],
    );
    assert.match(String(tools[0].attributes['gen_ai.tool.call.id']), /.+/);
  });

  test('timing: each child inside the task, in the order the loop ran them', () => {
    const task = spans.find((s) => s.name.startsWith('invoke_agent'))!;
    const children = spans.filter((s) => s.parentSpanId === task.spanId).sort((a, b) => Number(a.startNs - b.startNs));
    assert.deepEqual(
      children.map((s) => s.attributes['gen_ai.operation.name']),
      ['chat', 'execute_tool', 'chat', 'execute_tool', 'execute_tool', 'chat'],
    );
    let at = task.startNs;
    for (const s of children) {
      assert.ok(s.startNs >= at, `${s.name} starts after what came before it`);
      assert.ok(s.endNs >= s.startNs, `${s.name} ends after it starts`);
      at = s.endNs;
    }
    assert.ok(task.endNs >= at, 'the task ends after its last child');
    // Times are Unix nanoseconds (trace.proto): a start read as milliseconds lands after 2020, not in 1970 or 50,000 years on.
    assert.ok(ms(task.startNs) > Date.UTC(2020, 0, 1) && ms(task.startNs) <= Date.now(), `start ${task.startNs} ns`);
  });
});

describe('a plan: one invoke_workflow span under its submit-plan call, a child per step', () => {
  test('the workflow span (gen_ai.operation.name invoke_workflow) holds its steps in order, a failed one ERROR, a skipped one too; gen_ai.workflow.duration', async () => {
    const c = await collector();
    const manifest = [manifestYaml({ name: 'otel-planner' }).trimEnd(), '  plan:', '    submit: true', ''].join('\n');
    const steps = [
      { id: 'one', tool: 'bash', input: { command: 'echo one' } },
      { id: 'two', tool: 'bash', input: { command: 'exit 4' } },
      { id: 'three', tool: 'bash', input: { command: 'true' } },
    ];
    const script = `default:\n  turns:\n    - tools:\n        - tool: submit-plan\n          input: ${JSON.stringify({ steps })}\n      answer: planned\n`;
    const d = await runDoor(makeCapsule(manifest, script), [], tempDir('home'), { env: { OTEL_EXPORTER_OTLP_ENDPOINT: c.url } });
    doors.push(d);
    const answer = await rpc(d.url, 'SendMessage', { message: userMessage('plan it') });
    const taskId = answer.json.result.task.id;
    const spans = await waitFor(async () => {
      const task = c.spans.find((s) => s.attributes['murmur.task.id'] === taskId && s.name.startsWith('invoke_agent'));
      return task ? c.spans.filter((s) => s.traceId === task.traceId) : undefined;
    }, 'the task span at the collector');
    const call = spans.find((s) => s.name === 'execute_tool submit-plan')!;
    const plan = spans.find((s) => s.attributes['gen_ai.operation.name'] === 'invoke_workflow')!;
    assert.equal(plan.name, 'invoke_workflow submit-plan');
    assert.equal(plan.kind, 1, 'INTERNAL');
    assert.equal(plan.parentSpanId, call.spanId, 'the plan is a child of its submit-plan call');
    assert.deepEqual(
      [
        plan.attributes['gen_ai.workflow.name'],
        plan.attributes['murmur.plan.steps'],
        plan.attributes['murmur.plan.status'],
        plan.attributes['error.type'],
        plan.status.code,
      ],
      ['submit-plan', 3, 'stopped', 'stopped', 2],
    );
    assert.equal(plan.attributes['murmur.plan.call_id'], call.attributes['gen_ai.tool.call.id']);
    const children = spans.filter((s) => s.parentSpanId === plan.spanId).sort((a, b) => Number(a.startNs - b.startNs));
    assert.deepEqual(
      children.map((s) => [
        s.name,
        s.attributes['murmur.plan.step'],
        s.attributes['murmur.plan.step.status'],
        s.attributes['murmur.tool.exit_code'],
        s.status.code,
      ]),
      [
        ['execute_tool bash', 'one', 'passed', 0, 0],
        ['execute_tool bash', 'two', 'failed', 4, 2],
        ['execute_tool bash', 'three', 'skipped', undefined, 0],
      ],
    );
    for (const child of children)
      assert.ok(child.startNs >= plan.startNs && child.endNs <= plan.endNs, `${child.attributes['murmur.plan.step']} inside the plan`);
    assert.ok(plan.startNs >= call.startNs && plan.endNs <= call.endNs, 'the plan inside its call');
    // Stopping the door flushes its last metrics export: the workflow's duration, with its name and error.
    await d.stop('SIGTERM');
    const workflow = await waitFor(async () => c.metrics.find((m) => m.metric === 'gen_ai.workflow.duration'), 'the workflow metric');
    assert.deepEqual([workflow.unit, workflow.count, workflow.attributes], ['s', 1n, { 'gen_ai.workflow.name': 'submit-plan', 'error.type': 'stopped' }]);
  });
});

describe('an event stream’s server span', () => {
  test('SendStreamingMessage: the task the stream opened with and the last state it wrote', async () => {
    const c = await collector();
    const d = await door(c.url);
    // A message that references tasks (a2a.message.reference_task_ids; the door reads the ids as hints only).
    const references = ['tsk_019f01a940ce7761854e768ecbe3d399', 'tsk_019f01a940ce7761854e768ecbe3d39a'];
    const answer = await rpc(
      d.url,
      'SendStreamingMessage',
      { message: userMessage('plain', { referenceTaskIds: references }) },
      { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` },
    );
    assert.equal(answer.status, 200);
    const task = await waitFor(async () => c.spans.find((s) => s.name === 'invoke_agent otel-capsule'), 'the streamed task’s span');
    const server = await waitFor(async () => c.spans.find((s) => s.name === 'SendStreamingMessage' && s.kind === 2), 'the stream’s server span');
    assert.equal(task.parentSpanId, server.spanId);
    assert.deepEqual(
      [server.attributes['a2a.task.id'], server.attributes['a2a.task.state'], server.attributes['gen_ai.conversation.id']],
      [task.attributes['murmur.task.id'], 'TASK_STATE_COMPLETED', task.attributes['gen_ai.conversation.id']],
    );
    assert.deepEqual(server.attributes['a2a.message.reference_task_ids'], references);
    // The agent, as this door's own card describes it (a2a.md: the server span's gen_ai.agent.* from the local card).
    const card = (await (await fetch(`${d.url}/.well-known/agent-card.json`)).json()) as { name: string; version: string; description: string };
    assert.deepEqual(
      [server.attributes['gen_ai.agent.name'], server.attributes['gen_ai.agent.version'], server.attributes['gen_ai.agent.description']],
      [card.name, card.version, card.description],
    );
    assert.equal(task.attributes['gen_ai.agent.description'], card.description);
  });
});

describe('an event stream’s server span, through a pause for input', () => {
  test('SubscribeToTask: the task it opened with (INPUT_REQUIRED) and the last state it wrote (COMPLETED)', async () => {
    const c = await collector();
    const script =
      'rules:\n  - match: \'^ask\'\n    turns:\n      - tools:\n          - tool: request-input\n            input: { prompt: "Which branch?" }\n        answer: "got {{tool.stdout}}"\ndefault:\n  turns:\n    - answer: plain\n';
    const d = await runDoor(makeCapsule(manifestYaml({ name: 'otel-asker', extra: '  request_input: true\n' }), script), [], tempDir('home'), {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: c.url },
    });
    doors.push(d);
    const waiting = (await rpc(d.url, 'SendMessage', { message: userMessage('ask') })).json.result.task;
    assert.equal(waiting.status.state, 'TASK_STATE_INPUT_REQUIRED');
    const stream = await openStream(d.url, 'SubscribeToTask', { id: waiting.id });
    try {
      const reply = await rpc(d.url, 'SendMessage', { message: userMessage('main', { taskId: waiting.id, contextId: waiting.contextId }) });
      assert.equal(reply.json.result.task.status.state, 'TASK_STATE_COMPLETED');
      await stream.waitForEnd(15_000);
      const server = await waitFor(async () => c.spans.find((s) => s.name === 'SubscribeToTask' && s.kind === 2), 'the subscription’s server span', 15_000);
      assert.deepEqual(
        [server.attributes['a2a.task.id'], server.attributes['a2a.task.state'], server.attributes['gen_ai.conversation.id'], server.status.code],
        [waiting.id, 'TASK_STATE_COMPLETED', waiting.contextId, 0],
      );
    } finally {
      stream.abort();
    }
  });
});

describe('a collector that never answers', () => {
  test('tasks complete while an export is held unanswered, and the door still closes', async () => {
    const c = await collector({ hang: true });
    // An export may wait ten minutes here: only the door's own budget can end what the collector holds.
    const d = await runDoor(makeCapsule(manifestYaml({ name: 'otel-capsule' }), SCRIPT), [], tempDir('home'), {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: c.url, OTEL_EXPORTER_OTLP_TIMEOUT: '600000' },
    });
    doors.push(d);
    const first = await rpc(d.url, 'SendMessage', { message: userMessage('work') });
    assert.equal(first.json.result.task.status.state, 'TASK_STATE_COMPLETED');
    await waitFor(async () => (c.held() > 0 ? true : undefined), 'an export the collector holds', 15_000);
    for (let i = 0; i < 3; i++) {
      const answer = await rpc(d.url, 'SendMessage', { message: userMessage('work') });
      assert.equal(answer.json.result.task.status.state, 'TASK_STATE_COMPLETED');
      assert.ok(c.held() > 0, `task ${i + 1} answered while the collector still held an export`);
    }
    // Closing gives the flush its 2 s budget and no more: the held export is abandoned, not awaited.
    const exit = await d.stop();
    assert.equal(exit.code, 0);
  });

  test('nothing listening: tasks complete', async () => {
    const c = await collector();
    const url = c.url;
    await c.close();
    const d = await door(url);
    const answer = await rpc(d.url, 'SendMessage', { message: userMessage('work') });
    assert.equal(answer.json.result.task.status.state, 'TASK_STATE_COMPLETED');
  });
});

describe('a formation member’s task joins its caller’s trace', () => {
  test('the member’s task span is a child of the caller’s call-member span, with the caller’s tracestate forwarded', async () => {
    const c = await collector();
    const roster = makeFormation(
      'name: traced\nentry: planner\nmembers:\n  planner: { capsule: ./planner }\n  worker: { capsule: ./worker }\nrules:\n  - from: planner\n    to: [worker]\n',
      {
        planner: {
          manifest: memberManifest('planner'),
          script:
            'rules:\n  - match: ^go\n    turns:\n      - tools:\n          - tool: call-member\n            input: { member: worker, task: "hello" }\n        answer: waiting\n      - answer: "{{continuation}}"\ndefault:\n  turns:\n    - answer: x\n',
        },
        worker: { manifest: memberManifest('worker', { callee: true }), script: 'default:\n  turns:\n    - answer: "worker: {{task.text}}"\n' },
      },
    );
    const formation = await runFormation(roster, tempDir('home'), [], { OTEL_EXPORTER_OTLP_ENDPOINT: c.url });
    try {
      const answer = await rpc(
        formation.member('planner').url,
        'SendMessage',
        { message: userMessage('go') },
        { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01`, tracestate: TRACESTATE },
      );
      assert.equal(answer.json.result.task.status.state, 'TASK_STATE_COMPLETED');
      const [planner, call, member] = await waitFor(
        async () => {
          const plannerTask = c.spans.find((s) => s.name === 'invoke_agent planner');
          const callSpan = c.spans.find((s) => s.name === 'execute_tool call-member');
          const memberTask = c.spans.find((s) => s.name === 'invoke_agent worker');
          return plannerTask && callSpan && memberTask ? [plannerTask, callSpan, memberTask] : undefined;
        },
        'the call-member span and the worker’s task span',
        15_000,
      );
      // The planner calls members: a task from outside runs the formation as a workflow, under the request's server span.
      const workflow = c.spans.find((s) => s.spanId === planner.parentSpanId)!;
      assert.deepEqual([workflow.name, workflow.kind, workflow.attributes['gen_ai.workflow.name']], ['invoke_workflow traced', 1, 'traced']);
      const entry = c.spans.find((s) => s.spanId === workflow.parentSpanId)!;
      assert.deepEqual(
        [entry.name, entry.kind, entry.parentSpanId],
        ['SendMessage', 2, PARENT_ID],
        'the formation’s workflow continues its request’s server span',
      );
      assert.ok(workflow.startNs <= planner.startNs && workflow.endNs >= planner.endNs, 'the workflow holds the planner’s task');
      assert.deepEqual([planner.traceId, planner.traceState], [TRACE_ID, TRACESTATE]);
      assert.equal(call.parentSpanId, planner.spanId);
      // invoke_agent planner → execute_tool call-member → SendMessage (client) → SendMessage (worker's server) → invoke_agent worker
      const client = c.spans.find((s) => s.name === 'SendMessage' && s.kind === 3 && s.parentSpanId === call.spanId)!;
      assert.ok(client, 'the offer’s a2a.client span under the call-member span');
      const server = c.spans.find((s) => s.kind === 2 && s.parentSpanId === client.spanId)!;
      assert.ok(server, 'the worker’s a2a.server span under the offer’s client span');
      assert.equal(server.resource['service.name'], 'worker');
      assert.equal(member.traceId, TRACE_ID);
      assert.equal(member.parentSpanId, server.spanId);
      assert.equal(member.traceState, TRACESTATE, 'the caller’s tracestate travelled with the call');
      assert.equal(member.kind, 1);
      assert.equal(member.resource['service.name'], 'worker');
      // The worker's task start keeps the context it continued: its SendMessage server span, with the tracestate.
      const start = traceRecords(formation.member('worker').recordsDir).find((r) => r.type === 'task_start')!;
      assert.deepEqual([start.traceparent, start.tracestate], [`00-${TRACE_ID}-${server.spanId}-01`, TRACESTATE]);
    } finally {
      formation.mur.kill();
    }
  });

  test('a request without a tracestate sends none on; one that is not printable ASCII is dropped', async () => {
    const c = await collector();
    const d = await door(c.url);
    await rpc(d.url, 'SendMessage', { message: userMessage('plain') }, { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01`, tracestate: 'bad=\u00e9t\u00e9' });
    await rpc(d.url, 'SendMessage', { message: userMessage('plain') }, { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` });
    const starts = await waitFor(async () => {
      const found = traceRecords(d.recordsDir).filter((r) => r.type === 'task_start');
      return found.length === 2 ? found : undefined;
    }, 'two task starts');
    for (const start of starts) {
      // The context the task continued: the request's SendMessage server span, in the caller's trace.
      assert.match(String(start.traceparent), new RegExp(`^00-${TRACE_ID}-(?!${PARENT_ID})[0-9a-f]{16}-01$`));
      assert.equal(start.tracestate, undefined);
    }
  });
});

describe('a delegation’s child continues the delegate-task call’s trace', () => {
  test('the child’s task span is a child of the parent’s delegate-task span, with the tracestate', async () => {
    const c = await collector();
    const root = tempDir('delegation');
    for (const [name, script, extra] of [
      [
        'parent',
        'default:\n  turns:\n    - tools:\n        - tool: delegate-task\n          input: { capsule: helper, task: "sub" }\n      answer: waiting\n    - answer: "{{continuation}}"\n',
        '  spawn:\n    allow: [../helper]\n',
      ],
      ['helper', 'default:\n  turns:\n    - answer: HELPED\n', ''],
    ] as const) {
      mkdirSync(path.join(root, name));
      writeFileSync(path.join(root, name, 'murmur.yaml'), manifestYaml({ name, extra }));
      writeFileSync(path.join(root, name, 'script.yaml'), script);
    }
    const d = await runDoor(path.join(root, 'parent'), [], tempDir('home'), { env: { OTEL_EXPORTER_OTLP_ENDPOINT: c.url } });
    doors.push(d);
    const answer = await rpc(d.url, 'SendMessage', { message: userMessage('go') }, { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01`, tracestate: TRACESTATE });
    assert.equal(answer.json.result.task.status.state, 'TASK_STATE_COMPLETED');
    assert.match(answer.json.result.task.artifacts[0].parts[0].text, /HELPED/);
    const [parent, call, child] = await waitFor(
      async () => {
        const parentTask = c.spans.find((s) => s.name === 'invoke_agent parent');
        const callSpan = c.spans.find((s) => s.name === 'execute_tool delegate-task');
        const childTask = c.spans.find((s) => s.name === 'invoke_agent helper');
        return parentTask && callSpan && childTask ? [parentTask, callSpan, childTask] : undefined;
      },
      'the delegate-task span and the child’s task span',
      15_000,
    );
    assert.equal(call.parentSpanId, parent.spanId);
    assert.equal(child.traceId, TRACE_ID);
    assert.equal(child.parentSpanId, call.spanId);
    assert.equal(child.traceState, TRACESTATE);
    assert.equal(child.kind, 1, 'INTERNAL: the order came over IPC, not a request with a server span');
    assert.equal(child.resource['service.name'], 'helper');
    assert.notEqual(child.resource['murmur.session.id'], parent.resource['murmur.session.id']);
    // The completion the child posts back: its a2a.client span under the same delegate-task span (the child's task has
    // ended by then), and the parent door's a2a.server span for it a child of that client span.
    const [completion, received] = await waitFor(
      async () => {
        const sent = c.spans.find((s) => s.kind === 3 && s.name === 'SendMessage' && s.resource['service.name'] === 'helper');
        const got = sent && c.spans.find((s) => s.kind === 2 && s.parentSpanId === sent.spanId);
        return sent && got ? [sent, got] : undefined;
      },
      'the completion’s client and server spans',
      15_000,
    );
    assert.deepEqual([completion.traceId, completion.parentSpanId, completion.traceState], [TRACE_ID, call.spanId, TRACESTATE]);
    assert.match(String(completion.attributes['a2a.message.id']), /^msg_dlg_.+_completion$/);
    assert.equal(completion.attributes['server.port'], Number(new URL(d.url).port));
    assert.deepEqual([received.name, received.resource['service.name'], received.status.code], ['SendMessage', 'parent', 0]);
  });
});

describe('a plan’s capsule step joins the called door’s trace', () => {
  test('the step’s execute_tool span holds its a2a.client requests, whose traceparent the called door’s server span continues', async () => {
    const c = await collector();
    const env = { env: { OTEL_EXPORTER_OTLP_ENDPOINT: c.url } };
    const answerer = await runDoor(
      makeCapsule(
        manifestYaml({ name: 'otel-answerer', extra: 'exports:\n  peer_tasks:\n    accept: true\n' }),
        'default:\n  turns:\n    - answer: "heard: {{task.text}}"\n',
      ),
      [],
      tempDir('home'),
      env,
    );
    doors.push(answerer);
    const port = new URL(answerer.url).port;
    const steps = [{ id: 'ask', capsule: answerer.url.replace(/\/$/, ''), task: 'hello' }];
    const script = `default:\n  turns:\n    - tools:\n        - tool: submit-plan\n          input: ${JSON.stringify({ steps })}\n      answer: "{{tool.content}}"\n`;
    const manifest = manifestYaml({ name: 'otel-stepper', extra: `  plan:\n    submit: true\n  network:\n    allow: ["localhost:${port}"]\n` });
    const d = await runDoor(makeCapsule(manifest, script), [], tempDir('home'), env);
    doors.push(d);
    const answer = await rpc(
      d.url,
      'SendMessage',
      { message: userMessage('relay') },
      { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01`, tracestate: TRACESTATE },
    );
    assert.equal(answer.json.result.task.status.state, 'TASK_STATE_COMPLETED');
    assert.match(answer.json.result.task.artifacts[0].parts[0].text, /heard: hello/);
    const [step, theirs] = await waitFor(
      async () => {
        const stepSpan = c.spans.find((s) => s.name === 'execute_tool capsule-step' && s.attributes['murmur.plan.step.status'] !== undefined);
        const task = c.spans.find((s) => s.name === 'invoke_agent otel-answerer');
        return stepSpan && task ? [stepSpan, task] : undefined;
      },
      'the capsule step’s span and the called door’s task span',
      15_000,
    );
    const plan = c.spans.find((s) => s.spanId === step.parentSpanId)!;
    assert.equal(plan?.name, 'invoke_workflow submit-plan', 'the step is a child of its plan');
    assert.deepEqual(
      [step.attributes['murmur.plan.step'], step.attributes['murmur.plan.step.status'], step.attributes['murmur.plan.step.index'], step.traceId],
      ['ask', 'passed', 1, TRACE_ID],
    );
    assert.equal(c.spans.filter((s) => s.name === 'execute_tool capsule-step').length, 1, 'one span for the step: the one its requests opened');
    const clients = c.spans.filter((s) => s.parentSpanId === step.spanId).sort((a, b) => Number(a.startNs - b.startNs));
    assert.ok(clients.length >= 1);
    assert.equal(clients[0].name, 'SendMessage');
    for (const client of clients) {
      assert.ok(['SendMessage', 'GetTask'].includes(client.name), client.name);
      assert.deepEqual([client.kind, client.traceState, client.attributes['server.port']], [3, TRACESTATE, Number(port)]);
      assert.ok(client.startNs >= step.startNs && client.endNs <= step.endNs, `${client.name} inside its step`);
    }
    const server = c.spans.find((s) => s.kind === 2 && s.parentSpanId === clients[0].spanId)!;
    assert.ok(server, 'the called door’s a2a.server span under the offer’s client span');
    assert.equal(server.resource['service.name'], 'otel-answerer');
    assert.deepEqual([theirs.traceId, theirs.parentSpanId, theirs.traceState], [TRACE_ID, server.spanId, TRACESTATE]);
  });
});

describe('HTTP client spans: share-file’s card read and fetch-peer-file’s redeem', () => {
  test('GET spans with the HTTP attributes, the handle withheld from url.full, and their traceparent sent', async () => {
    const c = await collector();
    const seen: { path: string; headers: IncomingHttpHeaders }[] = [];
    let base = '';
    // A stand-in for the reader's door: its card (a JSONRPC interface, so share-file mints) and a peer plane.
    const peer = createServer((req, res) => {
      seen.push({ path: req.url ?? '', headers: req.headers });
      if (req.url === '/.well-known/agent-card.json') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ name: 'reader', version: '0.1.0', supportedInterfaces: [{ url: base, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] }));
      } else if (req.url?.endsWith('A')) {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '5', 'x-murmur-handle-id': 'hdl_0123456789abcdef0123456789abcdef' });
        res.end('hello');
      } else {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"handle_not_found","message":"no"}');
      }
    });
    await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`;
    const lines = (name: string) => [
      `name: ${name}`,
      'version: 0.1.0',
      'lifecycle:',
      '  task_acceptance: queue',
      'inference:',
      '  driver: script',
      '  script: script.yaml',
    ];
    const owner = [
      ...lines('owner'),
      'capabilities:',
      '  peer_fetch: true',
      '  network:',
      '    allow: [localhost]',
      'exports:',
      '  peer_files:',
      '    root: shared',
      '',
    ].join('\n');
    const script = [
      'rules:',
      '  - match: ^share$',
      '    turns:',
      '      - tools:',
      '          - tool: share-file',
      '            input: { path: a.txt, audience: reader }',
      '        answer: "{{tool.content}}"',
      '  - match: ^get (\\S+) (\\S+)$',
      '    turns:',
      '      - tools:',
      '          - tool: fetch-peer-file',
      '            input: { url: "{{match.1}}", save_as: "{{match.2}}" }',
      '        answer: "{{tool.content}}"',
      'default:',
      '  turns:',
      '    - answer: x',
      '',
    ].join('\n');
    const roster = makeFormation(
      'name: files\nentry: owner\nmembers:\n  owner: { capsule: ./owner }\n  reader: { capsule: ./reader }\nrules:\n  - from: owner\n    to: [reader]\n',
      {
        owner: { manifest: owner, script },
        reader: {
          manifest: [...lines('reader'), 'exports:', '  peer_tasks:', '    accept: true', ''].join('\n'),
          script: 'default:\n  turns:\n    - answer: x\n',
        },
      },
    );
    mkdirSync(path.join(path.dirname(roster), 'owner', 'shared'));
    writeFileSync(path.join(path.dirname(roster), 'owner', 'shared', 'a.txt'), 'a');
    const child = forkMember(roster, 'owner', tempDir('home'), { OTEL_EXPORTER_OTLP_ENDPOINT: c.url });
    try {
      const announced = await nextMessage<{ kind: string; url: string }>(child, 'announced');
      child.send({ kind: 'seat', accept: [], links: [{ member: 'reader', url: base, token: 'mur_unused' }], doors: [base] });
      await nextMessage(child, 'seated');
      const headers = { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01`, tracestate: TRACESTATE };
      const say = async (text: string) =>
        (await rpc(announced.url, 'SendMessage', { message: userMessage(text) }, headers)).json.result.task.artifacts[0].parts[0].text as string;
      assert.match(await say('share'), /"handle_id":"hdl_/);
      const handle = `${base}/resources/peer/phk_${'A'.repeat(43)}`;
      assert.match(await say(`get ${handle} got.txt`), /"path":"got.txt","size":5/);
      assert.match(await say(`get ${base}/resources/peer/phk_${'B'.repeat(43)} none.txt`), /the peer refused the handle: handle_not_found \(HTTP 404\)/);
      const gets = await waitFor(
        async () => {
          const found = c.spans.filter((s) => s.name === 'GET');
          return found.length === 3 ? found.sort((a, b) => Number(a.startNs - b.startNs)) : undefined;
        },
        'three GET client spans',
        15_000,
      );
      const [card, redeem, refused] = gets;
      const parentOf = (s: OtlpSpan) => c.spans.find((p) => p.spanId === s.parentSpanId)?.name;
      assert.deepEqual(gets.map(parentOf), ['execute_tool share-file', 'execute_tool fetch-peer-file', 'execute_tool fetch-peer-file']);
      const port = Number(new URL(base).port);
      assert.deepEqual(card.attributes, {
        'http.request.method': 'GET',
        'url.full': `${base}/.well-known/agent-card.json`,
        'server.address': '127.0.0.1',
        'server.port': port,
        'http.response.status_code': 200,
      });
      assert.deepEqual(redeem.attributes, {
        'http.request.method': 'GET',
        'url.full': `${base}/resources/peer/REDACTED`,
        'server.address': '127.0.0.1',
        'server.port': port,
        'http.response.status_code': 200,
      });
      assert.deepEqual([refused.attributes['http.response.status_code'], refused.attributes['error.type'], refused.status.code], [404, '404', 2]);
      for (const span of gets)
        assert.deepEqual([span.kind, span.traceId, span.traceState, span.status.code === 2], [3, TRACE_ID, TRACESTATE, span === refused]);
      // Each request carried its own span's traceparent, and the tracestate as received.
      assert.deepEqual(
        seen.map((r) => [r.path.replace(/phk_\w+/, 'phk'), r.headers.traceparent, r.headers.tracestate]),
        gets.map((s, i) => [i === 0 ? '/.well-known/agent-card.json' : '/resources/peer/phk', `00-${TRACE_ID}-${s.spanId}-01`, TRACESTATE]),
      );
      assert.ok(
        c.spans.every((s) => !JSON.stringify(s.attributes).includes('phk_')),
        'no span holds a handle',
      );
    } finally {
      child.kill('SIGKILL');
      peer.closeAllConnections();
      peer.close();
    }
  });
});
