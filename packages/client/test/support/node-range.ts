/**
 * Just enough of npm's range grammar to compare `engines.node` fields: comparators (>=, >, <=, <, =), partial
 * versions (20, 20.19, 20.x), ^ and ~, spaces as AND and `||` as OR. Anything else throws, so a dependency that
 * starts writing a range this cannot read fails the engines test instead of passing it unread.
 */
type Version = readonly [number, number, number];
type Op = '>=' | '>' | '<=' | '<';
interface Comparator {
  op: Op;
  version: Version;
}
/** OR of ANDs. */
type Range = Comparator[][];

const HUGE = 1_000_000;

function compare(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

function holds(c: Comparator, v: Version): boolean {
  const d = compare(v, c.version);
  return c.op === '>=' ? d >= 0 : c.op === '>' ? d > 0 : c.op === '<=' ? d <= 0 : d < 0;
}

/** A version with missing or wildcard parts: [major, minor?, patch?]. */
function partial(text: string, range: string): (number | null)[] {
  const parts = text.replace(/^v/, '').split('.');
  if (parts.length > 3 || parts.some((p) => !/^(\d+|x|X|\*)$/.test(p))) throw new Error(`cannot read the range '${range}'`);
  const numbers = parts.map((p) => (/^\d+$/.test(p) ? Number(p) : null));
  const firstWild = numbers.indexOf(null);
  if (firstWild !== -1 && numbers.slice(firstWild).some((n) => n !== null)) throw new Error(`cannot read the range '${range}'`);
  while (numbers.length < 3) numbers.push(null);
  return numbers;
}

const floor = (p: (number | null)[]): Version => [p[0] ?? 0, p[1] ?? 0, p[2] ?? 0];

/** The first version above every version the partial names (20.19 → 20.20.0, 20 → 21.0.0). */
function ceiling(p: (number | null)[]): Version {
  if (p[1] === null) return [(p[0] ?? 0) + 1, 0, 0];
  if (p[2] === null) return [p[0]!, p[1]! + 1, 0];
  return [p[0]!, p[1]!, p[2]! + 1];
}

function comparatorsOf(token: string, range: string): Comparator[] {
  const m = /^(\^|~|>=|<=|>|<|=)?(.*)$/.exec(token)!;
  const op = m[1] ?? '';
  const p = partial(m[2]!, range);
  if (p[0] === null) return op === '<' || op === '>' ? [{ op: '<', version: [0, 0, 0] }] : [];
  switch (op) {
    case '>=':
      return [{ op: '>=', version: floor(p) }];
    case '>':
      return [{ op: '>=', version: ceiling(p) }];
    case '<':
      return [{ op: '<', version: floor(p) }];
    case '<=':
      return [{ op: '<', version: ceiling(p) }];
    case '^': {
      const upper: Version = p[0]! > 0 || p[1] === null ? [p[0]! + 1, 0, 0] : p[1]! > 0 || p[2] === null ? [0, p[1]! + 1, 0] : [0, 0, p[2]! + 1];
      return [
        { op: '>=', version: floor(p) },
        { op: '<', version: upper },
      ];
    }
    case '~':
      return [
        { op: '>=', version: floor(p) },
        { op: '<', version: p[1] === null ? [p[0]! + 1, 0, 0] : [p[0]!, p[1]! + 1, 0] },
      ];
    default:
      return [
        { op: '>=', version: floor(p) },
        { op: '<', version: ceiling(p) },
      ];
  }
}

export function parseRange(range: string): Range {
  if (/\s-\s/.test(range)) throw new Error(`cannot read the range '${range}'`);
  return range.split('||').map((alternative) => {
    const tokens = alternative
      .trim()
      .replace(/(>=|<=|>|<|=|\^|~)\s+/g, '$1')
      .split(/\s+/)
      .filter(Boolean);
    return tokens.flatMap((token) => comparatorsOf(token, range));
  });
}

function satisfies(range: Range, v: Version): boolean {
  return range.some((all) => all.every((c) => holds(c, v)));
}

function before(v: Version): Version | null {
  if (v[2] > 0) return [v[0], v[1], v[2] - 1];
  if (v[1] > 0) return [v[0], v[1] - 1, HUGE];
  return v[0] > 0 ? [v[0] - 1, HUGE, HUGE] : null;
}

/**
 * A Node version `own` admits and `dependency` does not, or null when every version `own` admits the dependency
 * admits too. Both ranges are unions of intervals bounded at their comparators' versions, so probing each bound
 * and its neighbours on both sides finds any version in one and not the other (the lowest such probe is named).
 */
export function excludedVersion(own: string, dependency: string): string | null {
  const a = parseRange(own);
  const b = parseRange(dependency);
  const bounds = [...a, ...b].flat().map((c) => c.version);
  const probes: Version[] = [
    [0, 0, 0],
    [HUGE, 0, 0],
  ];
  for (const v of bounds) {
    probes.push(v, [v[0], v[1], v[2] + 1]);
    const earlier = before(v);
    if (earlier) probes.push(earlier);
  }
  probes.sort(compare);
  const found = probes.find((v) => satisfies(a, v) && !satisfies(b, v));
  return found ? found.join('.') : null;
}
