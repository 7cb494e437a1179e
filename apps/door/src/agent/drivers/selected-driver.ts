import type { DriverChoice } from '../../manifest/inference-choices.js';
import type { TraceWriter } from '../../records/trace-writer.js';
import type { RunningTask } from '../../tasks/task-queue.js';
import type { DriverSelection } from '../../tools/runtime/index.js';
import type { ConversationMessage, ThinkingBlock } from '../conversation.js';
import type { DriverChunk, DriverRequest, DriverResponse, TaskDriver } from '../driver.js';

/**
 * A task's driver: each inference call is served by the session's selected choice (switch-driver changes it between
 * calls), through one driver per choice kept for the task (a script keeps its place). Thinking blocks go back only to
 * the choice that produced them (docs/drivers.md, "What carries across a switch").
 */
export class SelectedDriver implements TaskDriver {
  private served: string;
  private servedModel: string | undefined;
  private servedKind: string | undefined;
  private servedCap: number | undefined;
  private readonly drivers = new Map<string, TaskDriver>();
  private readonly producedBy = new WeakMap<ThinkingBlock, string>();

  constructor(
    private readonly task: RunningTask,
    private readonly deps: { selection: DriverSelection; trace: TraceWriter; build: (choice: DriverChoice, task: RunningTask) => TaskDriver },
  ) {
    this.served = deps.selection.current?.name ?? 'none';
  }

  /** The choice that served the latest call (the inference record's `driver`). */
  get choice(): string {
    return this.served;
  }

  /** Its model, for a provider choice (the inference record's `model`). */
  get model(): string | undefined {
    return this.servedModel;
  }

  get kind(): string | undefined {
    return this.servedKind;
  }

  get maxOutputTokens(): number | undefined {
    return this.servedCap;
  }

  async infer(request: DriverRequest, onChunk: (chunk: DriverChunk) => void): Promise<DriverResponse> {
    const { choice, appliedBy } = this.deps.selection.beginCall();
    if (appliedBy) {
      const fields = { setting: 'inference.driver', value: choice.name, task_id: this.task.id, turn: request.turn };
      this.deps.trace.write(
        'control_applied',
        appliedBy.principal === 'agent' ? { principal: 'agent', ...fields } : { principal: 'operator', token_id: appliedBy.tokenId, ...fields },
      );
    }
    this.served = choice.name;
    this.servedModel = choice.driver === 'script' ? undefined : choice.model;
    this.servedKind = choice.driver;
    this.servedCap = choice.driver === 'script' ? undefined : choice.maxOutputTokens;
    let driver = this.drivers.get(choice.name);
    if (!driver) {
      driver = this.deps.build(choice, this.task);
      this.drivers.set(choice.name, driver);
    }
    const response = await driver.infer({ ...request, messages: this.ownThinkingOnly(request.messages, choice.name) }, onChunk);
    for (const block of response.thinking) this.producedBy.set(block, choice.name);
    return response;
  }

  private ownThinkingOnly(messages: readonly ConversationMessage[], choice: string): ConversationMessage[] {
    return messages.map((m) =>
      m.role === 'assistant' && m.thinking.length > 0 ? { ...m, thinking: m.thinking.filter((b) => this.producedBy.get(b) === choice) } : m,
    );
  }
}
