import type { DriverChunk, DriverRequest, DriverResponse, TaskDriver } from '../driver.js';
import { openAiRequest } from './openai-request.js';
import { OpenAiStream } from './openai-stream.js';
import { callProvider } from './provider-call.js';
import { assembled, type ProviderDriverDeps, readKey } from './provider-driver.js';

/** The openai-compatible driver: one streaming chat-completions call per inference call (docs/drivers.md). */
export class OpenAiCompatibleDriver implements TaskDriver {
  readonly choice: string;

  constructor(private readonly deps: ProviderDriverDeps) {
    this.choice = deps.choice.name;
  }

  async infer(request: DriverRequest, onChunk: (chunk: DriverChunk) => void): Promise<DriverResponse> {
    const { choice, onRetry } = this.deps;
    const key = readKey(this.deps);
    const body = openAiRequest({
      model: choice.model,
      maxOutputTokens: choice.maxOutputTokens,
      system: request.system,
      messages: request.messages,
      tools: request.tools,
    });
    const stream = await callProvider(
      {
        choice: choice.name,
        url: `${choice.baseUrl}/chat/completions`,
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...(key !== null ? { authorization: `Bearer ${key}` } : {}) },
        body: JSON.stringify(body),
        idleTimeoutMs: choice.idleTimeoutMs,
        maxRetries: choice.maxRetries,
        signal: AbortSignal.any([request.signal, this.deps.sessionSignal]),
        key,
        onRetry: onRetry ? (notice) => onRetry({ ...notice, turn: request.turn }) : undefined,
      },
      () => new OpenAiStream(onChunk, key),
    );
    return assembled(choice.name, () => stream.response());
  }
}
