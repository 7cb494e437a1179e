import { ARTIFACT_CODE, ARTIFACT_REFUSAL } from '@murmur/protocol';

/**
 * The WIT level this runtime serves (docs/artifacts.md, "The WIT level"): the interfaces a WASM tool's component may
 * import, and the one it exports, by package version. A component fits when it exports murmur:tool/run at this level
 * and imports nothing else. Read from the component's own WIT (`wasm-tools component wit`), never from a record.
 */
export const WIT_LEVEL = '0.1';

const EXPORT = 'murmur:tool/run';
/** Interface → the version prefix a component's import must have. */
const SERVED_IMPORTS: Readonly<Record<string, string>> = {
  'murmur:task/task': '0.1.',
  'murmur:text/chunks': '0.1.',
  'wasi:random/random': '0.2.',
  'wasi:clocks/wall-clock': '0.2.',
};

/** What a component's WIT says it needs. */
export type WitFit = { fits: true } | { fits: false; level: string | null; why: string };

/** The level a package version is at: `0.<minor>` below 1.0, `<major>` from it, as WIT's semver compatibility groups them. */
export function levelOf(version: string): string {
  const [major = '0', minor = '0'] = version.split('.');
  return major === '0' ? `0.${minor}` : major;
}

/** The world's import and export items, one statement each (an inline interface's body skipped). */
function worldItems(wit: string): { kind: 'import' | 'export'; item: string }[] {
  const start = wit.search(/\bworld\s+[^\s{]+\s*\{/);
  if (start === -1) return [];
  const body = wit.slice(wit.indexOf('{', start) + 1);
  const items: { kind: 'import' | 'export'; item: string }[] = [];
  let depth = 0;
  for (const raw of body.split('\n')) {
    const line = raw.trim();
    if (depth === 0) {
      const match = /^(import|export)\s+(.+?)\s*[;{]?$/.exec(line);
      if (match) items.push({ kind: match[1] as 'import' | 'export', item: match[2]!.replace(/;$/, '') });
      if (line === '}') break;
    }
    depth += (line.match(/\{/g) ?? []).length - (line.match(/\}/g) ?? []).length;
  }
  return items;
}

/** Whether a component whose WIT is `wit` fits the level this runtime serves, and if not, why, in the refusal's words. */
export function witFit(wit: string): WitFit {
  const items = worldItems(wit);
  const exported = items.filter((i) => i.kind === 'export').map((i) => i.item);
  const tool = exported.find((item) => item.startsWith(`${EXPORT}@`));
  const level = tool === undefined ? null : levelOf(tool.slice(EXPORT.length + 1));
  if (tool === undefined) return { fits: false, level: null, why: `it exports no ${EXPORT}` };
  if (level !== WIT_LEVEL) return { fits: false, level, why: `it exports ${tool}` };
  const otherExport = exported.find((item) => item !== tool);
  if (otherExport !== undefined) return { fits: false, level, why: `it exports ${otherExport}, which WIT level ${WIT_LEVEL} does not take` };
  for (const { kind, item } of items) {
    if (kind !== 'import') continue;
    const [name, version = ''] = item.split('@') as [string, string?];
    const prefix = SERVED_IMPORTS[name];
    if (prefix === undefined || !version.startsWith(prefix)) {
      const served = prefix !== undefined && version !== '' ? levelOf(version) : level;
      return { fits: false, level: served, why: `it imports ${item}, which WIT level ${WIT_LEVEL} does not serve` };
    }
  }
  return { fits: true };
}

/** The most characters of a component's own words (a WIT item, the toolchain's refusal) that a refusal quotes. */
const WHY_MAX_CHARS = 300;

/** The does-not-fit refusal (seed 004: E-WIT-LEVEL-001, naming the newest version that fits). */
export function doesNotFit(fullName: string, version: string, fit: Exclude<WitFit, { fits: true }>, newestFitting: string | null): string {
  const built = fit.level === null ? 'is built for no WIT level this mur knows' : `is built for WIT level ${fit.level.slice(0, 40)}`;
  // A component names its imports and exports as long as it likes: what the model reads of them is bounded.
  const why = fit.why.length > WHY_MAX_CHARS ? `${fit.why.slice(0, WHY_MAX_CHARS - 1)}…` : fit.why;
  const newest = newestFitting === null ? `no version of ${fullName} fits` : `the newest version that fits is ${newestFitting}`;
  return `${ARTIFACT_REFUSAL.doesNotFit} ${ARTIFACT_CODE.witLevel}: ${fullName} ${version} ${built} (${why}), and this mur serves WIT level ${WIT_LEVEL}; ${newest}`;
}
