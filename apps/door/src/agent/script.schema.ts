/**
 * The `script` driver's file: rules matched on the task's text, each the turns to play (docs/script-driver.md). A
 * rule's message is what the key allows (`<path>: found <value>; allowed: <message>`).
 */
import * as z from 'zod';

const toolCall = z.strictObject({
  tool: z.string().min(1),
  input: z.record(z.string(), z.unknown()).default({}),
  id: z.string().min(1).optional(),
});

/** Token usage a scripted call reports, as a provider would (for session-status and the inference records). */
const usage = z.strictObject({
  input: z.number().int().min(0).optional(),
  output: z.number().int().min(0).optional(),
  cached: z.number().int().min(0).optional(),
  cache_write: z.number().int().min(0).optional(),
  reasoning: z.number().int().min(0).optional(),
});

const turn = z
  .strictObject({
    thinking: z.array(z.string()).default([]),
    text: z.array(z.string()).default([]),
    /** Delay before each chunk, so streams can be observed. */
    pace_ms: z.number().int().min(0).default(0),
    /** Emit text chunks this many times (benchmarks): the `text` list is played `repeat` times. */
    repeat: z.number().int().min(1).default(1),
    /** A cancellable pause inside the inference call, as a slow model would take. */
    sleep_ms: z.number().int().min(0).default(0),
    tools: z.array(toolCall).default([]),
    usage: usage.optional(),
    answer: z.string().optional(),
    ask: z.string().optional(),
    fail: z.string().optional(),
  })
  .refine((t) => [t.answer, t.ask, t.fail].filter((x) => x !== undefined).length <= 1, {
    message: 'a turn that ends with at most one of answer, ask and fail',
  });

const rule = z.strictObject({
  match: z.string().refine(
    (source) => {
      try {
        new RegExp(source);
        return true;
      } catch {
        return false;
      }
    },
    { message: 'a regular expression JavaScript reads' },
  ),
  flags: z
    .string()
    .regex(/^[imsu]*$/, 'some of the flags i, m, s and u')
    .default('i'),
  turns: z.array(turn).min(1),
});

export const scriptSchema = z.strictObject({
  rules: z.array(rule).default([]),
  default: z.strictObject({ turns: z.array(turn).min(1) }),
});

export type Script = z.output<typeof scriptSchema>;
export type ScriptTurn = z.output<typeof turn>;
