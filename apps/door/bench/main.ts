/**
 * npm run bench: GetTask beside raw Fastify, blocking SendMessage on the script driver, and ListTasks deep paging
 * over a seeded store, against real door subprocesses under a temporary MURMUR_HOME. Prints a table, then one JSON
 * line. A missed target is reported, not failed; a bench that cannot measure exits 1.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { METHOD } from '@murmur/protocol';
import { BENCH_TASK_TEXT, writeCapsule } from './capsule.js';
import { killAllNow, stopAll } from './children.js';
import { readConfig } from './config.js';
import { startDoor } from './door-process.js';
import { type GetTaskMeasurement, measureGetTask } from './measure-get-task.js';
import { measureListTasks } from './measure-list-tasks.js';
import { measureSendMessage, type SendMessageMeasurement } from './measure-send-message.js';
import { renderJson, renderTable } from './report.js';
import { rpc, sendParams } from './rpc-client.js';
import { versions } from './versions.js';

const log = (line: string) => process.stderr.write(`bench: ${line}\n`);

async function run(root: string): Promise<void> {
  const config = readConfig();
  const home = path.join(root, 'home');
  const capsuleDir = writeCapsule(path.join(root, 'capsule'));

  log('starting a door');
  const nodeFlags = config.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${config.cpuProfDir}`] : [];
  const door = await startDoor({ home, capsuleDir, nodeFlags });
  let getTask: GetTaskMeasurement;
  let sendMessage: SendMessageMeasurement;
  try {
    const sent = await rpc(door.url, METHOD.SendMessage, sendParams(BENCH_TASK_TEXT, 'msg-bench-setup'));
    const task = sent.result.task as { id?: unknown; status?: { state?: unknown } } | undefined;
    if (typeof task?.id !== 'string' || task.status?.state !== 'TASK_STATE_COMPLETED') throw new Error(`the setup task did not complete: ${JSON.stringify(sent.result)}`);
    getTask = await measureGetTask(door, task.id, config, log);
    sendMessage = await measureSendMessage(door, getTask.raw.perSecond, config, log);
  } finally {
    await door.stop();
  }
  if (config.cpuProfDir) log(`the door's CPU profile is in ${config.cpuProfDir}`);
  const listTasks = await measureListTasks(home, capsuleDir, config, log);

  const results = { config, versions: versions(), getTask, sendMessage, listTasks };
  process.stdout.write(renderTable(results));
  process.stdout.write(`${renderJson(results)}\n`);
}

async function main(): Promise<number> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'murmur-bench-'));
  const removeRoot = () => rmSync(root, { recursive: true, force: true });
  // Whatever ends the bench, no door or server outlives it and the temporary MURMUR_HOME goes.
  process.once('exit', () => {
    killAllNow();
    removeRoot();
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      log(`${signal}: stopping`);
      void stopAll().finally(() => process.exit(130));
    });
  }
  try {
    await run(root);
    return 0;
  } catch (error) {
    log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return 1;
  } finally {
    await stopAll();
    removeRoot();
  }
}

main().then((code) => process.exit(code));
