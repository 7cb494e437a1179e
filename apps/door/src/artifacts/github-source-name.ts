/** A scope's source as murmur.lock and records name it: `github:<owner>/<repo>` (docs/artifacts.md, "Sources"). */
export const GITHUB_SOURCE = /^github:([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))\/([A-Za-z0-9._-]{1,100})$/;

/** The owner and repository a source names, or null when it is not `github:<owner>/<repo>`. */
export function readGithubSource(source: string): { owner: string; repo: string } | null {
  const match = GITHUB_SOURCE.exec(source);
  if (match === null || match[2] === '.' || match[2] === '..') return null;
  return { owner: match[1]!, repo: match[2]! };
}
