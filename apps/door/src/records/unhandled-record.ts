/**
 * For a `switch` over TraceLine's types (trace-schema.ts) that must name every one: a type left out fails the build
 * here. Apart from the schema, so a reader in the door's runtime (telemetry) switches without loading zod's schemas.
 */
export function unhandledRecord(line: never): never {
  throw new Error(`unhandled trace record ${JSON.stringify(line)}`);
}
