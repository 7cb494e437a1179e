import { ConfigError, shown } from '../config/config-problem.js';
import { readYamlConfig } from '../config/yaml-config.js';
import { abortableDelay } from '../egress/abortable-delay.js';
import { type ConversationMessage, latest, userText } from './conversation.js';
import type { DriverChunk, DriverRequest, DriverResponse, StopReason, TaskDriver, ToolOutcome, Usage } from './driver.js';
import { type Script, type ScriptTurn, scriptSchema } from './script.schema.js';
import { shellQuote } from '../tools/shell-quote.js';

/** A script file that cannot be played: the message names the file, then each bad key's path, value and what is allowed. Exits 2. */
class ScriptError extends ConfigError {
  override readonly name = 'ScriptError';
}

/** Reads and checks a script file (docs/script-driver.md): its schema, then that no rule ends on a turn that asks. */
export function loadScript(file: string): Script {
  const script = readYamlConfig(file, scriptSchema, ScriptError);
  const rules = [...script.rules.map((rule, r) => ({ where: `rules[${r}]`, turns: rule.turns })), { where: 'default', turns: script.default.turns }];
  const problems = rules.flatMap(({ where, turns }) =>
    // A last turn with only chunks answers with them, as a model's reply without a tool call does; one that asks has
    // no turn left to read the reply.
    turns.at(-1)!.ask === undefined
      ? []
      : [
          {
            path: `${where}.turns[${turns.length - 1}].ask`,
            found: `${shown(turns.at(-1)!.ask)} (on the rule's last turn)`,
            allowed: 'ask on a turn that is followed by the turn that reads the reply',
          },
        ],
  );
  if (problems.length > 0) throw new ScriptError(file, problems);
  return script;
}

/** Unpaced chunks emitted between two turns of the event loop. */
const CHUNKS_PER_YIELD = 32;

interface TemplateScope {
  taskText: string;
  match: RegExpExecArray | null;
  reply: string | null;
  tool: ToolOutcome | null;
  /** The names of the tools the call was sent, in inventory order. */
  inventory?: readonly string[];
  /** The system prompt the call was sent. */
  system?: string;
  /** The text of the latest message the runtime added (a formation's continuation), or null. */
  continuation?: string | null;
}

/** The value of one template key, or null for a key the driver does not know (left as written). */
function templateValue(key: string, scope: TemplateScope): string | null {
  const trim = (s: string) => s.replace(/\n+$/, '');
  if (key === 'task.text') return scope.taskText;
  if (key === 'reply') return scope.reply ?? '';
  if (key.startsWith('match.')) return scope.match?.[Number(key.slice(6))] ?? '';
  if (key === 'tool.stdout') return trim(scope.tool?.stdout ?? '');
  if (key === 'tool.stderr') return trim(scope.tool?.stderr ?? '');
  if (key === 'tool.exit_code') return String(scope.tool?.exitCode ?? '');
  if (key === 'tool.work_id') return scope.tool?.workId ?? '';
  if (key === 'tool.content') return scope.tool?.content ?? '';
  if (key === 'inventory') return (scope.inventory ?? []).join(', ');
  if (key === 'system') return scope.system ?? '';
  if (key === 'continuation') return scope.continuation ?? '';
  return null;
}

const TEMPLATE = /\{\{\s*([a-z_]+(?:\.[a-z0-9_]+)?)\s*\}\}/g;

/**
 * {{task.text}}, {{reply}}, {{match.N}}, {{tool.stdout}}, {{tool.stderr}}, {{tool.exit_code}}, {{tool.work_id}},
 * {{tool.content}} (trailing newlines trimmed from the streams), {{inventory}}: the tool names the call was sent, {{system}}: the system prompt it was sent, and
 * {{continuation}}: the latest message the runtime added, such as a formation's member answers.
 */
function renderTemplate(template: string, scope: TemplateScope, quote: (value: string) => string = (v) => v): string {
  // A chunk with no `{{` (the common case: rendered once a chunk) is itself.
  if (!template.includes('{{')) return template;
  return template.replace(TEMPLATE, (whole, key: string) => {
    const value = templateValue(key, scope);
    return value === null ? whole : quote(value);
  });
}

/**
 * A tool call's input with its templates filled in, member by member. Values reach a shell only through a string
 * `command` member (run as `<binary> -c <command>`), so there each value is substituted as one quoted shell word: a
 * reply such as `$(touch x); rm -rf y` stays text (CWE-78). Elsewhere (`args`, runtime tools' members) values are
 * substituted as they are; rendering each string on its own also keeps a value with quotes from breaking the input.
 */
export function renderToolInput(input: Record<string, unknown>, scope: TemplateScope): Record<string, unknown> {
  const render = (value: unknown, isCommand: boolean): unknown => {
    if (typeof value === 'string') return renderTemplate(value, scope, isCommand ? shellQuote : undefined);
    if (Array.isArray(value)) return value.map((item) => render(item, false));
    if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, render(v, false)]));
    return value;
  };
  return Object.fromEntries(Object.entries(input).map(([key, value]) => [key, render(value, key === 'command')]));
}

/** The chunks and tool calls a scripted turn produced, before its stop reason. */
interface Played {
  text: string[];
  thinking: string[];
}

const isToolMessage = (m: ConversationMessage): m is Extract<ConversationMessage, { role: 'tool' }> => m.role === 'tool';
const isRuntime = (m: ConversationMessage): m is Extract<ConversationMessage, { role: 'user' }> => m.role === 'user' && m.origin === 'runtime';
const isReply = (m: ConversationMessage): m is Extract<ConversationMessage, { role: 'user' }> => m.role === 'user' && m.origin === 'reply';

/**
 * Plays one rule of a script for one task, as a model would answer the conversation it is sent: it reads the last
 * tool results and the latest reply from the transcript. A script turn that calls tools and also ends plays as two
 * inference calls: the first asks for the tools, the second ends, seeing their results.
 */
export class ScriptTaskDriver implements TaskDriver {
  readonly choice = 'script';
  private readonly turns: ScriptTurn[];
  private readonly match: RegExpExecArray | null;
  private cursor = 0;
  private endingPending: ScriptTurn | null = null;
  private callCount = 0;
  private unpaced = 0;

  constructor(
    script: Script,
    private readonly taskText: string,
  ) {
    for (const rule of script.rules) {
      const m = new RegExp(rule.match, rule.flags).exec(taskText);
      if (m) {
        this.turns = rule.turns;
        this.match = m;
        return;
      }
    }
    this.turns = script.default.turns;
    this.match = null;
  }

  async infer(request: DriverRequest, onChunk: (chunk: DriverChunk) => void): Promise<DriverResponse> {
    // A compaction's summary is not a turn of the script: it answers deterministically and the script keeps its place.
    if (request.purpose === 'compaction') {
      const chars = request.messages.reduce((n, m) => n + (m.role === 'user' ? userText(m).length : 0), 0);
      return respond({ text: [`scripted summary of ${chars} characters of earlier conversation`], thinking: [] }, { kind: 'end_turn' }, null);
    }
    const tool = latest(request.messages, isToolMessage)?.results.at(-1)?.outcome ?? null;
    const reply = latest(request.messages, isReply);
    const added = latest(request.messages, isRuntime);
    const scope: TemplateScope = {
      taskText: this.taskText,
      match: this.match,
      reply: reply ? userText(reply) : null,
      tool,
      inventory: request.tools.map((t) => t.name),
      system: request.system,
      continuation: added ? userText(added) : null,
    };
    if (this.endingPending) {
      const ending = this.endingPending;
      this.endingPending = null;
      return this.ending(ending, scope, { text: [], thinking: [] });
    }
    const turn = this.turns[this.cursor];
    if (!turn) return respond({ text: [], thinking: [] }, { kind: 'end_turn' }, null);
    this.cursor += 1;
    if (turn.sleep_ms > 0) await abortableDelay(turn.sleep_ms, request.signal);
    const played: Played = { text: [], thinking: [] };
    for (const text of turn.thinking) {
      const paced = this.pace(turn, request.signal);
      if (paced) await paced;
      const chunk = renderTemplate(text, scope);
      played.thinking.push(chunk);
      onChunk({ kind: 'thinking', text: chunk });
    }
    for (let r = 0; r < turn.repeat; r++) {
      for (const text of turn.text) {
        const paced = this.pace(turn, request.signal);
        if (paced) await paced;
        const chunk = renderTemplate(text, scope);
        played.text.push(chunk);
        onChunk({ kind: 'text', text: chunk });
      }
    }
    if (turn.tools.length > 0) {
      if (turn.answer !== undefined || turn.ask !== undefined || turn.fail !== undefined)
        this.endingPending = { ...turn, tools: [], thinking: [], text: [], sleep_ms: 0, usage: undefined };
      const calls = turn.tools.map((call) => ({
        id: call.id ?? `call_${++this.callCount}`,
        name: call.tool,
        input: renderToolInput(call.input, scope),
      }));
      return { ...respond(played, { kind: 'tool_use' }, turn.usage), toolCalls: calls };
    }
    return this.ending(turn, scope, played);
  }

  private ending(turn: ScriptTurn, scope: TemplateScope, played: Played): DriverResponse {
    const usage = turn.usage;
    // A scripted answer is the reply, whatever the turn streamed before it.
    if (turn.answer !== undefined) return respond({ ...played, text: [renderTemplate(turn.answer, scope)] }, { kind: 'end_turn' }, usage);
    if (turn.ask !== undefined) return respond(played, { kind: 'input_required', prompt: renderTemplate(turn.ask, scope) }, usage);
    if (turn.fail !== undefined) return respond(played, { kind: 'error', message: renderTemplate(turn.fail, scope) }, usage);
    if (this.cursor >= this.turns.length) return respond(played, { kind: 'end_turn' }, usage);
    return respond(played, { kind: 'pause_turn' }, usage);
  }

  /** A paced chunk waits pace_ms; unpaced chunks yield the event loop every few chunks, without a promise each. */
  private pace(turn: ScriptTurn, signal: AbortSignal): Promise<void> | undefined {
    if (turn.pace_ms > 0) return abortableDelay(turn.pace_ms, signal);
    if (signal.aborted) throw signal.reason;
    // Unpaced chunks still leave the event loop every few chunks, as a model's stream arriving from the network
    // does: the streams write between them, and a cancel is seen.
    if (++this.unpaced % CHUNKS_PER_YIELD === 0) return new Promise((resolve) => setImmediate(resolve));
    return undefined;
  }
}

function respond(played: Played, stop: StopReason, usage: ScriptTurn['usage'] | null | undefined): DriverResponse {
  return { text: played.text.join(''), thinking: played.thinking.map((text) => ({ text })), toolCalls: [], stop, usage: usage ? toUsage(usage) : null };
}

function toUsage(usage: NonNullable<ScriptTurn['usage']>): Usage {
  const out: Usage = {};
  if (usage.input !== undefined) out.input = usage.input;
  if (usage.output !== undefined) out.output = usage.output;
  if (usage.cached !== undefined) out.cached = usage.cached;
  if (usage.cache_write !== undefined) out.cacheWrite = usage.cache_write;
  if (usage.reasoning !== undefined) out.reasoning = usage.reasoning;
  return out;
}
