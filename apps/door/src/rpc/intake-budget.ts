import { IntakeBudget } from '../common/request-body.js';

/**
 * Bytes of request bodies the door reads and parses at once. A body costs several copies of itself while it is read,
 * decoded, parsed and stored (raw chunks, the text, the parsed message), so concurrent intake is bounded by bytes,
 * not by the number of requests: a body that does not fit waits, unread, until earlier ones are taken in
 * (docs/decisions.md, "Request bodies wait for the intake budget"). Its socket holds what the client already sent.
 * @default twice the body limit (16 MiB with text-only messages, 55.4 MiB with the default image limits)
 * @unit bytes (the request's Content-Length; the body limit for a chunked body, which names no length)
 */
export function intakeBytesFor(bodyLimit: number): number {
  return 2 * bodyLimit;
}

/**
 * Bodies up to this size reserve from a budget of their own, so a small request never waits behind a large body:
 * only behind other small ones, once SMALL_INTAKE_BYTES of them are being read at once.
 */
export const INTAKE_SMALL_BODY_BYTES = 64 * 1024;

/**
 * Bytes of small bodies (up to INTAKE_SMALL_BODY_BYTES each) read and parsed at once: 128 of the largest, thousands
 * of ordinary requests. Past it a small body waits its turn, unread.
 * @default 8 MiB
 * @unit bytes (each body by its Content-Length)
 */
export const SMALL_INTAKE_BYTES = 8 * 1024 * 1024;

/** The door's intake budgets, shared by its routes and its fast lane (app.module.ts). */
export const DOOR_INTAKE = Symbol('DOOR_INTAKE');

/** The door's two intake budgets: small bodies in their own, so they never queue behind a large one. */
export interface DoorIntake {
  large: IntakeBudget;
  small: IntakeBudget;
}

export function doorIntakeFor(bodyLimit: number): DoorIntake {
  return { large: new IntakeBudget(intakeBytesFor(bodyLimit)), small: new IntakeBudget(SMALL_INTAKE_BYTES) };
}
