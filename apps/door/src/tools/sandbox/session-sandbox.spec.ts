import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { SandboxUnavailableError } from './sandbox.js';
import { SessionSandbox } from './session-sandbox.js';

const temp = (prefix: string) => mkdtempSync(path.join(os.tmpdir(), `murmur-${prefix}-`));

test('a shell capsule whose sandbox helper was never built does not start: the refusal names the file and the fix', async () => {
  process.env.MURMUR_HOME = temp('home');
  const { doorSettings } = await import('../../config/settings.js');
  const { stageSession } = await import('../../session/stage-session.js');
  const dir = temp('capsule');
  writeFileSync(
    path.join(dir, 'murmur.yaml'),
    'name: helperless\nversion: 0.1.0\nlifecycle:\n  task_acceptance: none\ncapabilities:\n  shell:\n    allow: [bash]\n',
  );
  const session = stageSession({ dir, settings: doorSettings(), host: '127.0.0.1', port: 0 });
  const missing = path.join(dir, 'no-such-helper');
  await assert.rejects(SessionSandbox.forSession(session, process.getuid?.() ?? -1, missing), (error: Error) => {
    assert.ok(error instanceof SandboxUnavailableError);
    assert.equal(
      error.message,
      `${path.join(dir, 'murmur.yaml')}:\n  capabilities.shell.allow: found ["bash"]; allowed: a shell only where its commands can be sandboxed, and here the sandbox helper is not built (${missing}): run npm run build, which compiles it with a C compiler (apt-get install -y gcc), or opt out with capabilities.shell.sandbox: off`,
    );
    return true;
  });
});
