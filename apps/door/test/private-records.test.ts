/**
 * The records are private (issue 16): under umask 000 the records folder and its subfolders are 0700 and every file
 * the session writes is 0600 — the store and its journals, the trace, the door log, out/result.txt, a background
 * command's log, tokens.json and the session registry entry; tokens.json is removed when the session ends.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { makeCapsule, runDoor, tempDir } from './support/door-process.js';
import { rpc } from './support/rpc.js';
import { openStream } from './support/sse.js';

const SCRIPT = `
rules:
  - match: '^background'
    turns:
      - tools:
          - tool: bash
            input: { command: "echo started; sleep 5" }
        answer: "{{tool.work_id}}"
default:
  turns:
    - answer: done
`;

const modeOf = (file: string) => (statSync(file).mode & 0o777).toString(8);

test('under umask 000, the records are 0700 folders and 0600 files; tokens.json goes with the session', async () => {
  const manifest = [
    'name: private',
    'version: 0.1.0',
    'lifecycle:',
    '  task_acceptance: queue',
    '  shell_grace_secs: 0.5',
    'inference:',
    '  driver: script',
    '  script: script.yaml',
    'capabilities:',
    '  shell:',
    '    allow: [bash]',
    'network:',
    '  authentication:',
    '    scheme: bearer',
  ].join('\n');
  const capsule = makeCapsule(manifest, SCRIPT);
  const home = tempDir('home');
  const door = await runDoor(capsule, [], home, { umask: '000' });
  const token = readFileSync(path.join(door.recordsDir, 'tokens.json'), 'utf8').match(/"token": "([^"]+)"/)![1];
  const auth = { authorization: `Bearer ${token}` };
  try {
    assert.equal(
      (await rpc(door.url, 'SendMessage', { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hello' }] } }, auth)).json.result.task.status.state,
      'TASK_STATE_COMPLETED',
    );
    const bg = await rpc(door.url, 'SendMessage', { message: { messageId: 'm2', role: 'ROLE_USER', parts: [{ text: 'background' }] } }, auth);
    assert.match(bg.json.result.task.artifacts[0].parts[0].text, /^wrk_/, bg.text);
    // A stream writes the door log.
    const stream = await openStream(
      door.url,
      'SendStreamingMessage',
      { message: { messageId: 'm3', role: 'ROLE_USER', parts: [{ text: 'streamed' }] } },
      { headers: auth },
    );
    await stream.waitForEvent((e) => JSON.stringify(e.data).includes('TASK_STATE_COMPLETED'), 'the completed status');

    const records = door.recordsDir;
    for (const dir of [records, path.join(records, 'out'), path.join(records, 'logs'), path.join(home, 'sessions')]) assert.equal(modeOf(dir), '700', dir);
    const files = ['store.db', 'store.db-wal', 'store.db-shm', 'trace.jsonl', 'tokens.json', 'out/result.txt', 'logs/door.log'].map((f) =>
      path.join(records, f),
    );
    const workLogs = readdirSync(path.join(records, 'logs')).filter((f) => f.startsWith('wrk_'));
    assert.equal(workLogs.length, 1, 'the background command has a log');
    files.push(path.join(records, 'logs', workLogs[0]), path.join(home, 'sessions', `${door.sessionId}.json`));
    for (const file of files) assert.equal(modeOf(file), '600', file);
  } finally {
    await door.stop();
  }
  assert.equal(existsSync(path.join(door.recordsDir, 'tokens.json')), false, 'tokens.json is removed when the session ends');
  assert.equal(existsSync(path.join(door.recordsDir, 'store.db')), true, 'the records stay');
});
