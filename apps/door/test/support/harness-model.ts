/**
 * A scripted model for the harness tests (docs/harness.md): the fake providers answer Claude Code and Codex from what
 * each request holds, since a harness's requests come in no fixed order (it makes side requests of its own). The
 * task's text carries a directive the model obeys:
 *
 * | directive | the model |
 * |---|---|
 * | `[[bash:<command>]]` | runs the command with the harness's own shell tool (Claude Code's Bash, Codex's exec_command) |
 * | `[[tool:<name> <json input>]]` | calls a runtime tool through the tool server (`mcp__murmur__<name>`) |
 * | `[[recall]]` | answers with every prompt of its conversation so far: a resumed session remembers earlier tasks' |
 * | anything else | answers `answer to: <the prompt>` |
 *
 * After a tool's result it answers `tool said: <the result>`. A prompt suggestion request is answered `run the tests`.
 */
import type { FakeReply, FakeTurn } from './fake-providers/fake-turn.js';
import type { FakeRequest } from './fake-providers/fake-provider.js';

/** The provider's rate-limit windows Claude Code reads (its anthropic-ratelimit-unified-* headers), resetting in an hour and in three days. */
export function anthropicWindowHeaders(nowSecs = Math.floor(Date.now() / 1000)): Record<string, string> {
  return {
    'anthropic-ratelimit-unified-status': 'allowed_warning',
    'anthropic-ratelimit-unified-reset': String(nowSecs + 3600),
    'anthropic-ratelimit-unified-representative-claim': 'five_hour',
    'anthropic-ratelimit-unified-5h-utilization': '0.42',
    'anthropic-ratelimit-unified-5h-reset': String(nowSecs + 3600),
    'anthropic-ratelimit-unified-5h-status': 'allowed_warning',
    'anthropic-ratelimit-unified-7d-utilization': '0.1',
    'anthropic-ratelimit-unified-7d-reset': String(nowSecs + 3 * 86_400),
    'anthropic-ratelimit-unified-7d-status': 'allowed',
  };
}

/** The windows Codex reads (its x-codex-primary-* and x-codex-secondary-* headers). */
export function codexWindowHeaders(nowSecs = Math.floor(Date.now() / 1000)): Record<string, string> {
  return {
    'x-codex-primary-used-percent': '42.5',
    'x-codex-primary-window-minutes': '300',
    'x-codex-primary-reset-at': String(nowSecs + 3600),
    'x-codex-secondary-used-percent': '10',
    'x-codex-secondary-window-minutes': '10080',
    'x-codex-secondary-reset-at': String(nowSecs + 7 * 86_400),
  };
}

/** What the model sees of a request: the prompts of its conversation (the latest last), and the tool result it answers, if any. */
interface Reading {
  prompts: string[];
  toolResult: string | null;
  suggestion: boolean;
}

const DIRECTIVE = /\[\[(bash|tool):([^\]]*)\]\]/;
const USAGE = { input: 5000, output: 10, cached: 4000 };
let calls = 0;

function reply(reading: Reading, call: (kind: 'bash' | 'tool', argument: string, id: string) => FakeTurn['toolCalls']): FakeReply {
  if (reading.suggestion) return { text: ['run the tests'], usage: USAGE };
  if (reading.toolResult !== null) return { text: [`tool said: ${reading.toolResult.slice(0, 4000)}`], usage: USAGE };
  const prompt = reading.prompts.at(-1) ?? '';
  if (prompt.includes('[[recall]]')) return { text: [`I remember: ${reading.prompts.slice(0, -1).join(' | ') || 'nothing'}`], usage: USAGE };
  const directive = DIRECTIVE.exec(prompt);
  if (directive) return { toolCalls: call(directive[1] as 'bash' | 'tool', directive[2].trim(), `call_${++calls}`), usage: USAGE };
  return { text: ['answer to: ', prompt.slice(0, 2000)], usage: USAGE };
}

/** `name {json}` → the name and its input. */
function toolOf(argument: string): { name: string; input: Record<string, unknown> } {
  const space = argument.indexOf(' ');
  if (space === -1) return { name: argument, input: {} };
  return { name: argument.slice(0, space), input: JSON.parse(argument.slice(space + 1)) as Record<string, unknown> };
}

type Block = { type?: string; text?: string; content?: unknown };

const textOf = (content: unknown): string =>
  typeof content === 'string' ? content : Array.isArray(content) ? (content as Block[]).map((b) => (typeof b?.text === 'string' ? b.text : '')).join('\n') : '';

/** Claude Code's requests (Anthropic messages): its prompts are user text blocks, less the reminders it adds. */
export function claudeModel(request: FakeRequest): FakeReply | undefined {
  const messages = ((request.body as { messages?: { role: string; content: unknown }[] })?.messages ?? []).filter((m) => m.role === 'user');
  const last = messages.at(-1);
  const lastBlocks = Array.isArray(last?.content) ? (last.content as Block[]) : [];
  const toolResult = lastBlocks.find((b) => b.type === 'tool_result');
  const prompts = messages.flatMap((m) => {
    const blocks: Block[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : Array.isArray(m.content) ? (m.content as Block[]) : [];
    const texts = blocks.filter((b) => b.type === 'text' && typeof b.text === 'string' && !b.text.startsWith('<system-reminder>')).map((b) => b.text!);
    return texts.length > 0 ? [texts.join('\n')] : [];
  });
  const suggestion = textOf(last?.content).includes('[SUGGESTION MODE:');
  return reply({ prompts, toolResult: toolResult ? textOf(toolResult.content) : null, suggestion }, (kind, argument, id) => {
    if (kind === 'bash') return [{ id: `toolu_${id}`, name: 'Bash', input: { command: argument, description: 'run it' } }];
    const { name, input } = toolOf(argument);
    return [{ id: `toolu_${id}`, name: `mcp__murmur__${name}`, input }];
  });
}

/** Codex's requests (OpenAI Responses): its prompts are user message items, less the context it adds. */
export function codexModel(request: FakeRequest): FakeReply | undefined {
  const input = (request.body as { input?: { type?: string; role?: string; content?: unknown; output?: unknown }[] })?.input ?? [];
  const last = input.at(-1);
  const prompts = input
    .filter((i) => i.type === 'message' && i.role === 'user')
    .map((i) => textOf(i.content))
    .filter((t) => t !== '' && !t.startsWith('<'));
  const toolResult = last?.type === 'function_call_output' ? (typeof last.output === 'string' ? last.output : JSON.stringify(last.output)) : null;
  return reply({ prompts, toolResult, suggestion: false }, (kind, argument, id) => {
    // Codex hands the model a running command's output after yield_time_ms (10 s unless asked, at most 30 s) and the
    // command runs on: the longest wait, so a command that outlives it is one that outlives 30 s (the deadline test's).
    if (kind === 'bash') return [{ id, name: 'exec_command', input: { cmd: argument, yield_time_ms: 30_000 } }];
    const { name, input: args } = toolOf(argument);
    return [{ id, name: name.replaceAll('-', '_'), namespace: 'mcp__murmur', input: args }];
  });
}
