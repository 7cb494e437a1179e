/**
 * The door's environment settings (docs/cli.md, "Environment settings"): one typed table of every MURMUR_* and OTEL_*
 * variable the door's process reads, each with its meaning, whether it is sensitive, what it allows and its default.
 * The environment is read once, when the process starts (`mur` calls doorSettings() before its command runs): every bad
 * value is refused then, all of them in one message in the config problem format, a sensitive one without its value.
 * Everything else takes the parsed settings; no other file of apps/door/src reads process.env for a setting.
 *
 * Not settings: the environment a command runs with (the shell's, passed to children deliberately, tools/), and the
 * variables a manifest names (api_key_env, `${NAME}` in base_url and model), which are read by their name through
 * DoorSettings.variable, from the same reading.
 */
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_HEARTBEAT_MS } from '@murmur/protocol';
import { ConfigError, type ConfigProblem, SENSITIVE, shown } from './config-problem.js';

export type Environment = Readonly<Record<string, string | undefined>>;

/** One row of the table. */
interface Setting<T> {
  readonly name: string;
  readonly description: string;
  /** A sensitive value (a credential) is never printed: its refusal names the variable and what it allows only. */
  readonly sensitive: boolean;
  /** `door`: the door uses the value. `sdk`: the OpenTelemetry SDK reads it itself; the door only checks it at start. */
  readonly readBy: 'door' | 'sdk';
  /** What a value may be, as its refusal says it. */
  readonly allowed: string;
  /** The default, as docs/cli.md states it. */
  readonly defaultText: string;
  /** The value when the variable is unset or empty. */
  readonly fallback: () => T;
  /** The value, or undefined for one outside `allowed`. */
  readonly parse: (raw: string) => T | undefined;
}

const setting = <T>(row: Setting<T>): Setting<T> => row;

/** A whole number from `min` (to `max`), written in plain digits. */
const wholeNumber =
  (min: number, max = Number.MAX_SAFE_INTEGER) =>
  (raw: string): number | undefined => {
    if (!/^[0-9]+$/.test(raw.trim())) return undefined;
    const n = Number(raw.trim());
    return Number.isSafeInteger(n) && n >= min && n <= max ? n : undefined;
  };

const httpUrl = (raw: string): string | undefined => {
  try {
    const url = new URL(raw.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? raw.trim() : undefined;
  } catch {
    return undefined;
  }
};

/** OpenTelemetry's boolean: `true` or `false` in any case (the specification's "Configuration: Boolean value"). */
const otelBoolean = (raw: string): boolean | undefined => {
  const word = raw.trim().toLowerCase();
  return word === 'true' ? true : word === 'false' ? false : undefined;
};

/** OpenTelemetry's `key=value,key=value` lists (OTEL_EXPORTER_OTLP_HEADERS, OTEL_RESOURCE_ATTRIBUTES). */
const keyValueList = (raw: string): string | undefined =>
  raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
    .every((item) => item.indexOf('=') > 0)
    ? raw
    : undefined;

/** The table: DoorSettings has one field per row, named by its key here. */
export const SETTINGS = {
  home: setting<string>({
    name: 'MURMUR_HOME',
    description:
      "Where sessions keep what outlives a process: `records/` (each session's store, trace, logs and workdir), and `sessions/` and `formations/`, the registry `mur ps` and the console read",
    sensitive: false,
    readBy: 'door',
    allowed: 'an absolute path',
    defaultText: '`~/.murmur`',
    fallback: () => path.join(os.homedir(), '.murmur'),
    parse: (raw) => (path.isAbsolute(raw) ? raw : undefined),
  }),
  heartbeatMs: setting<number>({
    name: 'MURMUR_HEARTBEAT_MS',
    description: 'The interval of the `:heartbeat` comment on every open stream (tests use a short one)',
    sensitive: false,
    readBy: 'door',
    allowed: 'whole milliseconds from 10',
    defaultText: '`15000`',
    fallback: () => DEFAULT_HEARTBEAT_MS,
    parse: wholeNumber(10),
  }),
  peerFetchMaxBytes: setting<number>({
    name: 'MURMUR_PEER_FETCH_MAX_BYTES',
    description: "fetch-peer-file's size limit; it can only be lowered (tests use it)",
    sensitive: false,
    readBy: 'door',
    allowed: 'whole bytes from 1 to 268435456',
    defaultText: '`268435456` (256 MiB)',
    fallback: () => 256 * 1024 * 1024,
    parse: wholeNumber(1, 256 * 1024 * 1024),
  }),
  // 600 s: seed 004's bound ("Bound") where neither the manifest nor the environment sets one.
  delegationTimeoutSecs: setting<number>({
    name: 'MURMUR_DELEGATION_TIMEOUT_SECS',
    description: 'How long one call-member call or one delegate-task delegation may take, where the manifest sets no `lifecycle.delegation_deadline_secs`',
    sensitive: false,
    readBy: 'door',
    allowed: 'whole seconds from 1',
    defaultText: '`600`',
    fallback: () => 600,
    parse: wholeNumber(1),
  }),
  // GitHub's REST API: where a scope's source is read (docs/artifacts.md, "Sources"); tests point it at a loopback server.
  sourceApiUrl: setting<string>({
    name: 'MURMUR_SOURCE_API_URL',
    description: "Where the runtime reads a scope's GitHub source (GitHub's REST API): `install.from: [stores, sources]` and `mur pull --source`",
    sensitive: false,
    readBy: 'door',
    allowed: 'an http or https URL',
    defaultText: '`https://api.github.com`',
    fallback: () => 'https://api.github.com',
    parse: httpUrl,
  }),
  consoleDist: setting<string | null>({
    name: 'MURMUR_CONSOLE_DIST',
    description: 'The built console `mur console` and `mur demo` serve',
    sensitive: false,
    readBy: 'door',
    allowed: 'a path (a relative one from the current folder)',
    defaultText: '`apps/console/dist` of this repository',
    fallback: () => null,
    parse: (raw) => path.resolve(raw),
  }),
  harnessDir: setting<string>({
    name: 'MURMUR_HARNESS_DIR',
    description:
      'Where the harnesses of `inference.transport: process` (Claude Code, Codex) are installed, one folder a harness and version ([harness.md](harness.md#installing-the-harnesses))',
    sensitive: false,
    readBy: 'door',
    allowed: 'an absolute path',
    defaultText: '`~/.cache/murmur/harnesses`',
    fallback: () => path.join(os.homedir(), '.cache', 'murmur', 'harnesses'),
    parse: (raw) => (path.isAbsolute(raw) ? raw : undefined),
  }),
  otelSdkDisabled: setting<boolean>({
    name: 'OTEL_SDK_DISABLED',
    description: '`true` turns telemetry off, even with an endpoint set',
    sensitive: false,
    readBy: 'door',
    allowed: 'true or false, in any case',
    defaultText: '`false`',
    fallback: () => false,
    parse: otelBoolean,
  }),
  otlpEndpoint: setting<string | null>({
    name: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    description: 'The OTLP/HTTP collector; set, it turns telemetry on (spans go to `<endpoint>/v1/traces`)',
    sensitive: false,
    readBy: 'door',
    allowed: 'an http or https URL',
    defaultText: 'unset: no telemetry',
    fallback: () => null,
    parse: httpUrl,
  }),
  otlpTracesEndpoint: setting<string | null>({
    name: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    description: 'The traces endpoint itself, used as given; set, it turns telemetry on too',
    sensitive: false,
    readBy: 'door',
    allowed: 'an http or https URL',
    defaultText: 'unset',
    fallback: () => null,
    parse: httpUrl,
  }),
  otlpTimeoutMs: setting<number>({
    name: 'OTEL_EXPORTER_OTLP_TIMEOUT',
    description: 'How long one export may take, in milliseconds',
    sensitive: false,
    readBy: 'door',
    allowed: 'whole milliseconds from 1',
    defaultText: '`5000`',
    fallback: () => 5_000,
    parse: wholeNumber(1),
  }),
  otlpHeaders: setting<string | null>({
    name: 'OTEL_EXPORTER_OTLP_HEADERS',
    description: "Headers sent with every export, such as a collector's API key",
    sensitive: true,
    readBy: 'sdk',
    allowed: 'comma-separated key=value pairs',
    defaultText: 'unset',
    fallback: () => null,
    parse: keyValueList,
  }),
  otlpCompression: setting<'gzip' | 'none' | null>({
    name: 'OTEL_EXPORTER_OTLP_COMPRESSION',
    description: 'Whether exports are compressed',
    sensitive: false,
    readBy: 'sdk',
    allowed: 'gzip or none',
    defaultText: 'unset: none',
    fallback: () => null,
    parse: (raw) => (raw.trim() === 'gzip' || raw.trim() === 'none' ? (raw.trim() as 'gzip' | 'none') : undefined),
  }),
  otelServiceName: setting<string | null>({
    name: 'OTEL_SERVICE_NAME',
    description: "The spans' `service.name`",
    sensitive: false,
    readBy: 'sdk',
    allowed: 'any text',
    defaultText: "the capsule's name",
    fallback: () => null,
    parse: (raw) => raw,
  }),
  otelResourceAttributes: setting<string | null>({
    name: 'OTEL_RESOURCE_ATTRIBUTES',
    description: "More resource attributes of the spans, over the door's own",
    sensitive: false,
    readBy: 'sdk',
    allowed: 'comma-separated key=value pairs',
    defaultText: 'unset',
    fallback: () => null,
    parse: keyValueList,
  }),
} as const;

type SettingKey = keyof typeof SETTINGS;

type SettingValues = { readonly [K in SettingKey]: ReturnType<(typeof SETTINGS)[K]['fallback']> };

/** The parsed settings, fixed once read; and the variables a manifest names, read by name from the same reading. */
export interface DoorSettings extends SettingValues {
  /**
   * The variable a manifest names (api_key_env; `${NAME}` in base_url and model), as the environment held it when it
   * was read; undefined when unset. Never printed: a key comes through here.
   */
  variable(name: string): string | undefined;
}

/** What reads a variable by the name a manifest gives: the settings, or a test's stand-in. */
export type Variables = Pick<DoorSettings, 'variable'>;

/** The environment's bad values, every one of them: exit 2 before anything starts. */
export class SettingsError extends ConfigError {
  override readonly name = 'SettingsError';
}

const ENVIRONMENT_SOURCE = 'the environment';

/** Parses `env` against the table; throws SettingsError naming every bad value. An empty value is an unset one. */
export function readSettings(env: Environment): DoorSettings {
  const problems: ConfigProblem[] = [];
  const values: Record<string, unknown> = {};
  for (const [key, row] of Object.entries(SETTINGS) as [SettingKey, Setting<unknown>][]) {
    const raw = env[row.name];
    if (raw === undefined || raw.trim() === '') {
      values[key] = row.fallback();
      continue;
    }
    const parsed = row.parse(raw);
    if (parsed === undefined) problems.push({ path: row.name, found: row.sensitive ? SENSITIVE : shown(raw), allowed: row.allowed });
    else values[key] = parsed;
  }
  if (problems.length > 0) throw new SettingsError(ENVIRONMENT_SOURCE, problems);
  const reading: Environment = Object.freeze({ ...env });
  return Object.freeze({ ...(values as unknown as SettingValues), variable: (name: string) => reading[name] });
}

let read: DoorSettings | null = null;

/**
 * This process's settings: process.env read the first time this is called (`mur` calls it before any command runs,
 * so a bad value stops the process at start) and the same object ever after.
 */
export function doorSettings(): DoorSettings {
  read ??= readSettings(process.env);
  return read;
}
