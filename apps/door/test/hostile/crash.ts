/** The crash scenario (issue 16): kill -9 at a random point with requests in flight, then --resume the records. */
import path from 'node:path';
import sqlite3 from 'sqlite3';
import { makeCapsule, manifestYaml, runDoor, tempDir } from '../support/door-process.js';
import { rpc } from '../support/rpc.js';
import { prng } from '../support/wire.js';

export interface CrashFigures {
  trials: number;
  acknowledged: number;
  missing: number;
  leftLive: number;
  settledFailed: number;
  integrityFailures: number;
}

const SCRIPT = "rules:\n  - match: slow\n    turns:\n      - sleep_ms: 400\n        answer: slow done\ndefault:\n  turns:\n    - answer: ok\n";

function integrity(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(file, sqlite3.OPEN_READONLY, (error) => {
      if (error) return reject(error);
      db.get('PRAGMA integrity_check', (e, row: { integrity_check: string } | undefined) => {
        db.close();
        if (e) reject(e);
        else resolve(row?.integrity_check ?? 'no answer');
      });
    });
  });
}

/** `trials` kill -9 trials, each at a seeded random moment while SendMessage requests are in flight. */
export async function runCrashTrials(trials: number, seed: number): Promise<CrashFigures> {
  const rand = prng(seed);
  const figures: CrashFigures = { trials, acknowledged: 0, missing: 0, leftLive: 0, settledFailed: 0, integrityFailures: 0 };
  const capsule = makeCapsule(manifestYaml({ name: 'crash' }), SCRIPT);
  for (let trial = 0; trial < trials; trial++) {
    const home = tempDir('crash');
    const door = await runDoor(capsule, [], home);
    const acknowledged: string[] = [];
    let inFlight = true;
    const senders = Array.from({ length: 3 }, async (_, s) => {
      for (let n = 0; inFlight; n++) {
        const answer = await rpc(door.url, 'SendMessage', { message: { messageId: `t${trial}-${s}-${n}`, role: 'ROLE_USER', parts: [{ text: n % 3 === 0 ? 'slow' : 'quick' }] }, configuration: { returnImmediately: true } }).catch(() => null);
        if (answer?.json?.result?.task?.id) acknowledged.push(answer.json.result.task.id);
        else return;
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 50 + Math.floor(rand() * 400)));
    door.child.kill('SIGKILL');
    inFlight = false;
    await door.exited;
    await Promise.all(senders);
    figures.acknowledged += acknowledged.length;
    const resumed = await runDoor(capsule, ['--resume', door.sessionId], home);
    try {
      for (const id of acknowledged) {
        const task = (await rpc(resumed.url, 'GetTask', { id })).json.result;
        if (!task) figures.missing += 1;
        else if (['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_INPUT_REQUIRED'].includes(task.status.state)) figures.leftLive += 1;
        else if (task.status.state === 'TASK_STATE_FAILED') figures.settledFailed += 1;
      }
    } finally {
      await resumed.stop();
    }
    if ((await integrity(path.join(door.recordsDir, 'store.db'))) !== 'ok') figures.integrityFailures += 1;
  }
  return figures;
}
