/**
 * The golden trace (docs/telemetry.md, "Tested"): a fixed two-member formation on the deterministic script driver,
 * exported to a real OTLP/HTTP receiver on 127.0.0.1, compared span by span with test/golden/formation-trace.txt —
 * names, kinds, services, parent links (as the tree's indentation) and attributes (values for the stable ones, `*`
 * for ids and times). Identical sibling subtrees collapse into one line (how many GetTask polls a call makes depends
 * on timing). A change shows as a line diff; `UPDATE_GOLDEN=1` rewrites the file. Also: the GenAI metrics arrive
 * with their names, units and attributes.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { tempDir } from './support/door-process.js';
import { makeFormation, memberManifest, runFormation } from './support/formation.js';
import { genAiDepartures, genAiMetricDepartures } from './support/genai-registry.js';
import { type AttrValue, type Collector, type OtlpSpan, startCollector } from './support/otlp.js';
import { rpc, userMessage, waitFor } from './support/rpc.js';

const GOLDEN = fileURLToPath(new URL('../../test/golden/formation-trace.txt', import.meta.url));
const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const PARENT_ID = 'b7ad6b7169203331';
const KIND = ['UNSPECIFIED', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'];

/** Attributes whose values are the same on every run; every other attribute shows as `key=*` (ids, times, ports). */
const STABLE =
  /^(gen_ai\.(operation|provider|agent\.name|agent\.version|agent\.description|tool\.name|tool\.type|request\.model|request\.stream|response\.finish_reasons|usage\.|workflow\.name)|a2a\.(method\.name|protocol\.version)|error\.type|murmur\.(task\.state|task\.turns|task\.trust|task\.origin|tool\.status|tool\.exit_code|driver|usage\.reported|tool_calls|turn)$)/;

const shown = (key: string, value: AttrValue) => (STABLE.test(key) ? `${key}=${JSON.stringify(value)}` : `${key}=*`);

/** The trace as indented lines, children in start order, identical sibling subtrees once. */
function outline(spans: OtlpSpan[]): string[] {
  const children = new Map<string, OtlpSpan[]>();
  for (const s of spans) children.set(s.parentSpanId, [...(children.get(s.parentSpanId) ?? []), s]);
  const render = (span: OtlpSpan, depth: number): string[] => {
    const attrs = Object.keys(span.attributes)
      .sort()
      .map((k) => shown(k, span.attributes[k]));
    const status = span.status.code === 2 ? ' ERROR' : '';
    const head = `${'  '.repeat(depth)}${span.resource['service.name']} ${KIND[span.kind]} "${span.name}"${status} {${attrs.join(', ')}}`;
    const kids = (children.get(span.spanId) ?? []).sort((a, b) => Number(a.startNs - b.startNs));
    const lines = [head];
    let previous = '';
    for (const kid of kids) {
      const block = render(kid, depth + 1).join('\n');
      if (block !== previous) lines.push(block);
      previous = block;
    }
    return lines;
  };
  return (children.get(PARENT_ID) ?? [])
    .sort((a, b) => Number(a.startNs - b.startNs))
    .flatMap((root) => render(root, 0))
    .join('\n')
    .split('\n');
}

describe('the golden trace of a two-member formation', () => {
  let c: Collector;
  let formation: Awaited<ReturnType<typeof runFormation>>;
  let spans: OtlpSpan[];
  before(async () => {
    c = await startCollector();
    const roster = makeFormation(
      'name: golden\nentry: planner\nmembers:\n  planner: { capsule: ./planner }\n  worker: { capsule: ./worker }\nrules:\n  - from: planner\n    to: [worker]\n',
      {
        planner: {
          manifest: memberManifest('planner'),
          script:
            'rules:\n  - match: ^go\n    turns:\n      - usage: { input: 50, output: 5 }\n        tools:\n          - tool: call-member\n            input: { member: worker, task: "hello" }\n        answer: waiting\n      - usage: { input: 80, output: 9 }\n        answer: "{{continuation}}"\ndefault:\n  turns:\n    - answer: x\n',
        },
        worker: {
          manifest: memberManifest('worker', { callee: true }),
          script:
            'default:\n  turns:\n    - usage: { input: 20, output: 3, cached: 10, reasoning: 1 }\n      thinking: ["on it"]\n      answer: "worker: {{task.text}}"\n',
        },
      },
    );
    formation = await runFormation(roster, tempDir('home'), [], { OTEL_EXPORTER_OTLP_ENDPOINT: c.url });
    const answer = await rpc(formation.member('planner').url, 'SendMessage', { message: userMessage('go') }, { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` });
    assert.equal(answer.json.result.task.status.state, 'TASK_STATE_COMPLETED');
    // Every span of the trace has ended once both tasks' spans and the planner's entry request's are in.
    spans = await waitFor(
      async () => {
        const mine = c.spans.filter((s) => s.traceId === TRACE_ID);
        const done =
          ['invoke_agent planner', 'invoke_agent worker'].every((n) => mine.some((s) => s.name === n)) && mine.some((s) => s.parentSpanId === PARENT_ID);
        return done ? mine : undefined;
      },
      'the formation’s trace',
      15_000,
    );
    // Stopping the formation flushes the last metrics export.
    formation.mur.kill('SIGTERM');
    await waitFor(
      async () => (c.metrics.some((m) => m.metric === 'gen_ai.invoke_agent.duration' && m.attributes['gen_ai.agent.name'] === 'worker') ? true : undefined),
      'the worker’s metrics',
      15_000,
    );
  });
  after(async () => {
    formation?.mur.kill('SIGKILL');
    await c?.close();
  });

  test('span by span, as test/golden/formation-trace.txt says', () => {
    const actual = outline(spans);
    if (process.env.UPDATE_GOLDEN === '1') writeFileSync(GOLDEN, `${actual.join('\n')}\n`);
    const expected = readFileSync(GOLDEN, 'utf8').trimEnd().split('\n');
    assert.deepEqual(actual, expected);
  });

  test('every span and metric keeps to the GenAI and A2A conventions’ names (docs/telemetry.md names the commits)', () => {
    assert.deepEqual(spans.flatMap(genAiDepartures), []);
    const metrics = [...new Map(c.metrics.map((m) => [m.metric, m])).values()];
    assert.deepEqual(metrics.flatMap(genAiMetricDepartures), []);
    // The check itself can fail: the names this door used before issue 38 depart from the conventions.
    assert.deepEqual(
      genAiDepartures({ name: 'plan planner', attributes: { 'gen_ai.operation.name': 'invoke_workflow', 'gen_ai.workflow.name': 'submit-plan' } }),
      ['plan planner: the convention names this span invoke_workflow submit-plan'],
    );
    assert.equal(genAiDepartures({ name: 'chat', attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.first_token_ms': 5 } }).length, 1);
    assert.equal(genAiMetricDepartures({ metric: 'gen_ai.client.first_token', unit: 'ms' }).length, 1);
  });

  test('metrics: names, units and attributes', () => {
    const seen = (name: string) => c.metrics.filter((m) => m.metric === name);
    const operation = seen('gen_ai.client.operation.duration');
    assert.ok(operation.length > 0);
    for (const p of operation) {
      assert.equal(p.unit, 's');
      assert.deepEqual([p.attributes['gen_ai.operation.name'], p.attributes['gen_ai.provider.name']], ['chat', 'murmur.script']);
    }
    const tokens = seen('gen_ai.client.token.usage');
    assert.ok(tokens.every((p) => p.unit === '{token}'));
    const worker = (type: string) => tokens.filter((p) => p.attributes['gen_ai.token.type'] === type && p.sum === 20).length;
    assert.ok(worker('input') > 0, 'the worker’s 20 input tokens');
    assert.ok(tokens.some((p) => p.attributes['gen_ai.token.type'] === 'output' && p.sum === 3));
    const agents = seen('gen_ai.invoke_agent.duration');
    assert.ok(agents.every((p) => p.unit === 's'));
    assert.deepEqual([...new Set(agents.map((p) => p.attributes['gen_ai.agent.name']))].sort(), ['planner', 'worker']);
    // The time to the first chunk: the worker's one call streamed its thinking; the planner's calls stream nothing.
    const firstChunk = seen('gen_ai.client.operation.time_to_first_chunk');
    assert.ok(firstChunk.length > 0, 'the worker’s first chunk');
    for (const p of firstChunk) {
      assert.equal(p.unit, 's');
      assert.equal(p.count, 1n);
      assert.deepEqual(p.attributes, { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'murmur.script' });
    }
    // The formation as a workflow: the planner's task, started from outside, ran it once.
    const workflows = seen('gen_ai.workflow.duration');
    assert.deepEqual(
      workflows.map((p) => [p.unit, p.count, p.attributes]),
      [['s', 1n, { 'gen_ai.workflow.name': 'golden' }]],
    );
    const tools = seen('gen_ai.execute_tool.duration');
    assert.ok(
      tools.some(
        (p) =>
          p.unit === 's' &&
          p.attributes['gen_ai.tool.name'] === 'call-member' &&
          p.attributes['gen_ai.tool.type'] === 'function' &&
          p.attributes['gen_ai.agent.name'] === 'planner',
      ),
    );
  });
});
