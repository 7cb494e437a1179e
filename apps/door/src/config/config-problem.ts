/**
 * The one way a bad setting is named, wherever it was read (docs/cli.md, "What a refusal names"): the source (a file,
 * or the environment), then one line per problem,
 *
 *     <source>:
 *       <path>: found <value>; allowed: <what is allowed>
 *
 * so murmur.yaml, roster.yaml, a script and the environment all read alike, and a reader (or a test) finds the key,
 * what was there and what would do in the same places on every line.
 */

/** One bad value: where it is, what was there, and what would have been accepted. */
export interface ConfigProblem {
  /** The key path as configPath writes it (`capabilities.shell.allow[0]`), or a variable's name. */
  readonly path: string;
  /** What was found, already worded: shown(value), NOTHING, SENSITIVE, or a phrase such as `unknown key "shel"`. */
  readonly found: string;
  /** What would be accepted here, as a phrase: `one of "single", "queue", "none"`, `an integer from 1`. */
  readonly allowed: string;
  /** A further refusal this one stands on (a formation member's own murmur.yaml), printed indented below the line. */
  readonly detail?: string;
}

/** The value of a key that is not there. */
export const NOTHING = 'nothing';

/** The value of a sensitive setting: never printed, not even in part. */
export const SENSITIVE = 'a value that is not shown (sensitive)';

/** The longest value a line quotes; a longer one is cut, ending in `…`. @unit characters */
const MAX_SHOWN = 80;

/** A value as a problem line quotes it: JSON (strings in double quotes, lists and mappings inline), cut when long. */
export function shown(value: unknown): string {
  if (value === undefined) return NOTHING;
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN - 1)}…` : text;
}

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/**
 * A key path as every problem line writes it: keys joined by `.`, list indexes in brackets, a key that is not a plain
 * word quoted in brackets; `(top level)` for the document itself. `['capabilities', 'shell', 'allow', 0]` →
 * `capabilities.shell.allow[0]`.
 */
export function configPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(top level)';
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (typeof segment === 'string' && PLAIN_KEY.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out;
}

/** `one of "a", "b", "c"`, or the one value alone. */
export function oneOf(values: readonly unknown[]): string {
  const listed = values.map((v) => shown(v));
  return listed.length === 1 ? listed[0] : `one of ${listed.join(', ')}`;
}

/** The problem line, without its indent. */
export function problemLine(problem: ConfigProblem): string {
  return `${problem.path}: found ${problem.found}; allowed: ${problem.allowed}`;
}

const indent = (text: string, by: string) =>
  text
    .split('\n')
    .map((line) => `${by}${line}`)
    .join('\n');

/** The whole refusal: the source, then each problem on its own line, two spaces in (a detail four). */
function describeProblems(source: string, problems: readonly ConfigProblem[]): string {
  const lines = problems.map((p) => `  ${problemLine(p)}${p.detail === undefined ? '' : `\n${indent(p.detail, '    ')}`}`);
  return `${source}:\n${lines.join('\n')}`;
}

/**
 * A configuration that cannot be used. `problems` holds each bad value (the message lists them all); a refusal that
 * is about the source as a whole (no such file, not YAML at all) has none, and its message is `<source>: <text>`.
 * Each reader extends it (ManifestError, RosterError, ScriptError, SettingsError), so the CLI maps one base class to
 * exit code 2.
 */
export class ConfigError extends Error {
  override readonly name: string = 'ConfigError';
  readonly problems: readonly ConfigProblem[];

  constructor(
    /** The file's path, or `the environment`. */
    readonly source: string,
    problems: readonly ConfigProblem[] | string,
  ) {
    super(typeof problems === 'string' ? `${source}: ${problems}` : describeProblems(source, problems));
    this.problems = typeof problems === 'string' ? [] : problems;
  }
}

/** A ConfigError subclass, as the readers take it: the error a loader throws is its own. */
export type ConfigErrorClass = new (source: string, problems: readonly ConfigProblem[] | string) => ConfigError;
