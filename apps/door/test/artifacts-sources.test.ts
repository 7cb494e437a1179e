/**
 * A scope's GitHub source (docs/artifacts.md, "Sources"), played by a loopback server that answers as GitHub's REST
 * API does and serves the same archives a store holds: mur pull --source records the scope's owner on first use and
 * writes the archive into the project store; a session with install.from: [stores, sources] fetches a version no store
 * holds and writes it to no store; a source that answers for another owner, or for a scope whose owner the lock does
 * not record, is refused with E-REG-010; one that cannot be read is not-fetched; with install.from: [stores] no source
 * is read; a place that cannot be consulted is named in the pull's notes.
 */
import assert from 'node:assert/strict';
import { existsSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  type FakeGithub,
  fakeGithub,
  globalStore,
  mur,
  nativeTool,
  PULL_RULE,
  projectStore,
  publishInto,
  readLockFile,
  skill,
  writeLock,
} from './support/artifacts.js';
import { taskOf } from './support/assertions.js';
import { type DoorProcess, makeCapsule, runDoor, tempDir } from './support/door-process.js';
import { send } from './support/rpc.js';
import { lifecycleManifest, readTrace } from './support/tasks.js';

const SOURCE = 'github:acme-org/murmur-tools';
const OWNER = 5821637;

const SCRIPT = `
rules:
${PULL_RULE}default:
  turns:
    - answer: no rule
`;

const fenced = (text: string) => `<untrusted-content source=tool:pull-artifact>\n${text}\n</untrusted-content>`;

describe('sources', () => {
  let github: FakeGithub;
  const repository = tempDir('repository');

  before(async () => {
    for (const name of ['acme/remote', 'acme/second', 'acme/third', 'beta/other']) await publishInto(repository, skill(name, `${name}, from the source`));
    await publishInto(repository, nativeTool('acme/remote-tool', 'echo remote'));
    github = await fakeGithub(repository, 'acme-org', 'murmur-tools', OWNER);
  });
  after(() => github.close());

  describe('mur pull --source', () => {
    const capsule = makeCapsule(lifecycleManifest(), SCRIPT);
    const home = tempDir('home');
    const env = () => ({ MURMUR_HOME: home, MURMUR_SOURCE_API_URL: github.url });

    test('records the scope’s source and owner on first use, pins with origin: operator, and writes the archive into the project store', async () => {
      const pulled = await mur(['pull', 'acme/remote', '--capsule', capsule, '--source', SOURCE, '--json'], env());
      assert.equal(pulled.code, 0, pulled.stderr);
      const answer = JSON.parse(pulled.stdout);
      assert.deepEqual(
        [answer.artifact, answer.version, answer.runtime, answer.origin, answer.fetchedFrom],
        ['acme/remote', '1.0.0', 'skill', 'operator', SOURCE],
      );
      const lock = readLockFile(capsule);
      assert.match(lock, new RegExp(`scopes:\\n  acme:\\n    source: ${SOURCE}\\n    owner: "${OWNER}"\\n`));
      assert.match(
        lock,
        new RegExp(
          `acme/remote:\\n    version: 1\\.0\\.0\\n    digest: sha256:[0-9a-f]{64}\\n    runtime: skill\\n    origin: operator\\n    fetched_from: ${SOURCE}\\n    owner: "${OWNER}"`,
        ),
      );
      assert.ok(existsSync(path.join(projectStore(capsule), 'acme', 'remote', '1.0.0.tgz')));
      assert.ok(github.requests.includes('GET /repos/acme-org/murmur-tools'), 'the owner is read');
    });

    test('a source that answers for another owner: E-REG-010, exit 1, nothing pinned', async () => {
      const before = readLockFile(capsule);
      github.ownerId = 999;
      try {
        const pulled = await mur(['pull', 'acme/second', '--capsule', capsule], env());
        assert.equal(pulled.code, 1);
        assert.equal(pulled.stdout, '');
        assert.equal(pulled.stderr, `mur: not-fetched: E-REG-010: ${SOURCE} answers for owner 999, and murmur.lock records owner ${OWNER} for scope acme\n`);
      } finally {
        github.ownerId = OWNER;
      }
      assert.equal(readLockFile(capsule), before);
      assert.ok(!github.requests.some((r) => r.includes('second/1.0.0.tgz')), 'no archive is read before the owner is checked');
    });

    test('a source that cannot be read, or answers a redirect (never followed): not-fetched, exit 1', async () => {
      for (const status of [500, 302]) {
        github.failWith = status;
        try {
          const pulled = await mur(['pull', 'acme/second', '--capsule', capsule], env());
          assert.equal(pulled.code, 1);
          assert.equal(pulled.stderr, `mur: not-fetched: ${SOURCE} answered ${status} for acme/second\n`);
        } finally {
          github.failWith = null;
        }
      }
    });
  });

  describe('a session with install.from: [stores, sources]', () => {
    let door: DoorProcess;
    before(async () => {
      const capsule = makeCapsule(
        `${lifecycleManifest()}  install:\n    tool: ["acme/*", "beta/*"]\n    skill: ["acme/*", "beta/*"]\n    from: [stores, sources]\n`,
        SCRIPT,
      );
      writeLock(capsule, {}, { acme: { source: SOURCE, owner: String(OWNER) }, beta: { source: SOURCE } });
      const home = tempDir('home');
      // The global store cannot be read (a link, which the door does not follow): a pull goes ahead without it, and says so.
      symlinkSync('store', globalStore(home));
      door = await runDoor(capsule, [], home, { env: { MURMUR_SOURCE_API_URL: github.url } });
    });
    after(() => door.stop());

    const answerOf = async (text: string) => taskOf(await send(door.url, text)).artifacts[0].parts[0].text as string;

    test('a version no store holds is fetched from the scope’s source and written to no store', async () => {
      assert.equal(
        await answerOf('pull acme/remote-tool'),
        `${fenced(`{"artifact":"acme/remote-tool","fetched_from":"${SOURCE}","notes":["the global store cannot be read: $MURMUR_HOME/store is a symbolic link, which the door does not follow"],"runtime":"tool","tool_name":"remote-tool","version":"1.0.0"}`)}\nremote-tool is in your tool list from your next turn.`,
      );
      assert.ok(!existsSync(path.join(projectStore(door.capsuleDir), 'acme', 'remote-tool')));
      assert.match(
        readLockFile(door.capsuleDir),
        new RegExp(
          `acme/remote-tool:\\n    version: 1\\.0\\.0\\n    digest: sha256:[0-9a-f]{64}\\n    runtime: tool\\n    origin: agent\\n    fetched_from: ${SOURCE}\\n    owner: "${OWNER}"`,
        ),
      );
      const pulled = readTrace(door.recordsDir).find((r) => r.type === 'artifact_pulled');
      assert.equal(pulled?.fetched_from, SOURCE);
    });

    test('another owner, and a scope whose owner the lock does not record: E-REG-010; a source that cannot be read: not-fetched', async () => {
      github.ownerId = 999;
      try {
        assert.equal(
          await answerOf('pull acme/third'),
          fenced(`not-fetched: E-REG-010: ${SOURCE} answers for owner 999, and murmur.lock records owner ${OWNER} for scope acme`),
        );
      } finally {
        github.ownerId = OWNER;
      }
      assert.equal(
        await answerOf('pull beta/other'),
        fenced(`not-fetched: E-REG-010: ${SOURCE} answers for owner ${OWNER}, and murmur.lock records no owner for scope beta`),
      );
      github.failWith = 503;
      try {
        assert.equal(
          await answerOf('pull acme/third'),
          fenced(
            `not-fetched: the global store cannot be read: $MURMUR_HOME/store is a symbolic link, which the door does not follow; ${SOURCE} answered 503 for acme/third`,
          ),
        );
      } finally {
        github.failWith = null;
      }
      assert.doesNotMatch(readLockFile(door.capsuleDir), /acme\/third|beta\/other/);
    });
  });

  describe('a session with install.from: [stores]', () => {
    let door: DoorProcess;
    before(async () => {
      const capsule = makeCapsule(`${lifecycleManifest()}  install:\n    skill: ["acme/*"]\n`, SCRIPT);
      writeLock(capsule, {}, { acme: { source: SOURCE, owner: String(OWNER) } });
      door = await runDoor(capsule, [], tempDir('home'), { env: { MURMUR_SOURCE_API_URL: github.url } });
    });
    after(() => door.stop());

    test('reads no source', async () => {
      const asked = github.requests.length;
      assert.equal(
        taskOf(await send(door.url, 'pull acme/third')).artifacts[0].parts[0].text,
        fenced('not-found: no allowed place (project store, global store) holds acme/third'),
      );
      assert.equal(github.requests.length, asked);
    });
  });
});
