/**
 * The IPC messages between a delegating session and its sub-capsule's process (docs/formations.md, "Delegation").
 * The delegation token travels only here: never on disk, in argv or in the environment.
 */

import type { DelegationStatus } from '../records/record-statuses.js';

/** How a delegation ended, as the child reports it in its completion: the records' list. */
export type { DelegationStatus };

export type ChildToParent =
  | { kind: 'announced'; sessionId: string; url: string; pid: number; version: string }
  | { kind: 'launched'; taskId: string }
  | { kind: 'posted'; delivered: boolean; error: string | null }
  | { kind: 'failed'; message: string };

export interface DelegateOrder {
  kind: 'delegate';
  delegationId: string;
  task: string;
  parentUrl: string;
  parentSession: string;
  /** The token the completion presents; null for a public parent door. */
  token: string | null;
  /**
   * The delegate-task tool call's W3C trace context (docs/telemetry.md), null when the parent exports no trace: the
   * child's task continues it, as a member's task continues a call's traceparent header.
   */
  traceContext: { traceparent: string; tracestate?: string } | null;
}

/** The completion's one data part: what the child's task ended with. */
export interface CompletionData {
  delegation_id: string;
  task_id: string;
  status: DelegationStatus;
  output: string;
}

export function isChildMessage(value: unknown): value is ChildToParent {
  return typeof value === 'object' && value !== null && typeof (value as { kind?: unknown }).kind === 'string';
}

export function isDelegateOrder(value: unknown): value is DelegateOrder {
  return (value as { kind?: unknown } | null)?.kind === 'delegate';
}
