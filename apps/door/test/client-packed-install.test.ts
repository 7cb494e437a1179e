/**
 * @murmur/client as an integrator installs it (issue 15): both packages packed with `npm pack`, installed from the
 * tarballs into a temporary project outside any workspace, a strict TypeScript integrator that imports only
 * `@murmur/client` compiled against the installed .d.ts files (skipLibCheck off), then run against a real door.
 * Issue 38: it compiles under every module resolution an integrator may use — nodenext, node16 (an ES module), node16
 * from a CommonJS `.cts` file (the packages' CommonJS types, scripts/cjs-types.mjs), and bundler — and the CommonJS
 * build runs too, requiring the client.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { type DoorProcess, REPO_ROOT, runDoor, tempDir } from './support/door-process.js';

const run = promisify(execFile);
const TSC = path.join(REPO_ROOT, 'node_modules', '.bin', 'tsc');

const INTEGRATOR = `import { ARTIFACT_ID, type AgentCard, errorKind, isA2AError, messageText, MurmurClient, type StreamResponse, type Task, type TaskState, textMessage } from '@murmur/client';

declare const process: { argv: string[]; exitCode?: number };

const client = new MurmurClient(process.argv[2]);
const card: AgentCard = await client.getCard();
const task: Task = await client.sendText('What is 2+2?');
const state: TaskState = task.status.state;
const response = task.artifacts?.find((a) => a.artifactId === ARTIFACT_ID.response);
const kinds: string[] = [];
for await (const event of client.sendStreamingMessage({ message: textMessage('What is 2+2?') })) {
  if (event.kind === 'connection') continue;
  const result: StreamResponse = event.response;
  kinds.push(Object.keys(result)[0]);
}
let missing = '';
try {
  await client.getTask('tsk_00000000000000000000000000000000');
} catch (error) {
  missing = isA2AError(error, 'TaskNotFound') ? errorKind(error) : 'other';
}
console.log(JSON.stringify({ name: card.name, state, response: response ? messageText(response) : null, kinds, missing }));
`;

/** A CommonJS integrator: no top-level await, the import compiled to require(). */
const CJS_INTEGRATOR = `import { isA2AError, MurmurClient, type Task } from '@murmur/client';

declare const process: { argv: string[] };

async function main(url: string): Promise<void> {
  const task: Task = await new MurmurClient(url).sendText('What is 2+2?');
  console.log(JSON.stringify({ state: task.status.state, guard: typeof isA2AError }));
}
void main(process.argv[2] ?? '');
`;

const COMPILER = { target: 'ES2022', lib: ['ES2023', 'DOM'], strict: true, skipLibCheck: false, types: [] };

/** Each module resolution an integrator may compile with: its tsconfig, and what it compiles. */
const RESOLUTIONS: { name: string; options: Record<string, unknown>; file: string }[] = [
  { name: 'nodenext', options: { module: 'NodeNext', moduleResolution: 'NodeNext', outDir: 'out' }, file: 'integrator.ts' },
  { name: 'node16', options: { module: 'Node16', moduleResolution: 'Node16', noEmit: true }, file: 'integrator.ts' },
  { name: 'node16-cts', options: { module: 'Node16', moduleResolution: 'Node16', outDir: 'out-cjs' }, file: 'integrator-cjs.cts' },
  { name: 'bundler', options: { module: 'ESNext', moduleResolution: 'Bundler', noEmit: true }, file: 'integrator.ts' },
];

describe('@murmur/client installed from its packed tarball', () => {
  let door: DoorProcess | undefined;
  after(() => door?.stop('SIGKILL'));

  test('packs, installs outside the workspace, compiles strict and talks to a real door', { timeout: 120_000 }, async () => {
    const packs = tempDir('packs');
    for (const pkg of ['packages/protocol', 'packages/client']) {
      await run('npm', ['pack', path.join(REPO_ROOT, pkg), '--pack-destination', packs, '--silent'], { cwd: packs });
    }
    const tarballs = readdirSync(packs).filter((f) => f.endsWith('.tgz'));
    assert.deepEqual(tarballs.sort(), ['murmur-client-0.1.0.tgz', 'murmur-protocol-0.1.0.tgz']);

    const project = tempDir('integrator');
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'integrator', private: true, type: 'module' }));
    const installed = await run(
      'npm',
      [
        'install',
        ...tarballs.map((t) => path.join(packs, t)),
        '--no-save',
        '--ignore-scripts',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--loglevel=warn',
      ],
      { cwd: project },
    );
    // On a Node the packages promise (this one), no dependency's engines exclude it (issue 26).
    assert.doesNotMatch(`${installed.stdout}${installed.stderr}`, /EBADENGINE/);
    writeFileSync(path.join(project, 'integrator.ts'), INTEGRATOR);
    writeFileSync(path.join(project, 'integrator-cjs.cts'), CJS_INTEGRATOR);
    for (const { name, options, file } of RESOLUTIONS) {
      writeFileSync(path.join(project, `tsconfig.${name}.json`), JSON.stringify({ compilerOptions: { ...COMPILER, ...options }, files: [file] }));
      await run(TSC, ['-p', `tsconfig.${name}.json`], { cwd: project }).catch((error: { stdout?: string }) => {
        assert.fail(`the integrator does not compile against the installed packages under ${name}:\n${error.stdout}`);
      });
    }

    door = await runDoor(path.join(REPO_ROOT, 'examples', 'hello'));
    const { stdout } = await run(process.execPath, [path.join(project, 'out', 'integrator.js'), door.url], { cwd: project });
    const result = JSON.parse(stdout) as { name: string; state: string; response: string | null; kinds: string[]; missing: string };
    assert.equal(result.state, 'TASK_STATE_COMPLETED');
    assert.equal(result.response, 'four');
    assert.equal(result.kinds[0], 'task');
    assert.equal(result.kinds.at(-1), 'statusUpdate');
    assert.equal(result.missing, 'a2a');
    assert.ok(result.name.length > 0);

    // The CommonJS build requires the client (Node 20.19 and 22.12 load its ES module through require()).
    const cjs = await run(process.execPath, [path.join(project, 'out-cjs', 'integrator-cjs.cjs'), door.url], { cwd: project });
    assert.deepEqual(JSON.parse(cjs.stdout), { state: 'TASK_STATE_COMPLETED', guard: 'function' });
  });
});
