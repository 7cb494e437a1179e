/**
 * The traversal corpus (docs/planes.md, "Path confinement"): request targets under /resources/files that try to
 * leave the root, generated as combinations of dot segments, separators and their encodings (percent, upper/lower
 * case, double, overlong UTF-8), NUL, absolute paths and backslashes, plus the fixture's links that resolve outside.
 * Every one must be answered the one file_not_found refusal.
 */

/** `..` and look-alikes in every encoding. */
const DOTS = [
  '..',
  '%2e%2e',
  '%2E%2E',
  '.%2e',
  '%2e.',
  '%252e%252e',
  '%25252e%25252e',
  '%c0%ae%c0%ae',
  '%e0%80%ae%e0%80%ae',
  '%f0%80%80%ae%f0%80%80%ae',
  '%c0%2e%c0%2e',
  '..%00',
  '%2e%2e%00',
  '.%00.',
  '...',
  '%uff0e%uff0e',
  '..%2500',
];

/** `/` and `\` in every encoding. */
const SEPARATORS = ['/', '%2f', '%2F', '%252f', '%c0%af', '%e0%80%af', '\\', '%5c', '%5C', '%255c', '%c1%9c'];

/** What an escape reaches: one level up from the root, a sibling folder, the capsule's manifest. */
const TARGETS = [['secret.txt'], ['outside', 'secret2.txt'], ['murmur.yaml']];

/** Where the climb starts: at the root, or one folder down (so it needs two levels). */
const STARTS: string[][] = [[], ['sub']];

const PREFIX = '/resources/files/';

function combinations(): string[] {
  const out: string[] = [];
  for (const dots of DOTS) {
    for (const sep of SEPARATORS) {
      for (const target of TARGETS) {
        for (const start of STARTS) {
          const climb = Array.from({ length: start.length + 1 }, () => dots);
          out.push(PREFIX + [...start, ...climb, ...target].join(sep));
        }
      }
    }
  }
  return out;
}

/** Absolute paths, NUL, single dots and other forms one at a time. */
const SINGLES = [
  '/resources/files//etc/passwd',
  '/resources/files///etc/passwd',
  '/resources/files/%2fetc%2fpasswd',
  '/resources/files/%2Fetc/passwd',
  '/resources/files/%5cetc%5cpasswd',
  '/resources/files/\\etc\\passwd',
  '/resources/files/C:%5cWindows%5cwin.ini',
  '/resources/files/file:%2f%2f%2fetc%2fpasswd',
  '/resources/files/hello.txt%00',
  '/resources/files/hello.txt%00.png',
  '/resources/files/%00',
  '/resources/files/sub%00/inner.md',
  '/resources/files/hello.txt%0a',
  '/resources/files/hello.txt%0d%0aX-Injected:%201',
  '/resources/files/hello%7f.txt',
  '/resources/files/./hello.txt',
  '/resources/files/%2e/hello.txt',
  '/resources/files/sub/../hello.txt',
  '/resources/files/sub/%2e%2e/hello.txt',
  '/resources/files/sub%2f..%2fhello.txt',
  '/resources/files/sub/./inner.md',
  '/resources/files/sub//inner.md',
  '/resources/files/..',
  '/resources/files/../',
  '/resources/files/%2e%2e/',
  '/resources/files/..%2f',
  '/resources/files/%zz',
  '/resources/files/%',
  '/resources/files/%e0%80',
  '/resources/files/%ed%a0%80',
  '/resources/files/%ff%fe',
  '/resources/files/%2541.txt',
  '/resources/files/%41.txt',
  '/resources/files/hello.txt/',
  '/resources/files/sub',
  '/resources/files/hello.txt/..',
  '/resources/files/nonexistent.txt',
  `/resources/files/${'a'.repeat(256)}`,
  `/resources/files/${'a/'.repeat(2100)}x`,
  '/resources/files/fifo',
  '/resources/files/dangling',
  '/resources/files/empty-folder',
  '/resources/files/resources/files/../../secret.txt',
];

/** The fixture's links that resolve outside the root, asked as a file and as a folder. */
const LINKS = [
  '/resources/files/link-out',
  '/resources/files/link-abs-out',
  '/resources/files/link-etc',
  '/resources/files/chain-out',
  '/resources/files/sub/link-up',
  '/resources/files/link-dir-out/',
  '/resources/files/link-dir-out/secret2.txt',
  '/resources/files/link-parent/',
  '/resources/files/link-parent/secret.txt',
  '/resources/files/link-slash/',
  '/resources/files/link-slash/etc/passwd',
  '/resources/files/link-out/',
  '/resources/files/link-dir-in/link-up',
  '/resources/files/link-dir-in/../secret.txt',
];

/** Every target of the corpus, each once. */
export function traversalCorpus(): string[] {
  return [...new Set([...combinations(), ...SINGLES, ...LINKS])];
}
