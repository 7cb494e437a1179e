/**
 * A JSON value as a TOML value, for Codex's `-c key=value` overrides: strings as TOML basic strings (JSON's escapes
 * are TOML's), numbers and booleans as they are, arrays and inline tables. TOML has no null: refused.
 */
export function tomlValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(tomlValue).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([k, v]) => `${tomlKey(k)} = ${tomlValue(v)}`)
      .join(', ')}}`;
  }
  throw new TypeError(`${JSON.stringify(value)} has no TOML form`);
}

/** A key, bare when TOML allows it, quoted otherwise. */
export const tomlKey = (key: string): string => (/^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key));
