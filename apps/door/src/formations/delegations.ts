import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import type { JsonObject, Message, ResidueItem } from '@murmur/protocol';
import type { Caller } from '../auth/caller.js';
import type { MintedToken } from '../auth/tokens.js';
import { spawnName } from '../manifest/manifest.schema.js';
import type { CompletionSink } from '../rpc/completion-sink.js';
import { newId } from '../common/ids.js';
import { makePrivateDir } from '../common/private-files.js';
import type { SessionContext } from '../session/session-context.js';
import { DELEGATION_STATUSES } from '../records/record-statuses.js';
import type { TraceWriter } from '../records/trace-writer.js';
import type { ResidueSource } from '../tasks/residue-source.js';
import type { TraceContextSource } from '../telemetry/trace-context.js';
import type { DelegatePort } from '../tools/runtime/index.js';
import { type RuntimeToolAnswer, type ToolCallContext, ToolInputError } from '../tools/tool-call.js';
import { fenceUntrusted } from '../auth/untrusted-fence.js';
import { capOutput } from './continuation.js';
import { launchChild } from './delegation-launch.js';
import type { CompletionData, DelegationStatus } from './delegation-messages.js';
import { awaitOutstanding, Wakeups } from './outbound-round.js';
import { withoutAddresses } from '../egress/outbound-request.js';

export interface DelegationOutcome {
  delegationId: string;
  capsule: string;
  status: DelegationStatus;
  output: string;
}

interface Delegation {
  id: string;
  capsule: string;
  version: string;
  taskId: string;
  contextId: string;
  childSessionId: string;
  childWorkdir: string;
  child: ChildProcess;
  /** Whether a task here still awaits its completion: false once it arrived, timed out, or its task ended. */
  awaited: boolean;
  outcome: DelegationOutcome | null;
  delivered: boolean;
  timer: NodeJS.Timeout;
}

export interface DelegationsDeps {
  session: SessionContext;
  trace: TraceWriter;
  /** The calling task's context id, for the acknowledgement (seed 000, "Answers"). */
  contextOf: (taskId: string) => string | undefined;
  /** Adds a token to the door's registry (an authenticated parent door only). */
  acceptToken: (token: MintedToken) => void;
  deadlineSecs: () => number;
  log: (line: string) => void;
  /** The delegating task's trace context (telemetry/), handed to the child so its task continues the trace. */
  traceContext?: TraceContextSource;
}

/**
 * A session's delegations (seed 004, delegate-task; docs/formations.md, "Delegation"): launches each sub-capsule,
 * answers its completion, reports it as residue while it runs, and hands its outcome to the task's continuation.
 */
export class Delegations implements DelegatePort, CompletionSink, ResidueSource {
  readonly capsules: readonly string[];
  private readonly byId = new Map<string, Delegation>();
  /** Each task's wake-ups, woken as one of its delegations ends. */
  private readonly wakeups = new Map<string, Wakeups>();

  constructor(private readonly deps: DelegationsDeps) {
    this.capsules = deps.session.manifest.capabilities.spawn.allow.map(spawnName);
  }

  async delegate(capsule: string, text: string, ctx: ToolCallContext): Promise<RuntimeToolAnswer> {
    const { session, trace } = this.deps;
    const entry = session.manifest.capabilities.spawn.allow.find((e) => spawnName(e) === capsule);
    if (entry === undefined)
      throw new ToolInputError(`'${capsule}' is not a sub-capsule this capsule may delegate to; capabilities.spawn.allow names ${this.capsules.join(', ')}`);
    const id = newId('delegation');
    const hex = id.slice('dlg_'.length, 'dlg_'.length + 16);
    const childWorkdir = path.join(session.recordsDir, 'children', `${capsule}-${hex}`);
    makePrivateDir(path.join(session.recordsDir, 'children'));
    makePrivateDir(childWorkdir);
    const authenticated = session.manifest.network.authentication !== undefined;
    const token = authenticated ? `mur_${randomBytes(32).toString('base64url')}` : null;
    // The token reaches the completion path only, for this delegation only: it holds no method scope.
    if (token !== null) this.deps.acceptToken({ credential: `delegation:${id}`, scopes: [], token });
    const launched = await launchChild({
      capsuleDir: path.resolve(session.capsuleDir, entry),
      recordsDir: childWorkdir,
      deadline: session.deadline === null ? null : new Date(session.deadline.atMs).toISOString(),
      order: {
        delegationId: id,
        task: text,
        parentUrl: session.url,
        parentSession: session.sessionId,
        token,
        traceContext: this.deps.traceContext?.traceContextFor(ctx.taskId) ?? null,
      },
      stderr: (line) => this.deps.log(`delegation ${id} (${capsule}): ${line}`),
    }).catch((error: unknown) => {
      // The why names the sub-capsule only: an address or token in it is withheld (seed 004).
      throw new ToolInputError(`${capsule} could not be started, so nothing was delegated: ${withoutAddresses((error as Error).message)}`);
    });
    const deadlineSecs = this.deps.deadlineSecs();
    const delegation: Delegation = {
      id,
      capsule,
      version: launched.version,
      taskId: ctx.taskId,
      contextId: this.deps.contextOf(ctx.taskId) ?? '',
      childSessionId: launched.sessionId,
      childWorkdir,
      child: launched.child,
      awaited: true,
      outcome: null,
      delivered: false,
      timer: setTimeout(
        () => this.end(delegation, 'timed_out', `${capsule} did not finish within ${deadlineSecs}s; it was stopped`, true),
        deadlineSecs * 1000,
      ),
    };
    delegation.timer.unref();
    this.byId.set(id, delegation);
    launched.child.once('exit', () => this.end(delegation, 'lost', `${capsule}'s session ended without posting its outcome`, false));
    trace.write('delegation_start', {
      task_id: ctx.taskId,
      delegation_id: id,
      capsule,
      child_session_id: launched.sessionId,
      child_task_id: launched.taskId,
      child_workdir: childWorkdir,
    });
    return {
      data: JSON.stringify({ delegation_id: id, capsule, status: 'running' }),
      note: `[delegate-task] ${capsule} holds the task as delegation ${id}. Its outcome reaches you after you end your turn.`,
    };
  }

  awaits(delegationId: string, caller: Caller): boolean {
    const delegation = this.byId.get(delegationId);
    if (!delegation?.awaited) return false;
    // An authenticated door takes a completion only with the token minted for this delegation.
    return this.deps.session.manifest.network.authentication === undefined || caller.principal === `delegation:${delegationId}`;
  }

  deliver(delegationId: string, params: JsonObject): Message | null {
    const delegation = this.byId.get(delegationId);
    if (!delegation?.awaited) return null;
    const data = completionData(params);
    this.end(delegation, data?.status ?? 'failed', data?.output ?? `${delegation.capsule} posted a completion this runtime could not read`, false);
    return {
      messageId: `msg_${delegationId}_received`,
      contextId: delegation.contextId,
      role: 'ROLE_AGENT',
      parts: [{ data: { delegation_id: delegationId, received: true }, mediaType: 'application/json' }],
    };
  }

  residue(): ResidueItem[] {
    return [...this.byId.values()]
      .filter((d) => d.awaited)
      .map((d) => ({
        kind: 'delegation',
        delegation_id: d.id,
        capsule: d.capsule,
        version: d.version,
        child_session_id: d.childSessionId,
        child_workdir: d.childWorkdir,
      }));
  }

  runningCommandsOf(): undefined {
    return undefined;
  }

  /** This task's delegations whose outcome is not yet delivered, in the order they were made. */
  pending(taskId: string): number {
    return this.ofTask(taskId).filter((d) => !d.delivered).length;
  }

  /** Waits until every undelivered delegation of the task has an outcome, then marks them delivered. */
  async awaitRound(taskId: string, signal: AbortSignal, onStatus: (text: string) => void): Promise<DelegationOutcome[]> {
    const round = this.ofTask(taskId).filter((d) => !d.delivered);
    const outstanding = () => round.filter((d) => d.outcome === null).length;
    await awaitOutstanding(outstanding, this.wakeupsOf(taskId), signal, onStatus, (left) => `waiting on delegate-task: ${left} delegation(s) outstanding`);
    for (const d of round) d.delivered = true;
    return round.map((d) => d.outcome!);
  }

  /** The task ended: its delegations still running end with it (the residue its ending reported). */
  settle(taskId: string): void {
    for (const d of this.ofTask(taskId)) {
      if (d.awaited) this.end(d, 'canceled', 'the delegating task ended', true);
      this.byId.delete(d.id);
    }
    this.wakeups.delete(taskId);
  }

  private ofTask(taskId: string): Delegation[] {
    return [...this.byId.values()].filter((d) => d.taskId === taskId);
  }

  private end(d: Delegation, status: DelegationStatus, output: string, stopChild: boolean): void {
    if (!d.awaited) return;
    d.awaited = false;
    clearTimeout(d.timer);
    d.outcome = { delegationId: d.id, capsule: d.capsule, status, output };
    if (stopChild && d.child.exitCode === null) d.child.kill('SIGTERM');
    this.deps.trace.write('delegation', { task_id: d.taskId, delegation_id: d.id, capsule: d.capsule, status, child_session_id: d.childSessionId });
    this.wakeups.get(d.taskId)?.wake();
  }

  private wakeupsOf(taskId: string): Wakeups {
    let wakeups = this.wakeups.get(taskId);
    if (!wakeups) {
      wakeups = new Wakeups();
      this.wakeups.set(taskId, wakeups);
    }
    return wakeups;
  }
}

/** The completion's data part (cli/delegation-child.ts writes it), or null when it holds none this runtime reads. */
function completionData(params: JsonObject): Pick<CompletionData, 'status' | 'output'> | null {
  const parts = (params.message as { parts?: unknown } | undefined)?.parts;
  if (!Array.isArray(parts)) return null;
  for (const part of parts as { data?: unknown }[]) {
    const data = part?.data as Partial<CompletionData> | undefined;
    if (data && typeof data.output === 'string' && (DELEGATION_STATUSES as readonly string[]).includes(data.status as string))
      return { status: data.status!, output: data.output };
  }
  return null;
}

/** One outcome's block in the continuation, after every member answer (seed 004: answers first). */
export function outcomeBlock(o: DelegationOutcome): string {
  const header =
    o.status === 'completed'
      ? `[delegate-task] delegation ${o.delegationId} to ${o.capsule} ended completed:`
      : `[delegate-task] delegation ${o.delegationId} to ${o.capsule} ended ${o.status}, with no outcome from ${o.capsule}:`;
  return `${header}\n${fenceUntrusted(`delegation:${o.capsule}`, capOutput(o.output))}`;
}
