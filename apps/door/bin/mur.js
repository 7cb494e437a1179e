#!/usr/bin/env node
// The `mur` command: a committed, executable entry so npm links it at install, before anything is built. It runs the
// built CLI, or says how to build it.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('mur: the door is not built yet: run `npm run build` in the repository first\n');
  process.exit(2);
}
await import(cli.href);
