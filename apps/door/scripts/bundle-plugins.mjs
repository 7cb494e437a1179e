// What scripts/bundle.mjs changes in what it bundles, one plugin each with its reason, and the banner a node ES
// module bundle of CommonJS code needs. Apart, so that test/cli-bundle.test.ts bundles with the same.
import path from 'node:path';

// The drivers TypeORM's DriverFactory imports for every database it supports; a door's store is sqlite.
const OTHER_DATABASES = [
  'aurora-mysql',
  'aurora-postgres',
  'better-sqlite3',
  'capacitor',
  'cockroachdb',
  'cordova',
  'expo',
  'mongodb',
  'mysql',
  'nativescript',
  'oracle',
  'postgres',
  'react-native',
  'sap',
  'spanner',
  'sqljs',
  'sqlserver',
];
const otherDatabaseDriver = new RegExp(`[\\\\/]typeorm[\\\\/]driver[\\\\/](${OTHER_DATABASES.join('|')})[\\\\/]`);

/**
 * TypeORM's modules for other databases are replaced by one module whose every export is a class that refuses to
 * construct, naming why: TypeORM's DriverFactory and its `instanceof` checks still find the classes, and a door
 * configured for another database (it never is: its store is sqlite) fails with that message instead of a missing module.
 */
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
      contents: `module.exports = new Proxy({ __esModule: true }, { get(classes, name) {
  if (!(name in classes)) classes[name] = class { constructor() { throw new Error('this door bundles TypeORM with its sqlite driver only'); } };
  return classes[name];
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
      contents:
        "import * as typeorm from 'typeorm';\nexport const Connection = typeorm.Connection;\nexport const AbstractRepository = typeorm.AbstractRepository;\n",
    }));
  },
};

/** Resolves `args` as the bundler would without this plugin (the probe is marked so that the plugin passes it by). */
const resolveAsUsual = (build, args) =>
  build.resolve(args.path, { resolveDir: args.resolveDir, kind: args.kind, importer: args.importer, pluginData: { probing: true } });

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
      const cjs = await resolveAsUsual(build, args);
      if (cjs.errors.length > 0) return undefined;
      return { path: cjs.path.replace(/([\\/]rxjs[\\/]dist[\\/])cjs([\\/])/, '$1esm$2'), sideEffects: false };
    });
  },
};

/**
 * A module that is not installed (the optional peers NestJS, TypeORM and Fastify try inside a try/catch: microservices,
 * class-validator, pg, mysql, …) is left a run-time require, which fails there exactly as it does unbundled. Package
 * names only (not `./` or `/` paths, which are the bundle's own modules and must resolve): every import this sees is
 * resolved a second time through JavaScript: the door's bundle took 9.2 s of wall time and 15 s of CPU so, 4.2 and 7
 * without (the tests' bundle 9.6 s against 1.1 with no plugin). And esbuild, given our own modules' paths back from a
 * plugin, no longer knew they are ES modules of a `"type": "module"` package: it imported CommonJS into them with
 * Babel's interop (`default` = `exports.default` when `__esModule` is set) instead of Node's (`default` =
 * `module.exports`), which the code unbundled gets; now the bundle imports as Node does.
 */
const missingStaysExternal = {
  name: 'missing-stays-external',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.path.startsWith('node:')) return undefined;
      if (args.pluginData?.probing || args.kind === 'entry-point' || args.namespace !== 'file') return undefined;
      const found = await resolveAsUsual(build, args);
      return found.errors.length > 0 ? { path: args.path, external: true } : found;
    });
  },
};

/** The bundle's plugins, in the order they must see a module: the ones that replace a module before the one that resolves it. */
/**
 * Two of TypeORM's helpers a door never calls: `glob` (with minimatch, path-scurry and lru-cache), which loads
 * entities named by file patterns (the door names its entity classes), and `@sqltools/formatter`, which formats SQL
 * for TypeORM's logger (off: `logging: false`). Replaced, inside TypeORM only, by a module whose every export refuses
 * when called, naming why: ~150 KB less of the main chunk to compile and hold at start (docs/benchmarks.md, issue 39).
 */
const typeormUnusedHelpers = {
  name: 'typeorm-unused-helpers',
  setup(build) {
    build.onResolve({ filter: /^(glob|@sqltools\/formatter)$/ }, (args) => {
      if (!/[\\/]node_modules[\\/]typeorm[\\/]/.test(args.importer)) return undefined;
      return { path: args.path, namespace: 'typeorm-unused-helper' };
    });
    build.onLoad({ filter: /.*/, namespace: 'typeorm-unused-helper' }, (args) => {
      const refusal = JSON.stringify(`this door bundles TypeORM without ${args.path}: it names its entity classes and logs no SQL`);
      return {
        loader: 'js',
        contents: `module.exports = new Proxy({ __esModule: true }, { get(helpers, name) {
  if (!(name in helpers)) helpers[name] = () => { throw new Error(${refusal}); };
  return helpers[name];
} });`,
      };
    });
  },
};

/**
 * What both bundles (scripts/bundle.mjs, scripts/bundle-tests.mjs) leave to load from node_modules: sqlite3's native
 * module; Fastify's schema compilers (Ajv, fast-json-stringify), which the door's server never asks for
 * (src/common/no-route-schemas.ts): bundled, their source costs an idle door as much heap as running code does; and
 * jco-transpile, which reads its own wasm files beside its modules (it loads in the WASM worker only).
 */
export const BUNDLE_EXTERNAL = [
  'sqlite3',
  '@fastify/ajv-compiler',
  '@fastify/fast-json-stringify-compiler',
  '@bytecodealliance/jco-transpile',
  '@bytecodealliance/jco-transpile/wasm-tools',
];

export const BUNDLE_PLUGINS = [nestTypeormCompat, typeormSqliteOnly, typeormUnusedHelpers, rxjsEsm, missingStaysExternal];

/**
 * CommonJS code in an ES module bundle: `require` for run-time requires (sqlite3, the missing optional peers),
 * `__filename`/`__dirname` for the packages that read them.
 */
export const NODE_ESM_BANNER = [
  "import { createRequire as __murCreateRequire } from 'node:module';",
  "import { fileURLToPath as __murFileURLToPath } from 'node:url';",
  "import { dirname as __murDirname } from 'node:path';",
  'const require = __murCreateRequire(import.meta.url);',
  'const __filename = __murFileURLToPath(import.meta.url);',
  'const __dirname = __murDirname(__filename);',
].join(' ');
