/**
 * roster.yaml, validated key by key (docs/formations.md, "roster.yaml"): unknown keys are refused, as in murmur.yaml,
 * and a rule's message is what the key allows (`<path>: found <value>; allowed: <message>`).
 */
import * as z from 'zod';

const MEMBER_NAME = /^[a-z][a-z0-9_-]*$/;

const memberName = z.string().regex(MEMBER_NAME, 'a member name: lowercase letters, digits, - and _, starting with a letter');

export const rosterSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, 'a formation name: lowercase letters, digits, ., - and _, starting with a letter or digit'),
  entry: memberName,
  /** An RFC 3339 time or a duration such as 30m, as mur run --deadline takes; every member inherits it. */
  deadline: z.string().min(1).optional(),
  members: z.record(memberName, z.strictObject({ capsule: z.string().min(1) })).refine((m) => Object.keys(m).length > 0, 'at least one member'),
  rules: z.array(z.strictObject({ from: memberName, to: z.array(memberName).min(1) })).default([]),
});
