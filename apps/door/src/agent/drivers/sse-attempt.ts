/**
 * One attempt of a streaming provider call over fetch: the request, the answer's status, and the SSE body fed to a
 * StreamConsumer through eventsource-parser. A timer re-armed by every byte abandons a stalled attempt; the task's
 * signal aborts it. Whatever ends the attempt early aborts the request, so the upstream connection closes.
 */
import { createParser } from 'eventsource-parser';
import { ProviderFailure, providerMessage } from './provider-failure.js';
import type { StreamConsumer } from './stream-consumer.js';

export interface AttemptSpec {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** @unit ms */
  idleTimeoutMs: number;
  /** The task's signal joined to the session's. */
  signal: AbortSignal;
  /** For redaction of provider messages; never sent anywhere but the request's header. */
  key: string | null;
}

/** A fetch failure's low-level code (`ECONNREFUSED`, `UND_ERR_SOCKET`), or its message. */
function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (cause && typeof cause.code === 'string') return cause.code;
  if (cause && typeof cause.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}

export async function runAttempt(spec: AttemptSpec, consumer: StreamConsumer): Promise<void> {
  const local = new AbortController();
  let stalled = false;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      stalled = true;
      local.abort();
    }, spec.idleTimeoutMs);
  };
  const signal = AbortSignal.any([spec.signal, local.signal]);
  const ended = (error: unknown): never => {
    if (spec.signal.aborted) throw spec.signal.reason;
    if (stalled) throw new ProviderFailure('stall', `the provider sent nothing for ${spec.idleTimeoutMs / 1000} s`);
    throw error;
  };
  arm();
  try {
    let response: Response;
    try {
      response = await fetch(spec.url, { method: 'POST', headers: spec.headers, body: spec.body, signal });
    } catch (error) {
      return ended(new ProviderFailure('connect', `the provider could not be reached at ${new URL(spec.url).origin}: ${causeOf(error)}`));
    }
    arm();
    if (!response.ok) {
      let text = '';
      try {
        text = await response.text();
      } catch (error) {
        ended(error);
      }
      const { message, errorType } = providerMessage(text, spec.key);
      throw new ProviderFailure('http', `HTTP ${response.status}: ${message}`, {
        status: response.status,
        headers: response.headers,
        ...(errorType ? { errorType } : {}),
      });
    }
    if (!response.body) throw new ProviderFailure('closed', 'the provider answered without a body');
    let failure: unknown = null;
    const parser = createParser({
      onEvent: (message) => {
        if (failure !== null || consumer.complete) return;
        try {
          consumer.event(message);
        } catch (error) {
          failure = error;
        }
      },
    });
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    try {
      while (!consumer.complete) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (error) {
          return ended(new ProviderFailure('closed', `the provider closed the stream before it finished (${causeOf(error)})`));
        }
        if (chunk.done) break;
        arm();
        parser.feed(decoder.decode(chunk.value, { stream: true }));
        if (failure !== null) throw failure;
      }
    } finally {
      if (!consumer.complete) await reader.cancel().catch(() => undefined);
    }
    if (!consumer.complete) throw new ProviderFailure('closed', 'the provider closed the stream before it finished');
  } finally {
    clearTimeout(timer);
    // An attempt that did not finish cleanly leaves nothing open upstream.
    if (!consumer.complete) local.abort();
  }
}
