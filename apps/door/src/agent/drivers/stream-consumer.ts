import type { EventSourceMessage } from 'eventsource-parser';

/** Reads one attempt's SSE events into a driver response; a fresh one per attempt. */
export interface StreamConsumer {
  /** One event; throws a ProviderFailure when the event breaks the wire. */
  event(message: EventSourceMessage): void;
  /** The wire's end marker arrived (`[DONE]`, `message_stop`). */
  readonly complete: boolean;
  /** A text or thinking chunk of this attempt reached the frames: it may not be retried. */
  readonly streamed: boolean;
}
