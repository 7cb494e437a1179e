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

const door = fileURLToPath(new URL('..', import.meta.url));
const outdir = path.join(door, 'dist/bundle/cli');

// The drivers TypeORM's DriverFactory imports for every database it supports; a door's store is sqlite.
const OTHER_DATABASES = [
  'aurora-mysql', 'aurora-postgres', 'better-sqlite3', 'capacitor', 'cockroachdb', 'cordova', 'expo', 'mongodb',
  'mysql', 'nativescript', 'oracle', 'postgres', 'react-native', 'sap', 'spanner', 'sqljs', 'sqlserver',
];
const otherDatabaseDriver = new RegExp(`[\\\\/]typeorm[\\\\/]driver[\\\\/](${OTHER_DATABASES.join('|')})[\\\\/]`);

/** TypeORM's modules for other databases become one stub: their classes exist (for `instanceof`) and refuse to construct. */
const typeormSqliteOnly = {
  name: 'typeorm-sqlite-only',
  setup(build) {
    build.onResolve({ filter: new RegExp(`[\\\\/](${OTHER_DATABASES.join('|')})[\\\\/]`) }, (args) => {
      if (!/[\\/]node_modules[\\/]typeorm[\\/]/.test(args.importer)) return undefined;
      const full = path.resolve(args.resolveDir, args.path);
      return otherDatabaseDriver.test(full) ? { path: full, namespace: 'typeorm-other-database' } : undefined;
    });
    build.onLoad({ filter: /.*/, namespace: 'typeorm-other-database' }, () => ({
      loader: 'js',
      contents: `module.exports = new Proxy({ __esModule: true }, { get(stubs, name) {
  if (!(name in stubs)) stubs[name] = class { constructor() { throw new Error('this door bundles TypeORM with its sqlite driver only'); } };
  return stubs[name];
} });`,
    }));
  },
};

/**
 * @nestjs/typeorm reads two optional TypeORM exports through its own `createRequire(import.meta.url)('typeorm')`,
 * which a bundle cannot see: at run time it would load a second, whole TypeORM from node_modules beside the bundled
 * one (~6 MiB of heap). The same two exports, imported so that the bundle's TypeORM is the one read.
 */
const nestTypeormCompat = {
  name: 'nest-typeorm-compat',
  setup(build) {
    build.onLoad({ filter: /[\\/]@nestjs[\\/]typeorm[\\/]dist[\\/]common[\\/]typeorm-compat\.js$/ }, (args) => ({
      loader: 'js',
      resolveDir: path.dirname(args.path),
      contents: "import * as typeorm from 'typeorm';\nexport const Connection = typeorm.Connection;\nexport const AbstractRepository = typeorm.AbstractRepository;\n",
    }));
  },
};

/**
 * rxjs's package exports its CommonJS build under the `node` condition, so a bundle for node would take all of rxjs
 * (226 modules, every operator) to serve the few NestJS uses. Its ES2015 build instead, which the bundler trims to
 * what is imported.
 */
const rxjsEsm = {
  name: 'rxjs-esm',
  setup(build) {
    build.onResolve({ filter: /^rxjs(\/operators)?$/ }, async (args) => {
      if (args.pluginData?.probing) return undefined;
      const cjs = await build.resolve(args.path, { resolveDir: args.resolveDir, kind: args.kind, importer: args.importer, pluginData: { probing: true } });
      if (cjs.errors.length > 0) return undefined;
      return { path: cjs.path.replace(/([\\/]rxjs[\\/]dist[\\/])cjs([\\/])/, '$1esm$2'), sideEffects: false };
    });
  },
};

/**
 * A module that is not installed (the optional peers NestJS, TypeORM and Fastify try inside a try/catch: microservices,
 * class-validator, pg, mysql, …) is left a run-time require, which fails there exactly as it does unbundled.
 */
const missingStaysExternal = {
  name: 'missing-stays-external',
  setup(build) {
    build.onResolve({ filter: /.*/ }, async (args) => {
      if (args.pluginData?.probing || args.kind === 'entry-point' || args.namespace !== 'file') return undefined;
      const found = await build.resolve(args.path, { resolveDir: args.resolveDir, kind: args.kind, importer: args.importer, pluginData: { probing: true } });
      return found.errors.length > 0 ? { path: args.path, external: true } : found;
    });
  },
};

rmSync(path.join(door, 'dist/bundle'), { recursive: true, force: true });
const result = await esbuild.build({
  absWorkingDir: door,
  entryPoints: { main: 'dist/src/cli/main.js' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // sqlite3's native module loads from node_modules; so would Fastify's schema compilers (Ajv, fast-json-stringify),
  // which the door's server never asks for (src/rpc/no-route-schemas.ts): left out, their source costs an idle door
  // as much heap as running code does.
  external: ['sqlite3', '@fastify/ajv-compiler', '@fastify/fast-json-stringify-compiler'],
  // Whitespace and syntax only: identifiers stay as written. Not `keepNames`: it wraps every function the code
  // creates, closures made per request included, in a call that redefines its `name` (GetTask ~30% more CPU). So a
  // class the bundler renames to avoid a clash (tsc's decorated `let TaskRow = class TaskRow`) reads `TaskRow2` as
  // its `name`: nothing of the door depends on one (its entities name their tables, its errors set `name`).
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
  // CommonJS code in an ES module bundle: `require` for run-time requires (sqlite3, the missing optional peers),
  // `__filename`/`__dirname` for the packages that read them.
  banner: {
    js: [
      "import { createRequire as __murCreateRequire } from 'node:module';",
      "import { fileURLToPath as __murFileURLToPath } from 'node:url';",
      "import { dirname as __murDirname } from 'node:path';",
      'const require = __murCreateRequire(import.meta.url);',
      'const __filename = __murFileURLToPath(import.meta.url);',
      'const __dirname = __murDirname(__filename);',
    ].join(' '),
  },
  plugins: [nestTypeormCompat, typeormSqliteOnly, rxjsEsm, missingStaysExternal],
});
writeFileSync(path.join(door, 'dist/bundle/meta.json'), JSON.stringify(result.metafile));
const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
process.stdout.write(`bundle: dist/bundle/cli, ${Object.keys(result.metafile.outputs).length} files, ${(bytes / 1024 / 1024).toFixed(1)} MiB\n`);
