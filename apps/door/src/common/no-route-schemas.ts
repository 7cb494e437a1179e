import type { FastifyServerOptions } from 'fastify';

function refuse(): never {
  throw new Error("this server's routes declare no JSON Schema: they read their bodies themselves (@murmur/protocol's rules)");
}

/**
 * Fastify's `schemaController` for a server whose routes declare no JSON Schema, as the door's and mur console's do
 * (the door's JSON-RPC bodies are read by @murmur/protocol's rules, with the seeds' error messages; mur console's
 * routes read only paths and queries). Without it Fastify loads Ajv and fast-json-stringify when it starts, for
 * nothing: ~1 MiB of an idle door's heap (docs/benchmarks.md, issue 17, bundled run path), and ~60 ms of CPU and
 * ~6 MiB of mur console's start. Fastify asks for a compiler only when a route declares a schema; such a route would
 * fail to register with the message above.
 */
export const NO_ROUTE_SCHEMAS: NonNullable<FastifyServerOptions['schemaController']> = {
  compilersFactory: { buildValidator: refuse, buildSerializer: refuse },
};
