// Bundles the door's compiled tests (every file scripts/run-tests.mjs runs: dist/test/*.test.js and
// dist/src/**/*.spec.js) into dist/bundle-tests/, the same relative paths below it, the modules they share in chunks
// beside them. Why: each test file is a Node process of its own, and unbundled it resolves, reads and compiles its
// every module (the test support, zod, the client SDK, the door's modules a spec tests) one file at a time: ~0.15 s
// of CPU a file before its first test, over ~300 files in the door's suite and the door's specs again on Node 22 and
// 24 (docs/decisions.md, "The test run"). The door the black-box tests start is the door's own bundle either way
// (bin/mur.js); this changes how the test code loads, not what it tests.
//
// Each module keeps its own `import.meta.url` (its compiled file's URL, written in as a literal), so whatever a test
// finds from its own place (bin/mur.js, examples/, its fixtures, a helper it runs as a subprocess) is found as
// unbundled. dist/bundle-tests/inputs.json names every compiled file the bundle was made from, with its hash:
// run-tests.mjs runs the bundle only while every one of them is unchanged (tsc run alone since, or a turbo cache
// restore of another build), else tsc's output, saying so.
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { BUNDLE_EXTERNAL, BUNDLE_PLUGINS, NODE_ESM_BANNER } from './bundle-plugins.mjs';
import { SPECS_ENTRIES, testFiles } from './run-tests.mjs';

const DOOR = fileURLToPath(new URL('..', import.meta.url));
const OUT = path.join(DOOR, 'dist/bundle-tests');
const COMPILED = /[\\/]dist[\\/](test|src)[\\/].*\.js$/;

/** Each compiled module's `import.meta.url` stays the URL of its own file (above). */
const ownMetaUrl = {
  name: 'own-import-meta-url',
  setup(build) {
    build.onLoad({ filter: COMPILED }, (args) => ({
      loader: 'js',
      contents: readFileSync(args.path, 'utf8').replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)),
    }));
  },
};

const { files } = testFiles();
rmSync(OUT, { recursive: true, force: true });
const result = await esbuild.build({
  absWorkingDir: DOOR,
  entryPoints: files,
  outbase: 'dist',
  outdir: OUT,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // As the door's bundle; esbuild's own API finds its binary from its package, and Playwright's core is not bundled.
  external: [...BUNDLE_EXTERNAL, 'esbuild', 'playwright-core'],
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
  banner: { js: NODE_ESM_BANNER },
  plugins: [ownMetaUrl, ...BUNDLE_PLUGINS],
});
const inputs = Object.fromEntries(
  Object.keys(result.metafile.inputs)
    .filter((input) => COMPILED.test(`/${input}`))
    .sort()
    .map((input) => [
      input,
      createHash('sha1')
        .update(readFileSync(path.join(DOOR, input)))
        .digest('hex'),
    ]),
);
// The unit specs run a few to a process (run-tests.mjs): SPECS_ENTRIES modules, each importing every so many of them
// in name order. Each spec file keeps its hooks inside its own describe, so none reaches another file's tests
// (run-tests.mjs checks the sources).
const specs = files.filter((f) => f.startsWith('dist/src/')).sort();
SPECS_ENTRIES.forEach((entry, k) => {
  const mine = specs.filter((_, i) => i % SPECS_ENTRIES.length === k);
  writeFileSync(path.join(OUT, entry), `${mine.map((f) => `import './${path.posix.relative('dist', f)}';`).join('\n')}\n`);
});
writeFileSync(path.join(OUT, 'inputs.json'), `${JSON.stringify({ files, inputs, specs }, null, 1)}\n`);
const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
process.stdout.write(
  `bundle-tests: dist/bundle-tests, ${files.length} test files from ${Object.keys(inputs).length} compiled modules, ${(bytes / 1024 / 1024).toFixed(1)} MiB\n`,
);
