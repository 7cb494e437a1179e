import { COMPLETION_SESSION_HEADER, DELEGATION_ID_HEADER, TASK_ORIGIN_HEADER, TASK_TRUST_HEADER } from './uris.js';

/** The request headers a murmur door reads, each header's lines in arrival order (an absent header is []). */
export interface RequestHeaderLines {
  authorization: string[];
  a2aVersion: string[];
  a2aExtensions: string[];
  lastEventId: string[];
  taskTrust: string[];
  taskOrigin: string[];
  completionSession: string[];
  delegationId: string[];
  traceparent: string[];
  tracestate: string[];
}

/** Each header a door reads, by its lower-case name. */
const READ: Record<string, keyof RequestHeaderLines> = {
  authorization: 'authorization',
  'a2a-version': 'a2aVersion',
  'a2a-extensions': 'a2aExtensions',
  'last-event-id': 'lastEventId',
  [TASK_TRUST_HEADER]: 'taskTrust',
  [TASK_ORIGIN_HEADER]: 'taskOrigin',
  [COMPLETION_SESSION_HEADER]: 'completionSession',
  [DELEGATION_ID_HEADER]: 'delegationId',
  traceparent: 'traceparent',
  tracestate: 'tracestate',
};

/**
 * Every header a door reads, in one pass over Node's raw header list ([name, value, …]), each name lower-cased once:
 * the layers a request crosses (the token gate, the check order, the method, telemetry) read these lines, never the
 * raw list again. Node joins repeated unknown headers into one string in `headers`; the raw list keeps each line,
 * which matters for A2A-Version (more than one line is refused) and Authorization (more than one is invalid_token).
 */
export function readRequestHeaders(rawHeaders: readonly string[]): RequestHeaderLines {
  const lines: RequestHeaderLines = {
    authorization: [],
    a2aVersion: [],
    a2aExtensions: [],
    lastEventId: [],
    taskTrust: [],
    taskOrigin: [],
    completionSession: [],
    delegationId: [],
    traceparent: [],
    tracestate: [],
  };
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const [key, value] = [rawHeaders[i], rawHeaders[i + 1]];
    if (key === undefined || value === undefined) continue;
    const lower = key.toLowerCase();
    const name = Object.hasOwn(READ, lower) ? READ[lower] : undefined;
    if (name !== undefined) lines[name].push(value);
  }
  return lines;
}

/**
 * Every value of x-murmur-task-origin, lower-cased: repeated lines and comma-separated values read the same
 * (RFC 9110 §5.3), so `completion, a2a` names a completion exactly as two lines would, and `peer, peer` is peer.
 */
export function taskOrigins(headers: Pick<RequestHeaderLines, 'taskOrigin'>): string[] {
  return headers.taskOrigin
    .flatMap((line) => line.split(','))
    .map((value) => value.trim().toLowerCase())
    .filter((value) => value !== '');
}
