import { MAX_JSON_DEPTH, nestsWithin } from '../../common/json-depth.js';
import { cut, ProviderFailure } from './provider-failure.js';

/** A tool call's arguments as assembled from the stream: a JSON object, `""` read as `{}`. */
export function parseToolArguments(id: string, name: string, json: string): Record<string, unknown> {
  if (json.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    value = undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ProviderFailure('arguments', `tool call ${cut(id)} (${cut(name)}): its arguments are not a JSON object`);
  }
  // What a model writes: nested past what the door can record, it would fail later as an internal error.
  if (!nestsWithin(value)) {
    throw new ProviderFailure('arguments', `tool call ${cut(id)} (${cut(name)}): its arguments nest deeper than ${MAX_JSON_DEPTH} levels`);
  }
  return value as Record<string, unknown>;
}
