import { abortableDelay } from '../../egress/abortable-delay.js';
import { DriverError } from '../driver.js';
import { cut, FAILURE_TEXT_LIMIT, ProviderFailure } from './provider-failure.js';
import { retryDelayMs, shouldRetry } from './retry-policy.js';
import { type AttemptSpec, runAttempt } from './sse-attempt.js';
import type { StreamConsumer } from './stream-consumer.js';

export interface RetryNotice {
  /** The attempt that failed, 1-based. */
  attempt: number;
  reason: string;
  /** @unit ms */
  delayMs: number;
}

export interface CallSpec extends AttemptSpec {
  /** The choice's name, which starts every failure's text. */
  choice: string;
  maxRetries: number;
  onRetry?: (notice: RetryNotice) => void;
}

/**
 * A provider call under the one retry policy (docs/drivers.md): attempts until one completes, a failure is not
 * retryable, the attempt streamed a chunk (its frames are on the wire), or 1 + maxRetries attempts were made. A
 * cancel ends it at once, in an attempt or in a wait. The final failure is a DriverError: `<choice>: <what>`.
 */
export async function callProvider<C extends StreamConsumer>(spec: CallSpec, newConsumer: () => C): Promise<C> {
  for (let attempt = 1; ; attempt++) {
    const consumer = newConsumer();
    try {
      await runAttempt(spec, consumer);
      return consumer;
    } catch (error) {
      if (spec.signal.aborted) throw spec.signal.reason;
      if (!(error instanceof ProviderFailure))
        throw new DriverError(`${spec.choice}: ${cut(error instanceof Error ? error.message : String(error), FAILURE_TEXT_LIMIT)}`);
      if (consumer.streamed || attempt > spec.maxRetries || !shouldRetry(error))
        throw new DriverError(`${spec.choice}: ${cut(error.describe(attempt), FAILURE_TEXT_LIMIT)}`);
      const delayMs = retryDelayMs(attempt, error);
      spec.onRetry?.({ attempt, reason: error.message, delayMs });
      await abortableDelay(delayMs, spec.signal);
    }
  }
}
