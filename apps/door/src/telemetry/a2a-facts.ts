import type { A2aFacts } from './trace-context.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);
const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** Facts with the absent ones left out. */
function present(facts: A2aFacts): A2aFacts {
  return Object.fromEntries(Object.entries(facts).filter(([, value]) => value !== undefined)) as A2aFacts;
}

/** A message's `referenceTaskIds` when it is a non-empty list of strings; anything else says nothing. */
function referenceTaskIds(value: unknown): string[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  return value.every((id): id is string => typeof id === 'string') ? [...value] : undefined;
}

/**
 * What a JSON-RPC request's params say (A2A v1.0): the message's id, task id, context id and referenced task ids on
 * SendMessage and SendStreamingMessage, the task id (`id`) on GetTask, CancelTask and SubscribeToTask.
 */
export function requestFacts(params: unknown): A2aFacts {
  if (!isObject(params)) return {};
  const message = isObject(params.message) ? params.message : null;
  if (message) {
    return present({
      messageId: text(message.messageId),
      taskId: text(message.taskId),
      contextId: text(message.contextId),
      referenceTaskIds: referenceTaskIds(message.referenceTaskIds),
    });
  }
  return present({ taskId: text(params.id) });
}

/**
 * What a JSON-RPC answer says: its error's code, or the task it carries (a Task itself, or `{ task }` of a
 * SendMessage answer) with its state and context; a SendMessage answered with a message gives its context.
 */
function answerFacts(answer: unknown): A2aFacts {
  if (!isObject(answer)) return {};
  if (isObject(answer.error)) return { errorType: String(answer.error.code ?? '_OTHER') };
  const result = answer.result;
  if (!isObject(result)) return {};
  const task = isObject(result.task) ? result.task : isObject(result.status) && typeof result.id === 'string' ? result : null;
  if (task) return present({ taskId: text(task.id), contextId: text(task.contextId), state: isObject(task.status) ? text(task.status.state) : undefined });
  if (isObject(result.message)) return present({ contextId: text(result.message.contextId), taskId: text(result.message.taskId) });
  return {};
}

/** The facts of an answer's JSON text; a text that is not JSON says nothing. */
export function answerFactsOf(body: string): A2aFacts {
  try {
    return answerFacts(JSON.parse(body));
  } catch {
    return {};
  }
}
