/**
 * The second reference: the official A2A JavaScript SDK's server (@a2a-js/sdk 1.3.0, a dev dependency) in its own
 * process, as its README sets one up — DefaultRequestHandler over its InMemoryTaskStore, served by the SDK's own
 * express JSON-RPC handler (jsonRpcHandler, express 5, a dev dependency). Its executor plays the bench's two rules: `bench ping` answers `pong` at once (task, working, the response
 * artifact, completed) and `bench stream N` streams N one-character artifact chunks before completing, as the door's
 * script rule streams N text chunks. Prints its URL, then serves until SIGTERM.
 */
import express from 'express';
import { AgentCard, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor, DefaultRequestHandler, type ExecutionEventBus, InMemoryTaskStore, type RequestContext } from '@a2a-js/sdk/server';
import { jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';

const card = AgentCard.fromJSON({
  name: 'bench-sdk',
  description: 'the bench reference',
  version: '0.1.0',
  supportedInterfaces: [{ url: 'http://127.0.0.1/', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: { streaming: true },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
});

function textOf(context: RequestContext): string {
  const part = context.userMessage.parts[0];
  return part?.content?.$case === 'text' ? part.content.value : '';
}

const status = (taskId: string, contextId: string, state: string) =>
  TaskStatusUpdateEvent.fromJSON({ taskId, contextId, status: { state, timestamp: new Date().toISOString() } });

class BenchExecutor implements AgentExecutor {
  async execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = context;
    const text = textOf(context);
    bus.publish(
      AgentEvent.task(Task.fromJSON({ id: taskId, contextId, status: { state: 'TASK_STATE_SUBMITTED', timestamp: new Date().toISOString() }, history: [] })),
    );
    bus.publish(AgentEvent.statusUpdate(status(taskId, contextId, 'TASK_STATE_WORKING')));
    const streamed = /^bench stream (\d+)$/.exec(text);
    if (streamed) {
      const chunks = Number(streamed[1]);
      for (let i = 0; i < chunks; i++) {
        bus.publish(
          AgentEvent.artifactUpdate(
            TaskArtifactUpdateEvent.fromJSON({
              taskId,
              contextId,
              append: i > 0,
              lastChunk: false,
              artifact: { artifactId: 'stream', parts: [{ text: 'x' }] },
            }),
          ),
        );
        // As the door's script driver yields between chunks, so does this producer.
        if (i % 32 === 31) await new Promise((resolve) => setImmediate(resolve));
      }
    }
    const answer = streamed ? 'stream over' : 'pong';
    bus.publish(
      AgentEvent.artifactUpdate(
        TaskArtifactUpdateEvent.fromJSON({
          taskId,
          contextId,
          append: false,
          lastChunk: true,
          artifact: { artifactId: 'response', parts: [{ text: answer }] },
        }),
      ),
    );
    bus.publish(AgentEvent.statusUpdate(status(taskId, contextId, 'TASK_STATE_COMPLETED')));
    bus.finished();
  }

  async cancelTask(): Promise<void> {}
}

const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new BenchExecutor());
const app = express();
app.use('/', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('not listening on TCP');
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${address.port}`, pid: process.pid })}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
