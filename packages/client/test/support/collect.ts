import type { MurmurStreamEvent } from '../../src/index.js';

/** One line per event: `conn:<state>[:<reason>]`, or `<kind>[:<frame>] <taskId> <id>`. */
export function describeEvent(event: MurmurStreamEvent): string {
  if (event.kind === 'connection') return `conn:${event.state}${event.reason ? `:${event.reason}` : ''}`;
  const name = event.kind === 'frame' ? `frame:${event.frame.frame}` : event.kind;
  return `${name} ${event.taskId ?? '-'} ${event.id ?? '-'}`;
}

/** Iterates a stream to its end; returns the events seen and the error it ended with, if any. */
export async function collect(stream: AsyncIterable<MurmurStreamEvent>): Promise<{ events: MurmurStreamEvent[]; lines: string[]; error: unknown }> {
  const events: MurmurStreamEvent[] = [];
  let error: unknown = null;
  try {
    for await (const event of stream) events.push(event);
  } catch (caught) {
    error = caught;
  }
  return { events, lines: events.map(describeEvent), error };
}
