/** Strict ProtoJSON checks against the A2A v1.0.1 descriptor in ../shared/spec (present in CI and development only). */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createFileRegistry, fromBinary, fromJson } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';

/**
 * The compiled descriptor: env A2A_BINPB, else shared/spec/a2a-v1.0.1.binpb in the nearest folder above this file
 * that has one; null when absent.
 */
function findBinpb(): string | null {
  const fromEnv = process.env.A2A_BINPB;
  if (fromEnv) return existsSync(fromEnv) ? fromEnv : null;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, 'shared', 'spec', 'a2a-v1.0.1.binpb');
    if (existsSync(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/** node:test's `skip` for a strict check: false when the descriptor is here, else the reason it is skipped. */
export function strictSkip(): false | string {
  return findBinpb() ? false : 'A2A descriptor shared/spec/a2a-v1.0.1.binpb not found above this test or at $A2A_BINPB: strict ProtoJSON check skipped';
}

/** Parses `json` as the named lf.a2a.v1 message with ignoreUnknownFields: false; throws on anything ProtoJSON refuses. */
export function parseStrict(typeName: string, json: unknown): void {
  const binpb = findBinpb();
  if (!binpb) throw new Error('no A2A descriptor: guard the test with strictSkip()');
  const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, readFileSync(binpb)));
  const schema = registry.getMessage(typeName);
  if (!schema) throw new Error(`${typeName} is not in the descriptor`);
  fromJson(schema, json as Parameters<typeof fromJson>[1], { ignoreUnknownFields: false });
}
