/**
 * The grammar of what a capsule's murmur.yaml says of artifacts (docs/artifacts.md): a full name `<scope>/<name>`, a
 * declared entry (a full name, optionally `@<version>`), a grant entry (a full name or `<scope>/<prefix>*`), and the
 * names seed 004 reserves for the runtime-provided tools. Below every room that reads an artifact, so the manifest's
 * schema refuses what it can see before anything is staged.
 */
import semver from 'semver';

const SCOPE = '[a-z0-9][a-z0-9-]{0,38}';
/** A tool name every provider takes (OpenAI's and Anthropic's `^[a-zA-Z0-9_-]{1,64}$`), lowercase. */
const NAME = '[a-z0-9][a-z0-9_-]{0,63}';

export const FULL_NAME = new RegExp(`^(${SCOPE})/(${NAME})$`);
const GRANT_PREFIX = new RegExp(`^${SCOPE}/[a-z0-9_-]{0,64}\\*$`);

export const FULL_NAME_RULE = 'a full name <scope>/<name>: lowercase letters, digits and - (the scope), lowercase letters, digits, - and _ (the name)';

/**
 * Seed 004, "Reserved names": the eleven runtime-provided tools an artifact's tool name may never be, whether or not
 * the capsule declares the grant that would provide the tool. Shell binary names are not reserved.
 */
const RESERVED_TOOL_NAMES = [
  'share-file',
  'fetch-peer-file',
  'delegate-task',
  'submit-plan',
  'switch-driver',
  'call-member',
  'end-without-answer',
  'pull-artifact',
  'remove-artifact',
  'session-status',
  'background-command',
] as const;

/** The tool name of a full name: the part after the `/`. */
export const toolNameOf = (fullName: string): string => fullName.slice(fullName.indexOf('/') + 1);

export function isReservedToolName(name: string): boolean {
  return (RESERVED_TOOL_NAMES as readonly string[]).includes(name);
}

/** A declared entry or a pull's value: a full name and, when `@<version>` follows it, that version. */
export interface ArtifactRequest {
  fullName: string;
  version: string | null;
}

/** Reads `<scope>/<name>` or `<scope>/<name>@<version>`; null when it is neither. */
export function readArtifactRequest(value: string): ArtifactRequest | null {
  const at = value.indexOf('@');
  const fullName = at === -1 ? value : value.slice(0, at);
  const version = at === -1 ? null : value.slice(at + 1);
  if (!FULL_NAME.test(fullName)) return null;
  if (version !== null && semver.valid(version) !== version) return null;
  return { fullName, version };
}

/** A grant entry: a full name, or a scope and a prefix ending in `*`. */
export function isGrantEntry(entry: string): boolean {
  return FULL_NAME.test(entry) || GRANT_PREFIX.test(entry);
}

/** Whether a grant entry (or a pattern ending in `*`) names `fullName`. */
export function namesArtifact(entry: string, fullName: string): boolean {
  return entry.endsWith('*') ? fullName.startsWith(entry.slice(0, -1)) : entry === fullName;
}
