import type { FastifyServerOptions } from 'fastify';

function refuse(): never {
  throw new Error("the door's routes declare no JSON Schema: they read their bodies themselves (@murmur/protocol's rules)");
}

/**
 * Fastify's `schemaController` for a server whose routes declare no JSON Schema, as the door's do (its JSON-RPC
 * bodies are read by @murmur/protocol's rules, with the seeds' error messages). Without it Fastify loads Ajv and
 * fast-json-stringify when it starts, for nothing: ~1 MiB of an idle door's heap (docs/benchmarks.md, issue 17,
 * bundled run path). Fastify asks for a compiler only when a route declares a schema; such a route would fail to
 * register with the message above.
 */
export const NO_ROUTE_SCHEMAS: NonNullable<FastifyServerOptions['schemaController']> = {
  compilersFactory: { buildValidator: refuse, buildSerializer: refuse },
};
