import type { JsonValue, QuotaWindowFrameFields } from '@murmur/protocol';
import type { Usage } from '../driver.js';
import { count, type HarnessEvent, type HarnessEventReader, isoSeconds, num, obj, str } from './harness-events.js';

/** The prefix Claude Code gives the tools of an MCP server named `murmur`: the tool server reports those calls itself. */
const CLAUDE_TOOL_SERVER_PREFIX = 'mcp__murmur__';

/** Claude Code's unified windows, as seed 004's `quota[].name` spells them, with their lengths. */
const WINDOWS: Record<string, { name: string; minutes: number }> = {
  five_hour: { name: 'five-hour', minutes: 300 },
  seven_day: { name: 'seven-day', minutes: 10_080 },
  seven_day_overage_included: { name: 'seven-day-overage-included', minutes: 10_080 },
};

const STATE: Record<string, QuotaWindowFrameFields['state']> = { allowed: 'ok', allowed_warning: 'warning', rejected: 'exhausted' };

/** What Claude Code's `-p` mode says when `--resume` names a session it does not hold. */
const NO_CONVERSATION = /No conversation found/i;

/**
 * Claude Code's `--output-format stream-json --verbose --include-partial-messages` lines (docs/harness.md, "Frames and
 * records"): the init names the session; the API's stream events give text and thinking as they come, and each
 * message's start, usage and stop (a turn); the whole assistant and user messages give the tools of its own and their
 * results; rate_limit_event its subscription windows; prompt_suggestion a predicted prompt; result the run's end.
 */
export class ClaudeCodeEventReader implements HarnessEventReader {
  private usage: Usage | null = null;
  private responseId: string | undefined;
  private responseModel: string | undefined;
  private stop = 'end_turn';
  /** The tool-server calls' ids: their results are the tool server's to report, not the stream's. */
  private readonly served = new Set<string>();

  read(line: Record<string, unknown>): HarnessEvent[] {
    switch (line.type) {
      case 'system': {
        const id = str(line.session_id);
        return line.subtype === 'init' && id !== undefined ? [{ kind: 'session', id }] : [];
      }
      case 'stream_event':
        return this.streamEvent(obj(line.event));
      case 'assistant':
        return this.toolStarts(obj(line.message));
      case 'user':
        return this.toolEnds(obj(line.message));
      case 'rate_limit_event':
        return quota(obj(line.rate_limit_info));
      case 'prompt_suggestion': {
        const text = str(line.suggestion);
        return text ? [{ kind: 'suggestion', text }] : [];
      }
      case 'result':
        return [result(line)];
      default:
        return [];
    }
  }

  private toolStarts(message: Record<string, unknown> | undefined): HarnessEvent[] {
    return blocks(message).flatMap((b): HarnessEvent[] => {
      const id = str(b.id);
      const name = str(b.name);
      if (b.type !== 'tool_use' || id === undefined || name === undefined) return [];
      if (name.startsWith(CLAUDE_TOOL_SERVER_PREFIX)) {
        this.served.add(id);
        return [];
      }
      return [{ kind: 'tool-start', id, name, input: (b.input ?? null) as JsonValue }];
    });
  }

  private toolEnds(message: Record<string, unknown> | undefined): HarnessEvent[] {
    return blocks(message).flatMap((b): HarnessEvent[] => {
      const id = str(b.tool_use_id);
      if (b.type !== 'tool_result' || id === undefined || this.served.delete(id)) return [];
      return [{ kind: 'tool-end', id, output: resultText(b.content), isError: b.is_error === true, exitCode: null }];
    });
  }

  private streamEvent(event: Record<string, unknown> | undefined): HarnessEvent[] {
    switch (event?.type) {
      case 'message_start': {
        const message = obj(event.message);
        const usage = obj(message?.usage);
        const cached = count(usage?.cache_read_input_tokens) ?? 0;
        const cacheWrite = count(usage?.cache_creation_input_tokens) ?? 0;
        const input = count(usage?.input_tokens);
        // Within one turn a count only grows: a line printed into the stream (a command can) never lowers it.
        if (input !== undefined) this.usage = atLeast(this.usage, { input: input + cached + cacheWrite, cached, cacheWrite });
        this.responseId = str(message?.id);
        this.responseModel = str(message?.model);
        this.stop = 'end_turn';
        return [{ kind: 'turn-start' }];
      }
      case 'content_block_delta': {
        const delta = obj(event.delta);
        if (delta?.type === 'text_delta' && typeof delta.text === 'string') return [{ kind: 'text', text: delta.text }];
        if (delta?.type === 'thinking_delta' && typeof delta.thinking === 'string') return [{ kind: 'thinking', text: delta.thinking }];
        return [];
      }
      case 'message_delta': {
        const output = count(obj(event.usage)?.output_tokens);
        if (output !== undefined) this.usage = atLeast(this.usage, { output });
        this.stop = str(obj(event.delta)?.stop_reason) ?? this.stop;
        return [];
      }
      case 'message_stop': {
        const usage = this.usage;
        this.usage = null;
        return [
          {
            kind: 'turn-end',
            usage,
            stop: this.stop,
            ...(this.responseId ? { responseId: this.responseId } : {}),
            ...(this.responseModel ? { responseModel: this.responseModel } : {}),
          },
        ];
      }
      default:
        return [];
    }
  }
}

/** Each count of `next` where it is larger than `held`'s (or `held` has none). */
function atLeast(held: Usage | null, next: Usage): Usage {
  const merged: Usage = { ...(held ?? {}) };
  for (const key of ['input', 'output', 'cached', 'cacheWrite'] as const) {
    const value = next[key];
    if (value !== undefined && value > (merged[key] ?? -1)) merged[key] = value;
  }
  return merged;
}

function blocks(message: Record<string, unknown> | undefined): Record<string, unknown>[] {
  return Array.isArray(message?.content) ? message.content.flatMap((b) => (obj(b) ? [obj(b)!] : [])) : [];
}

/** A tool result's content: a string, or text items (anything else named by its type). */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((item) => (obj(item)?.type === 'text' ? (str(obj(item)!.text) ?? '') : `[${str(obj(item)?.type) ?? 'item'}]`)).join('\n');
}

function quota(info: Record<string, unknown> | undefined): HarnessEvent[] {
  const windows = obj(info?.unifiedWindows);
  if (!windows) return [];
  const out: QuotaWindowFrameFields[] = [];
  for (const [key, known] of Object.entries(WINDOWS)) {
    const w = obj(windows[key]);
    if (!w) continue;
    const used = num(w.utilization);
    const resets = num(w.resetsAt);
    const state = STATE[str(w.status) ?? ''];
    out.push({
      name: known.name,
      ...(used === undefined ? {} : { used: Math.min(1, Math.max(0, used)) }),
      ...(resets === undefined ? {} : { resetsAt: isoSeconds(resets) }),
      windowMinutes: known.minutes,
      ...(state === undefined ? {} : { state }),
    });
  }
  return out.length > 0 ? [{ kind: 'quota', windows: out }] : [];
}

function result(line: Record<string, unknown>): HarnessEvent {
  if (line.subtype === 'success' && line.is_error !== true) return { kind: 'answer', text: str(line.result) ?? '' };
  if (line.subtype === 'error_max_turns') return { kind: 'failure', message: 'it used all the turns it was given', maxTurns: true };
  const errors = Array.isArray(line.errors) ? line.errors.filter((e): e is string => typeof e === 'string') : [];
  const said = errors.join('; ') || str(line.result) || `its run ended ${str(line.subtype) ?? 'in an error'}`;
  return { kind: 'failure', message: said, ...(NO_CONVERSATION.test(said) ? { resumeRefused: true as const } : {}) };
}
