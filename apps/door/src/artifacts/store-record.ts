import { stringify } from 'yaml';
import * as z from 'zod';
import { ConfigError } from '../config/config-problem.js';
import { parseYamlConfig } from '../config/yaml-config.js';
import { FULL_NAME, FULL_NAME_RULE } from '../manifest/artifact-entries.js';
import type { ArtifactManifest } from './artifact-manifest.js';
import { DIGEST } from './content-digest.js';

/** A record at most. @unit bytes */
export const RECORD_MAX_BYTES = 64 * 1024;

/** A store's or a source's record that cannot be read. */
export class RecordError extends ConfigError {
  override readonly name = 'RecordError';
}

/**
 * What mur publish read of an archive, beside it in a store (docs/artifacts.md, "The stores"): a hint for listing and
 * for choosing a version. The archive itself is checked before it is used.
 */
const recordSchema = z.strictObject({
  artifact: z.string().regex(FULL_NAME, FULL_NAME_RULE),
  version: z.string().min(1),
  digest: z.string().regex(DIGEST, 'sha256:<64 hex digits>'),
  runtime: z.enum(['tool', 'skill', 'hook', 'driver']),
  implementation: z.enum(['native', 'wasm']).optional(),
  description: z.string().max(1024).optional(),
  /** A WASM tool's: the WIT level its component was built for. */
  wit: z.string().optional(),
});

export type StoreRecord = z.output<typeof recordSchema>;

export function parseStoreRecord(text: string, source: string): StoreRecord {
  return parseYamlConfig(text, source, recordSchema, RecordError);
}

/** The record mur publish writes for a checked artifact. */
export function storeRecordText(manifest: ArtifactManifest, digest: string, wit: string | null): string {
  const record: StoreRecord = {
    artifact: manifest.name,
    version: manifest.version,
    digest,
    runtime: manifest.runtime,
    ...(manifest.implementation === undefined ? {} : { implementation: manifest.implementation }),
    description: manifest.description,
    ...(wit === null ? {} : { wit }),
  };
  return stringify(record);
}
