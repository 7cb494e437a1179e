#!/usr/bin/env node
// engines.node tells the truth (issue 38; docs/decisions.md, "Node versions"). The workspace's range (the root
// package.json's) is the one every workspace package that is not published declares, and every package npm installs
// for it — prod and dev, as the lockfile lists them, less the optional ones for other platforms — admits every Node
// that range admits: `npm ci` on a supported Node prints no EBADENGINE warning. The published @murmur/protocol and
// @murmur/client promise at least as much (their own dependencies are checked by the client's engines.test).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const read = (file) => JSON.parse(readFileSync(path.join(ROOT, file), 'utf8'));
const PUBLISHED = new Set(['packages/protocol', 'packages/client']);

const root = read('package.json');
const range = root.engines?.node;
const problems = [];
if (!range) problems.push('package.json declares no engines.node');
for (const workspace of root.workspaces) {
  const own = read(path.join(workspace, 'package.json')).engines?.node;
  if (PUBLISHED.has(workspace)) {
    if (!own || !semver.subset(range, own)) problems.push(`${workspace} promises node ${own}, less than the workspace's ${range}`);
  } else if (own !== range) problems.push(`${workspace} declares node ${own}; the workspace's range is ${range}`);
}
for (const [where, entry] of Object.entries(read('package-lock.json').packages)) {
  const theirs = entry.engines?.node;
  if (where === '' || entry.link || theirs === undefined || !existsSync(path.join(ROOT, where))) continue;
  if (!semver.subset(range, theirs))
    problems.push(`${where.replace(/^.*node_modules\//, '')}@${entry.version} wants node ${theirs}, which leaves out part of ${range}`);
}
if (problems.length > 0) {
  console.error(`check-engines: engines.node is not the truth:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`check-engines: every installed package admits node ${range}`);
