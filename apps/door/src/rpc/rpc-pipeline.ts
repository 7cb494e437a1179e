import {
  A2A_EXTENSIONS_HEADER,
  checkTenant,
  failure,
  internalError,
  type JsonRpcErrorObject,
  type JsonRpcId,
  METHOD,
  type MethodName,
  negotiateVersion,
  PUSH_CONFIG_METHODS,
  pushNotSupported,
  readEnvelope,
  readParams,
  type RequestHeaderLines,
  rpcError,
  scopeOf,
  success,
  successHead,
  taskOrigins,
  unsupportedOperation,
  versionNotSupported,
} from '@murmur/protocol';
import type { RequestGate } from '../auth/request-gate.js';
import type { Caller } from '../auth/caller.js';
import { servedMethods } from '../card/served-methods.js';
import { CodedFault } from '../common/coded-fault.js';
import type { DoorLog } from '../session/door-log.js';
import type { SessionContext } from '../session/session-context.js';
import type { CompletionSink } from './completion-sink.js';
import type { RpcAnswer, RpcCall, RpcMethod, StreamStart } from './rpc-context.js';
import type { RpcObservation, RpcObserver } from './rpc-observer.js';

export interface RpcRequest {
  body: string;
  /** Header values by lower-case name (Node joins repeated unknown headers). */
  headers: Record<string, string | string[] | undefined>;
  /** The headers the door reads, each one's lines, read once as the request came in (readRequestHeaders). */
  lines: RequestHeaderLines;
  caller: Caller;
  /** Gives back the body's share of the intake budget; called once the body is parsed and its message stored. */
  releaseBody?: () => void;
}

/** A JSON answer, or an event stream to start once its status and headers are written. */
export interface RpcReply {
  status: number;
  headers: Record<string, string>;
  body: string;
  stream?: StreamStart;
}

/** The response headers of every event stream (seed 000, murmur.WatchSession). */
const STREAM_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' };

/** Shared by every answer that names no extension: Fastify copies it into the reply, never changes it. */
const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'content-type': 'application/json' });

const jsonHeaders = (extensions?: string[]): Record<string, string> =>
  extensions && extensions.length > 0
    ? { 'content-type': 'application/json', [A2A_EXTENSIONS_HEADER]: extensions.join(', ') }
    : (JSON_HEADERS as Record<string, string>);

const json = (value: unknown, extensions?: string[]): RpcReply => ({ status: 200, headers: jsonHeaders(extensions), body: JSON.stringify(value) });

/** The bytes JSON.stringify(success(id, result)) writes, around a result already serialized. */
const jsonSuccess = (id: JsonRpcId, resultJson: string, extensions?: string[], extra?: Readonly<Record<string, string>>): RpcReply => ({
  status: 200,
  headers: extra ? { ...jsonHeaders(extensions), ...extra } : jsonHeaders(extensions),
  body: `${successHead(id)}${resultJson}}`,
});

const refuse = (id: JsonRpcId | null, error: JsonRpcErrorObject): RpcReply => json(failure(id, error));

type Envelope = Extract<ReturnType<typeof readEnvelope>, { ok: true }>['request'];

/** Steps 6–14 of "What the door answers" (seed 000), in that order, for one POST / with a JSON body. */
export class RpcPipeline {
  private readonly served: ReadonlySet<string>;
  private readonly methods = new Map<MethodName, RpcMethod>();
  private observer: RpcObserver | null = null;

  /**
   * `methods`: every handler, each under its own name. `completions`: the session's delegations, which completions
   * answer; null without them, and every completion is not awaited (-31002).
   */
  constructor(
    private readonly session: SessionContext,
    readonly log: DoorLog,
    private readonly gate: RequestGate,
    methods: readonly RpcMethod[],
    private readonly completions: CompletionSink | null,
  ) {
    this.served = new Set(servedMethods(session.manifest));
    for (const method of methods) {
      if (this.methods.has(method.method)) throw new Error(`${method.method} is registered twice`);
      this.methods.set(method.method, method);
    }
  }

  /** Telemetry's follower of every request (docs/telemetry.md); never set when telemetry is off. */
  setObserver(observer: RpcObserver): void {
    this.observer = observer;
  }

  async handle(request: RpcRequest): Promise<RpcReply> {
    try {
      return await this.answer(request);
    } finally {
      request.releaseBody?.();
    }
  }

  /**
   * The answer to one request: at once when every step up to the method's own answer is synchronous (a refusal, or a
   * method answering from memory, RpcMethod.answerNow), else a promise of it. The caller gives the body back.
   */
  answer(request: RpcRequest): RpcReply | Promise<RpcReply> {
    if (this.observer !== null) return this.answerObserved(request, this.observer);
    const admitted = this.admit(request);
    if (!('method' in admitted)) return admitted;
    return this.invokeNow(admitted) ?? this.invoke(admitted);
  }

  /**
   * answer() with telemetry on: an observation (the request's a2a.server span) begins once the envelope names its
   * method and ends with the answer, or, for a stream, when the response does. A body with no readable method has none.
   */
  private async answerObserved(request: RpcRequest, observer: RpcObserver): Promise<RpcReply> {
    const begun: { observation: RpcObservation | null } = { observation: null };
    const admitted = this.admit(request, (envelope) => {
      const version = request.lines.a2aVersion[0]?.trim() ?? '';
      begun.observation = observer.begin(envelope.method, envelope.params, request.lines, version);
    });
    const observation = begun.observation;
    if (observation === null) return admitted as RpcReply;
    let reply: RpcReply | undefined;
    try {
      if ('method' in admitted) {
        admitted.traceContext = observation.traceContext;
        admitted.streamedTask = (task) => observation.streamTask(task);
        reply = this.invokeNow(admitted) ?? (await this.invoke(admitted));
      } else {
        reply = admitted;
      }
      return reply.stream ? { ...reply, stream: observed(reply.stream, observation) } : reply;
    } finally {
      if (!reply) observation.end(500, '');
      else if (!reply.stream) observation.end(reply.status, reply.body);
    }
  }

  /** Steps 6–13: a refusal, or the call that step 14 hands to its method. `onEnvelope` hears the envelope once read. */
  private admit(request: RpcRequest, onEnvelope?: (envelope: Envelope) => void): RpcReply | RpcCall {
    // 6. A body that is not JSON.
    let body: unknown;
    try {
      body = JSON.parse(request.body);
    } catch {
      return refuse(null, rpcError('ParseError'));
    }
    // The text is parsed: nothing keeps it while the method runs (a held SendMessage runs as long as its task).
    request.body = '';
    // 7. A body that is not a JSON-RPC 2.0 request.
    const envelope = readEnvelope(body);
    if (!envelope.ok) return refuse(envelope.id, envelope.error);
    onEnvelope?.(envelope.request);
    const { id, method } = envelope.request;
    // 8. A2A-Version.
    const version = negotiateVersion(request.lines.a2aVersion);
    if (!version.ok) return refuse(id, versionNotSupported(version.requestedVersion));
    // 9. A completion addressed to another session.
    // Repeated lines and comma-separated values read the same, as peer consent reads them (RFC 9110 §5.3).
    const isCompletion = taskOrigins(request.lines).includes('completion');
    if (isCompletion) {
      const addressed = request.lines.completionSession[0]?.trim() ?? '';
      if (addressed !== this.session.sessionId) {
        return refuse(
          id,
          rpcError('CompletionMisaddressed', `completion addressed to session '${addressed}', which does not run here`, { addressedSession: addressed }),
        );
      }
    }
    // 10. The method.
    const methodRefusal = this.methodRefusal(method, isCompletion);
    if (methodRefusal) return refuse(id, methodRefusal);
    if (isCompletion) return this.completion(id, envelope.request, request);
    // 11. The method's scope, on a door declaring network.authentication.
    const scope = this.gate.scopeRefusal(request.caller, scopeOf(method));
    if (scope && !scope.ok) return { status: scope.status, headers: scope.headers, body: scope.body };
    // 12. params.
    const params = readParams(envelope.request);
    if (!params.ok) return refuse(id, params.error);
    // 13. A tenant.
    const tenant = checkTenant(params.params);
    if (tenant) return refuse(id, tenant);
    return { id, method, params: params.params, caller: request.caller, headers: request.headers, lines: request.lines, releaseBody: request.releaseBody };
  }

  /** Step 14 for a method that can answer from memory (GetTask of a mirrored task); null when it cannot. */
  private invokeNow(call: RpcCall): RpcReply | null {
    const method = this.methods.get(call.method as MethodName)!;
    if (method.answerNow === undefined) return null;
    try {
      const answer = method.answerNow(call);
      return answer === null ? null : this.reply(call, answer);
    } catch (error) {
      return this.failed(call, error);
    }
  }

  /** Step 14: the method itself. */
  private async invoke(call: RpcCall): Promise<RpcReply> {
    try {
      return this.reply(call, await this.methods.get(call.method as MethodName)!.handle(call));
    } catch (error) {
      return this.failed(call, error);
    }
  }

  private reply({ id }: RpcCall, answer: RpcAnswer): RpcReply {
    if ('error' in answer) return refuse(id, answer.error);
    if ('stream' in answer) {
      const headers: Record<string, string> = { ...STREAM_HEADERS };
      if (answer.extensions && answer.extensions.length > 0) headers[A2A_EXTENSIONS_HEADER] = answer.extensions.join(', ');
      return { status: 200, headers, body: '', stream: answer.stream };
    }
    if ('resultJson' in answer) return jsonSuccess(id, answer.resultJson, answer.extensions, answer.headers);
    return json(success(id, answer.result), answer.extensions);
  }

  private failed({ id, method }: RpcCall, error: unknown): RpcReply {
    if (error instanceof CodedFault) {
      this.log.error('fault', { method, code: error.code, error: error.message });
      return refuse(id, internalError(error.message));
    }
    this.log.error('method failed', { method, error: (error as Error).stack ?? String(error) });
    return refuse(id, internalError('the door could not hand this request to the session'));
  }

  /**
   * A correctly addressed completion: one no task here awaits is refused -31002 before its params is read (seed 000,
   * "Runtime headers"); an awaited one is delivered and acknowledged. A completion needs no method scope: the
   * delegation token holds none, and a public door's completion carries no token (docs/formations.md).
   */
  private completion(id: JsonRpcId, rpc: Parameters<typeof readParams>[0], request: RpcRequest): RpcReply {
    const delegation = request.lines.delegationId[0]?.trim() ?? '';
    const notAwaited = () =>
      refuse(
        id,
        delegation === ''
          ? rpcError('CompletionNotAwaited', 'no task in this session is waiting for a delegation: the completion names none')
          : rpcError('CompletionNotAwaited', `no task in this session is waiting for delegation ${delegation}`, { delegationId: delegation }),
      );
    if (delegation === '' || this.completions === null || !this.completions.awaits(delegation, request.caller)) return notAwaited();
    const params = readParams(rpc);
    if (!params.ok) return refuse(id, params.error);
    const tenant = checkTenant(params.params);
    if (tenant) return refuse(id, tenant);
    const message = this.completions.deliver(delegation, params.params);
    return message === null ? notAwaited() : json(success(id, { message }));
  }

  private methodRefusal(method: string, isCompletion: boolean): JsonRpcErrorObject | null {
    if (isCompletion) return method === METHOD.SendMessage ? null : rpcError('MethodNotFound');
    if (PUSH_CONFIG_METHODS.includes(method)) return pushNotSupported();
    if (method === METHOD.GetExtendedAgentCard && !this.served.has(method)) {
      return unsupportedOperation('GetExtendedAgentCard is not supported: this door is public, so it has no extended card');
    }
    const startsNoTask = this.session.manifest.lifecycle.task_acceptance === 'none';
    if (startsNoTask && (method === METHOD.SendStreamingMessage || method === METHOD.SubscribeToTask)) {
      return unsupportedOperation(`${method} is not supported: this door starts no task (lifecycle.task_acceptance is none)`);
    }
    if (this.served.has(method) && this.methods.has(method as MethodName)) return null;
    return rpcError('MethodNotFound');
  }
}

/** An event stream whose observation ends when the response does (written out, or its connection closed). */
function observed(stream: StreamStart, observation: RpcObservation): StreamStart {
  return (res) => {
    res.once('close', () => observation.streamEnded());
    stream(res);
  };
}
