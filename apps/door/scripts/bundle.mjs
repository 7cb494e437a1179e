// Bundles the built CLI (dist/src/cli/main.js, from tsc) and everything it imports, except sqlite3's native module,
// into dist/bundle/cli/: the `mur` that bin/mur.js, the tests' real doors and the bench run. Why: a door's idle
// memory is mostly the code it loads (docs/benchmarks.md, issue 17, "bundled run path"): one minified file instead
// of ~1,800 modules keeps less source text and fewer module records in V8's heap, and it leaves out what a door can
// never run (the query runners of TypeORM's other databases). Each command's modules stay a chunk of their own,
// imported when the command runs, as the unbundled CLI does.
//
// The output sits at the same depth under apps/door as dist/src/cli/, so the paths the code takes from its own
// location (the console's dist, examples/, delegation's `../cli/main.js`) resolve the same bundled or not.
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { BUNDLE_EXTERNAL, BUNDLE_PLUGINS, NODE_ESM_BANNER } from './bundle-plugins.mjs';

const door = fileURLToPath(new URL('..', import.meta.url));
const outdir = path.join(door, 'dist/bundle/cli');

rmSync(path.join(door, 'dist/bundle'), { recursive: true, force: true });
const result = await esbuild.build({
  absWorkingDir: door,
  // The WASM tools' worker thread (src/tools/wasm/wasm-worker.ts) is started from a file beside the code that starts it.
  entryPoints: { main: 'dist/src/cli/main.js', 'wasm-worker': 'dist/src/tools/wasm/wasm-worker.js' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: BUNDLE_EXTERNAL,
  // Whitespace and syntax only: identifiers stay as written. Not `keepNames`: it wraps every function the code
  // creates, closures made per request included, in a call that redefines its `name` (GetTask ~30% more CPU). So a
  // class the bundler renames to avoid a clash (tsc's decorated `let TaskRow = class TaskRow`) reads `TaskRow2` as
  // its `name`: nothing of the door depends on one (its entities name their tables, its errors set `name`).
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
  banner: { js: NODE_ESM_BANNER },
  plugins: BUNDLE_PLUGINS,
});
writeFileSync(path.join(door, 'dist/bundle/meta.json'), JSON.stringify(result.metafile));
const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
process.stdout.write(`bundle: dist/bundle/cli, ${Object.keys(result.metafile.outputs).length} files, ${(bytes / 1024 / 1024).toFixed(1)} MiB\n`);
