/**
 * Template values reach a shell as text, never as code (issue 16): inside a tool's `command` each value is one
 * quoted shell word; the hello example passes its reply as an argument. A hostile reply creates no file. The quoting
 * itself is unit-tested beside its source (src/tools/shell-quote.spec.ts, src/agent/script-driver.spec.ts).
 */
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { makeCapsule, manifestYaml, REPO_ROOT, runDoor, tempDir } from './support/door-process.js';
import { send } from './support/rpc.js';

const HOSTILE = `$(touch pwned); rm -rf x; \`touch pwned2\` "'\\ $HOME`;

/** Asks a question, answers it with the hostile reply, and returns the completed task's response. */
async function replyWith(url: string, text: string, reply: string): Promise<string> {
  const asked = await send(url, text);
  assert.equal(asked.json.result.task.status.state, 'TASK_STATE_INPUT_REQUIRED', asked.text);
  const done = await send(url, reply, { taskId: asked.json.result.task.id });
  assert.equal(done.json.result.task.status.state, 'TASK_STATE_COMPLETED', done.text);
  return done.json.result.task.artifacts[0].parts[0].text;
}

function assertUntouched(dir: string): void {
  assert.equal(existsSync(path.join(dir, 'pwned')), false, 'no file was created by the reply');
  assert.equal(existsSync(path.join(dir, 'pwned2')), false, 'no file was created by the reply');
  assert.equal(existsSync(path.join(dir, 'x')), true, 'nothing was removed by the reply');
}

test("examples/hello's deploy rule keeps a hostile reply as text", async () => {
  const capsule = path.join(tempDir('hello'), 'hello');
  cpSync(path.join(REPO_ROOT, 'examples', 'hello'), capsule, { recursive: true });
  mkdirSync(path.join(capsule, 'x'));
  const door = await runDoor(capsule);
  try {
    const response = await replyWith(door.url, 'Deploy the service', HOSTILE);
    assert.equal(response, `Deployed branch ${HOSTILE}: deploying ${HOSTILE}`);
    assertUntouched(capsule);
  } finally {
    await door.stop();
  }
});

test('a template inside a command is one quoted shell word: the reply is printed, not run', async () => {
  const script = `
rules:
  - match: 'ask'
    turns:
      - ask: What?
      - tools:
          - tool: bash
            input: { command: "printf '%s|' got {{reply}}" }
        answer: "{{tool.stdout}}"
default:
  turns:
    - answer: ok
`;
  const capsule = makeCapsule(manifestYaml({ name: 'quoting' }), script);
  mkdirSync(path.join(capsule, 'x'));
  const door = await runDoor(capsule);
  try {
    assert.equal(await replyWith(door.url, 'ask me', HOSTILE), `got|${HOSTILE}|`);
    assertUntouched(capsule);
  } finally {
    await door.stop();
  }
});
