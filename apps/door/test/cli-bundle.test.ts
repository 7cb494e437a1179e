/**
 * The `mur` users run is the bundle the build makes (scripts/bundle.mjs): a real door started through bin/mur.js
 * loads its code from dist/bundle/cli only, and from node_modules nothing but sqlite3's native binding. A bundle
 * that let a package load a second copy of itself from node_modules (as @nestjs/typeorm's own require of TypeORM
 * did, ~6 MiB of heap), or a door that fell back to tsc's output, fails here. And bin/mur.js's choice between the
 * bundle and tsc's output, on a copy of it beside stand-in builds. And the bundle's TypeORM, bundled with the same
 * plugins: sqlite's driver constructs, another database's refuses with the documented message.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import * as esbuild from 'esbuild';
import { makeCapsule, MUR_CLI, REPO_ROOT, runDoor, tempDir } from './support/door-process.js';
import { sendMessage } from './support/tasks.js';

const run = promisify(execFile);
const DOOR_DIST = path.join(REPO_ROOT, 'apps', 'door', 'dist');

/** node's own packages that sqlite3 loads its binding with; nothing else of node_modules is loaded at run time. */
const RUN_TIME_PACKAGES = new Set(['sqlite3', 'bindings', 'file-uri-to-path']);

/** An `--import` module that records every ES module the process imports and every file it requires. */
function loadRecorder(dir: string, log: string): string {
  const hooks = path.join(dir, 'hooks.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (resolved.url.startsWith('file:')) appendFileSync(${JSON.stringify(log)}, 'import ' + resolved.url + '\\n');
  return resolved;
}
`,
  );
  const recorder = path.join(dir, 'recorder.mjs');
  writeFileSync(
    recorder,
    `import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';
register(${JSON.stringify(`file://${hooks}`)});
const load = Module._load;
Module._load = function (request, parent, isMain) {
  const loaded = load.apply(this, arguments);
  try {
    const file = Module._resolveFilename(request, parent, isMain);
    if (file.startsWith('/')) appendFileSync(${JSON.stringify(log)}, 'require ' + file + '\\n');
  } catch {}
  return loaded;
};
`,
  );
  return recorder;
}

function packageOf(file: string): string | null {
  const match = /[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/.exec(file);
  return match ? match[1].replace('\\', '/') : null;
}

const SCRIPT = `rules:
  - match: 'run'
    turns:
      - tools:
          - tool: bash
            input: { args: ["-c", "echo ran"] }
        answer: "{{tool.stdout}}"
default:
  turns:
    - text: ["hel", "lo"]
      answer: hello
`;

test('a door run through bin/mur.js loads the bundle, and of node_modules only sqlite3', async () => {
  const dir = tempDir('bundle-loads');
  const log = path.join(dir, 'loads.txt');
  writeFileSync(log, '');
  const capsule = makeCapsule(
    'name: bundled\nversion: 0.1.0\ninference:\n  driver: script\n  script: script.yaml\ncapabilities:\n  shell:\n    allow: [bash]\n',
    SCRIPT,
  );
  const door = await runDoor(capsule, [], undefined, { nodeFlags: ['--import', loadRecorder(dir, log)] });
  try {
    const hello = await sendMessage(door.url, 'say hello');
    assert.equal(hello.json.result.task.status.state, 'TASK_STATE_COMPLETED');
    const ran = await sendMessage(door.url, 'run it');
    assert.equal(ran.json.result.task.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(ran.json));
  } finally {
    await door.stop();
  }
  const loads = readFileSync(log, 'utf8').trim().split('\n');
  const files = loads.map((line) => line.replace(/^(import|require) (file:\/\/)?/, ''));
  const ownCode = files.filter((file) => file.startsWith(DOOR_DIST));
  assert.ok(ownCode.length > 1, `the door's own modules were recorded: ${loads.join('\n')}`);
  for (const file of ownCode) assert.ok(file.startsWith(path.join(DOOR_DIST, 'bundle', 'cli')), `loaded outside the bundle: ${file}`);
  const packages = new Set(files.map(packageOf).filter((name): name is string => name !== null));
  assert.deepEqual(
    [...packages].filter((name) => !RUN_TIME_PACKAGES.has(name)),
    [],
    `packages loaded from node_modules at run time:\n${loads.join('\n')}`,
  );
  assert.ok(packages.has('sqlite3'), 'sqlite3 loads from node_modules');
});

/** A copy of bin/mur.js beside stand-in builds whose main.js each say which they are. */
function standInBuilds(builds: { compiled?: number; bundled?: number }): string {
  const root = tempDir('bin');
  mkdirSync(path.join(root, 'bin'));
  copyFileSync(MUR_CLI, path.join(root, 'bin', 'mur.js'));
  writeFileSync(path.join(root, 'package.json'), '{ "type": "module" }\n');
  // The sqlite3 check bin/mur.js makes first is the real one's to test (native-build.test.ts); here it finds a usable build.
  mkdirSync(path.join(root, 'scripts'));
  writeFileSync(path.join(root, 'scripts', 'ensure-native.mjs'), 'export const ensureSqlite3Build = () => true;\n');
  for (const [kind, dir] of [
    ['compiled', 'dist/src/cli'],
    ['bundled', 'dist/bundle/cli'],
  ] as const) {
    const seconds = builds[kind];
    if (seconds === undefined) continue;
    mkdirSync(path.join(root, dir), { recursive: true });
    const main = path.join(root, dir, 'main.js');
    writeFileSync(main, `process.stdout.write('${kind} ' + process.argv.slice(2).join(' '));\n`);
    utimesSync(main, seconds, seconds);
  }
  return path.join(root, 'bin', 'mur.js');
}

test('bin/mur.js runs the bundle when it is as new as tsc’s output', async () => {
  const { stdout, stderr } = await run(process.execPath, [standInBuilds({ compiled: 1_000, bundled: 1_000 }), 'ps', '--json']);
  assert.equal(stdout, 'bundled ps --json');
  assert.equal(stderr, '');
});

test('bin/mur.js runs tsc’s output, and says so, when the bundle is older or missing', async () => {
  const expected = 'mur: apps/door/dist/bundle is missing or older than dist/src (tsc ran alone); running dist/src: `npm run build` bundles it\n';
  for (const builds of [{ compiled: 2_000, bundled: 1_000 }, { compiled: 1_000 }]) {
    const { stdout, stderr } = await run(process.execPath, [standInBuilds(builds), 'run']);
    assert.equal(stdout, 'compiled run');
    assert.equal(stderr, expected);
  }
});

test('bin/mur.js says how to build when nothing is built', async () => {
  await assert.rejects(run(process.execPath, [standInBuilds({})]), (error: { code?: number; stderr?: string }) => {
    assert.equal(error.code, 2);
    assert.equal(error.stderr, 'mur: the door is not built yet: run `npm run build` in the repository first\n');
    return true;
  });
});

test('the bundle’s TypeORM constructs a sqlite DataSource and refuses another database’s driver with its message', async () => {
  const { BUNDLE_PLUGINS, NODE_ESM_BANNER } = (await import(pathToFileURL(path.join(REPO_ROOT, 'apps', 'door', 'scripts', 'bundle-plugins.mjs')).href)) as {
    BUNDLE_PLUGINS: esbuild.Plugin[];
    NODE_ESM_BANNER: string;
  };
  // Inside apps/door/dist, so that what stays external (sqlite3) resolves from node_modules as the bundle's does.
  const dir = path.join(DOOR_DIST, 'test', `bundle-typeorm-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const out = path.join(dir, 'probe.js');
  try {
    await esbuild.build({
      stdin: {
        contents: `import { DataSource } from 'typeorm';
const tried = (options) => { try { new DataSource(options); return 'constructed'; } catch (error) { return error.message; } };
process.stdout.write(JSON.stringify({ sqlite: tried({ type: 'sqlite', database: ':memory:' }), postgres: tried({ type: 'postgres' }), mysql: tried({ type: 'mysql' }) }));`,
        resolveDir: path.join(REPO_ROOT, 'apps', 'door'),
        loader: 'js',
      },
      outfile: out,
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      external: ['sqlite3'],
      logLevel: 'silent',
      banner: { js: NODE_ESM_BANNER },
      plugins: BUNDLE_PLUGINS,
    });
    const { stdout } = await run(process.execPath, [out]);
    const refusal = 'this door bundles TypeORM with its sqlite driver only';
    assert.deepEqual(JSON.parse(stdout), { sqlite: 'constructed', postgres: refusal, mysql: refusal });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
