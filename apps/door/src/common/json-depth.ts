/**
 * How deep a JSON value from outside may nest (objects and arrays): far past any tool's arguments or message, far short
 * of what the door's own JSON printing can take when it records them (V8's JSON.stringify stops near 4,000 levels, and
 * a record wraps a value a few levels deeper). A tool call's arguments from a model and a request to a harness's tool
 * server are held to it (docs/drivers.md, docs/harness.md).
 */
export const MAX_JSON_DEPTH = 64;

/** Whether `value` nests objects and arrays at most `max` deep; walked without recursion, so any depth can be asked. */
export function nestsWithin(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: at, depth } = stack.pop()!;
    if (at === null || typeof at !== 'object') continue;
    if (depth >= max) return false;
    for (const child of Array.isArray(at) ? at : Object.values(at)) stack.push({ value: child, depth: depth + 1 });
  }
  return true;
}
