import type { DriverChunk, DriverRequest, DriverResponse, TaskDriver } from '../driver.js';
import { anthropicRequest } from './anthropic-request.js';
import { AnthropicStream } from './anthropic-stream.js';
import { callProvider } from './provider-call.js';
import { assembled, type ProviderDriverDeps, readKey } from './provider-driver.js';

const API_VERSION = '2023-06-01';

/**
 * The anthropic driver: one streaming messages call per inference call (docs/drivers.md). Every signed thinking block
 * of the transcript it is handed goes back; the selected driver hands it only those this choice produced.
 */
export class AnthropicDriver implements TaskDriver {
  readonly choice: string;

  constructor(private readonly deps: ProviderDriverDeps) {
    this.choice = deps.choice.name;
  }

  async infer(request: DriverRequest, onChunk: (chunk: DriverChunk) => void): Promise<DriverResponse> {
    const { choice, onRetry } = this.deps;
    const key = readKey(this.deps);
    const body = anthropicRequest({
      model: choice.model,
      maxOutputTokens: choice.maxOutputTokens,
      thinkingBudgetTokens: choice.thinkingBudgetTokens,
      system: request.system,
      messages: request.messages,
      tools: request.tools,
    });
    const stream = await callProvider(
      {
        choice: choice.name,
        url: `${choice.baseUrl}/v1/messages`,
        headers: {
          'content-type': 'application/json',
          accept: 'text/event-stream',
          'anthropic-version': API_VERSION,
          ...(key !== null ? { 'x-api-key': key } : {}),
        },
        body: JSON.stringify(body),
        idleTimeoutMs: choice.idleTimeoutMs,
        maxRetries: choice.maxRetries,
        signal: AbortSignal.any([request.signal, this.deps.sessionSignal]),
        key,
        onRetry: onRetry ? (notice) => onRetry({ ...notice, turn: request.turn }) : undefined,
      },
      () => new AnthropicStream(onChunk, key),
    );
    return assembled(choice.name, () => stream.response());
  }
}
