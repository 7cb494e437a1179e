import type { JsonValue, QuotaWindowFrameFields } from '@murmur/protocol';
import { count, type HarnessEvent, type HarnessEventReader, isoSeconds, num, obj, str } from './harness-events.js';

/** The names Codex's items of its own tools get in frames and records (its exec_command, apply_patch, web_search). */
const TOOL_NAMES: Record<string, string> = { command_execution: 'shell', file_change: 'apply_patch', web_search: 'web_search' };

/**
 * `codex exec --json` lines (docs/harness.md, "Frames and records"): thread.started names the session; a run is one
 * turn (turn.started … turn.completed, with its usage); items are its messages, its reasoning and the tools of its own
 * (an mcp_tool_call is a tool-server call, which the tool server reports itself); turn.failed ends it failed. The
 * answer is the turn's last agent message. An `error` line is remembered: it says why when no turn ends.
 */
export class CodexEventReader implements HarnessEventReader {
  private lastMessage = '';
  private lastError: string | null = null;

  /** The harness's last words when it ended without a turn's end. */
  get lastWords(): string | null {
    return this.lastError;
  }

  read(line: Record<string, unknown>): HarnessEvent[] {
    switch (line.type) {
      case 'thread.started': {
        const id = str(line.thread_id);
        return id === undefined ? [] : [{ kind: 'session', id }];
      }
      case 'turn.started':
        this.lastMessage = '';
        return [{ kind: 'turn-start' }];
      case 'item.started':
        return this.itemStarted(obj(line.item));
      case 'item.completed':
        return this.itemCompleted(obj(line.item));
      case 'turn.completed': {
        const usage = obj(line.usage);
        const input = count(usage?.input_tokens);
        const output = count(usage?.output_tokens);
        const cached = count(usage?.cached_input_tokens);
        const cacheWrite = count(usage?.cache_write_input_tokens);
        const counted = input === undefined && output === undefined ? null : { input, output, cached, cacheWrite };
        return [
          { kind: 'turn-end', usage: counted === null ? null : withoutUndefined(counted), stop: 'end_turn' },
          { kind: 'answer', text: this.lastMessage },
        ];
      }
      case 'turn.failed':
        return [{ kind: 'failure', message: str(obj(line.error)?.message) ?? this.lastError ?? 'its turn failed' }];
      case 'error':
        this.lastError = str(line.message) ?? this.lastError;
        return [];
      default:
        return [];
    }
  }

  private itemStarted(item: Record<string, unknown> | undefined): HarnessEvent[] {
    const id = str(item?.id);
    const name = TOOL_NAMES[str(item?.type) ?? ''];
    if (!item || id === undefined || name === undefined) return [];
    const input: JsonValue =
      item.type === 'command_execution'
        ? { command: str(item.command) ?? '' }
        : item.type === 'web_search'
          ? { query: str(item.query) ?? '' }
          : { changes: (item.changes ?? []) as JsonValue };
    return [{ kind: 'tool-start', id, name, input }];
  }

  private itemCompleted(item: Record<string, unknown> | undefined): HarnessEvent[] {
    if (!item) return [];
    switch (item.type) {
      case 'agent_message': {
        const text = str(item.text) ?? '';
        this.lastMessage = text;
        return text === '' ? [] : [{ kind: 'text', text }];
      }
      case 'reasoning': {
        const text = str(item.text) ?? '';
        return text === '' ? [] : [{ kind: 'thinking', text }];
      }
      case 'command_execution':
      case 'file_change':
      case 'web_search': {
        const id = str(item.id);
        if (id === undefined) return [];
        const exitCode = num(item.exit_code) ?? null;
        const output =
          item.type === 'command_execution'
            ? (str(item.aggregated_output) ?? '')
            : JSON.stringify(item.type === 'file_change' ? (item.changes ?? []) : { query: item.query ?? null });
        // A command that ran to its end is a successful call whatever its exit code (seed 001, "artifact").
        const isError = item.type === 'command_execution' ? exitCode === null && item.status !== 'completed' : item.status === 'failed';
        return [{ kind: 'tool-end', id, output, isError, exitCode }];
      }
      default:
        return [];
    }
  }
}

function withoutUndefined<T extends Record<string, number | undefined>>(value: T): { [K in keyof T]?: number } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: number };
}

/** Codex's `rate_limits` in its session log (`token_count` events): its windows, `primary` and `secondary` (docs/harness.md). */
export function codexQuota(rateLimits: Record<string, unknown> | undefined): QuotaWindowFrameFields[] {
  if (!rateLimits) return [];
  const limit = str(rateLimits.limit_id);
  const prefix = limit === undefined || limit === 'codex' ? '' : `${limit}-`;
  const out: QuotaWindowFrameFields[] = [];
  for (const key of ['primary', 'secondary'] as const) {
    const w = obj(rateLimits[key]);
    if (!w) continue;
    const used = num(w.used_percent);
    const minutes = num(w.window_minutes);
    const resets = num(w.resets_at);
    out.push({
      name: `${prefix}${key}`,
      ...(used === undefined ? {} : { used: Math.min(1, Math.max(0, used / 100)) }),
      ...(resets === undefined ? {} : { resetsAt: isoSeconds(resets) }),
      ...(minutes === undefined ? {} : { windowMinutes: minutes }),
    });
  }
  return out;
}
