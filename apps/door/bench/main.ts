/**
 * npm run bench: GetTask beside raw Fastify, blocking SendMessage on the script driver, ListTasks deep paging over a
 * seeded store, WatchSession fan-out, and the door's memory under idle and stalled streams, against real door
 * subprocesses under a temporary MURMUR_HOME; plus the console's figures from the last Playwright perf run, when
 * there is one. Prints a table, then one JSON line. A missed target is reported, not failed; a bench that cannot
 * measure exits 1.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { METHOD } from '@murmur/protocol';
import { BENCH_TASK_TEXT, writeCapsule } from './capsule.js';
import { killAllNow, stopAll } from './children.js';
import { type BenchConfig, readConfig, TARGETS } from './config.js';
import { readConsolePerf, readConsoleViewsPerf } from './console-perf.js';
import { type DoorProcess, startDoor } from './door-process.js';
import { type DriverMeasurement, measureDriver, renderDrivers } from './measure-drivers.js';
import { type FanOutMeasurement, type FanOutShape, measureFanOut } from './measure-fan-out.js';
import { type FormationMeasurement, measureFormation, renderFormation } from './measure-formation.js';
import { type GetTaskMeasurement, measureGetTask } from './measure-get-task.js';
import { measureListTasks } from './measure-list-tasks.js';
import { type PlanesMeasurement, measurePlanes, renderPlanes } from './measure-planes.js';
import { measureProcessLifetime } from './measure-process-lifetime.js';
import { type GovernorsMeasurement, governorsLines, measureGovernors } from './measure-governors.js';
import { measureShellSandbox, type ShellSandboxMeasurement, shellSandboxJson, shellSandboxLines } from './measure-shell-sandbox.js';
import { type ColdStart, FOOTPRINT_REST_MS, FOOTPRINT_SETTLE_MS, type Footprint, fill, measureColdStart } from './measure-footprint.js';
import { measureStreamMemory, type StreamMemoryMeasurement } from './measure-stream-memory.js';
import { measureStreamVersusSdk, type StreamVersusSdk } from './measure-stream-rate.js';
import { measureSendVersusSdk, type SendVersusSdk } from './measure-versus-sdk.js';
import { settledRssKiB } from './proc-memory.js';
import { type RawEndpoint, startNodeHttpEndpoint, startRawEndpoint, startSdkServer } from './raw-endpoint.js';
import { fanOutJson, fanOutLines, renderJson, renderTable, memoryLines } from './report.js';
import { targetLines, targetsJson } from './report-targets.js';
import { rpc, sendParams } from './rpc-client.js';
import { FANOUT_TASK_TEXT, FANOUT_WIDE_TASK_TEXT, writeStreamCapsule } from './stream-capsule.js';
import { versions } from './versions.js';

const log = (line: string) => process.stderr.write(`bench: ${line}\n`);

const profileFlags = (config: BenchConfig) => (config.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${config.cpuProfDir}`] : []);

interface FanOuts {
  /** 50 readers (BENCH_FANOUT_READERS) of a 10,000-chunk task. */
  fanOut: FanOutMeasurement;
  /** 1,000 readers (BENCH_FANOUT_WIDE_READERS) of one task. */
  fanOutWide: FanOutMeasurement;
}

/** Both fan-outs on one door of the streaming capsule: 50 readers, then 1,000. */
async function measureFanOuts(root: string, config: BenchConfig, capsuleDir: string): Promise<FanOuts> {
  const narrow: FanOutShape = {
    readers: config.fanOutReaders,
    chunks: config.fanOutChunks,
    rounds: config.fanOutRounds,
    taskText: FANOUT_TASK_TEXT,
    target: TARGETS.fanOutEventsPerSecond,
  };
  const wide: FanOutShape = {
    readers: config.fanOutWideReaders,
    chunks: config.fanOutWideChunks,
    rounds: config.fanOutRounds,
    taskText: FANOUT_WIDE_TASK_TEXT,
    target: TARGETS.fanOutWideDeliveriesPerSecond,
  };
  log('fan-out: starting a door');
  const door = await startDoor({ home: path.join(root, 'home-fan-out'), capsuleDir, nodeFlags: profileFlags(config) });
  try {
    return { fanOut: await measureFanOut(door, config, narrow, log), fanOutWide: await measureFanOut(door, config, wide, log) };
  } finally {
    await door.stop();
  }
}

/** The door's memory under idle streams and one stalled reader, on a door of its own running the streaming capsule. */
async function measureMemory(root: string, config: BenchConfig, capsuleDir: string): Promise<StreamMemoryMeasurement> {
  log('memory: starting a door');
  const memoryDoor = await startDoor({ home: path.join(root, 'home-memory'), capsuleDir });
  try {
    return await measureStreamMemory(memoryDoor, config, log);
  } finally {
    await memoryDoor.stop();
  }
}

/** Fan-out and memory, each on a door of its own running the streaming capsule. */
async function measureStreams(root: string, config: BenchConfig): Promise<FanOuts & { streamMemory: StreamMemoryMeasurement }> {
  const capsuleDir = writeStreamCapsule(path.join(root, 'stream-capsule'), config);
  const fanOuts = await measureFanOuts(root, config, capsuleDir);
  return { ...fanOuts, streamMemory: await measureMemory(root, config, capsuleDir) };
}

interface VersusSdk {
  send: SendVersusSdk[];
  streams: StreamVersusSdk;
}

/** SendMessage at 1 and 16 connections and streams, the door beside the SDK's server started in this run. */
async function measureVersusSdk(door: DoorProcess, config: BenchConfig): Promise<VersusSdk> {
  log('starting the @a2a-js/sdk server');
  const sdk = await startSdkServer();
  try {
    const send = [await measureSendVersusSdk(door, sdk, 1, config, log), await measureSendVersusSdk(door, sdk, config.connections, config, log)];
    for (const s of send)
      log(`SendMessage c${s.connections}: door ${Math.round(s.door.medianPerSecond)} tasks/s, SDK ${Math.round(s.sdk.medianPerSecond)} tasks/s`);
    const streams = await measureStreamVersusSdk(door, sdk, config, log);
    log(`streams: door ${Math.round(streams.door.medianEventsPerSecond)} events/s, SDK ${Math.round(streams.sdk.medianEventsPerSecond)} events/s`);
    return { send, streams };
  } finally {
    await sdk.stop();
  }
}

/** A reference server's RSS once started and quiet. */
async function idleRssOf(start: Promise<RawEndpoint>): Promise<number> {
  const server = await start;
  try {
    return await settledRssKiB(server.pid, FOOTPRINT_SETTLE_MS);
  } finally {
    await server.stop();
  }
}

/** RSS idle and after the fill marks, each server fresh; the raw endpoints' idle RSS as the floors. */
async function measureFootprint(root: string, capsuleDir: string, config: BenchConfig): Promise<Footprint> {
  const rawIdleKiB = await idleRssOf(startRawEndpoint({}));
  const nodeHttpIdleKiB = await idleRssOf(startNodeHttpEndpoint({}));
  const door = await startDoor({ home: path.join(root, 'home-footprint'), capsuleDir });
  let doorPoints: Footprint['door'];
  try {
    doorPoints = await fill(door, config.fillTasks, 'door', log, FOOTPRINT_REST_MS);
  } finally {
    await door.stop();
  }
  const sdk = await startSdkServer();
  try {
    return { door: doorPoints, sdk: await fill(sdk, config.fillTasks, 'SDK server', log), rawIdleKiB, nodeHttpIdleKiB };
  } finally {
    await sdk.stop();
  }
}

/** Per provider driver, on a fake provider in this process (docs/drivers.md). */
async function measureDrivers(root: string): Promise<DriverMeasurement[]> {
  return [await measureDriver(root, 'openai', log), await measureDriver(root, 'anthropic', log)];
}

async function run(root: string): Promise<void> {
  if (process.argv.includes('--drivers')) {
    const drivers = await measureDrivers(root);
    process.stdout.write(renderDrivers(drivers));
    process.stdout.write(`${JSON.stringify({ bench: 'murmur-door-drivers', at: new Date().toISOString(), drivers })}\n`);
    return;
  }
  const config = readConfig();
  // The planes: a 1 GiB download beside raw createReadStream, and peer handle mint + redeem (docs/benchmarks.md).
  const planes = (): Promise<PlanesMeasurement> => measurePlanes(root, { handleSamples: config.quick ? 30 : 200 }, log);
  const printPlanes = (m: PlanesMeasurement) => {
    process.stdout.write(renderPlanes(m));
    process.stdout.write(`${JSON.stringify({ bench: 'murmur-door-planes', at: new Date().toISOString(), planes: m })}\n`);
  };
  if (process.argv.includes('--planes')) return printPlanes(await planes());
  // Formations: three members started and stopped, call → continuation round trips (docs/benchmarks.md).
  const formation = (): Promise<FormationMeasurement> => measureFormation(root, config.quick ? { trials: 1, samples: 5 } : { trials: 2, samples: 12 }, log);
  const printFormation = (m: FormationMeasurement) => {
    process.stdout.write(renderFormation(m));
    process.stdout.write(`${JSON.stringify({ bench: 'murmur-door-formation', at: new Date().toISOString(), formation: m })}\n`);
  };
  if (process.argv.includes('--formation')) return printFormation(await formation());
  // The command sandbox's cost: a foreground shell call and a background start, bubblewrap vs sandbox: off (docs/benchmarks.md).
  const shellSandbox = (): Promise<ShellSandboxMeasurement> =>
    measureShellSandbox(root, { calls: config.shellCalls, warmup: config.shellWarmup, backgroundCalls: config.shellBackgroundCalls }, log);
  if (process.argv.includes('--shell-sandbox')) {
    const m = await shellSandbox();
    process.stdout.write(`\n${shellSandboxLines(m).join('\n')}\n\n`);
    process.stdout.write(`${JSON.stringify({ bench: 'murmur-door-shell-sandbox', at: new Date().toISOString(), shellSandbox: shellSandboxJson(m) })}\n`);
    return;
  }
  // The governors' cost: the on_tool_call decision point per tool call and one compaction (docs/benchmarks.md).
  const governors = (): Promise<GovernorsMeasurement> =>
    measureGovernors(root, { calls: config.quick ? 40 : 100, warmup: 10, compactions: config.quick ? 10 : 30 }, log);
  const printGovernors = (m: GovernorsMeasurement) => {
    process.stdout.write(`\n${governorsLines(m).join('\n')}\n\n`);
    process.stdout.write(`${JSON.stringify({ bench: 'murmur-door-governors', at: new Date().toISOString(), governors: m })}\n`);
  };
  if (process.argv.includes('--governors')) return printGovernors(await governors());
  if (process.argv.includes('--stalled')) {
    // The door's memory alone: idle streams and the stalled reader, with the stalled reader's target row.
    const streamMemory = await measureMemory(root, config, writeStreamCapsule(path.join(root, 'stream-capsule'), config));
    process.stdout.write(`\n${memoryLines(streamMemory).join('\n')}\n\n`);
    process.stdout.write(`${JSON.stringify({ bench: 'murmur-door-stalled', at: new Date().toISOString(), streamMemory })}\n`);
    return;
  }
  if (process.argv.includes('--fan-out')) {
    const fanOuts = await measureFanOuts(root, config, writeStreamCapsule(path.join(root, 'stream-capsule'), config));
    process.stdout.write(`\n${fanOutLines(fanOuts.fanOut).join('\n')}\n${fanOutLines(fanOuts.fanOutWide).join('\n')}\n\n`);
    process.stdout.write(
      `${JSON.stringify({ bench: 'murmur-door-fan-out', at: new Date().toISOString(), fanOut: fanOutJson(fanOuts.fanOut), fanOutWide: fanOutJson(fanOuts.fanOutWide) })}\n`,
    );
    return;
  }
  const home = path.join(root, 'home');
  const capsuleDir = writeCapsule(path.join(root, 'capsule'));

  log('starting a door');
  const door = await startDoor({ home, capsuleDir, nodeFlags: profileFlags(config) });
  let getTask: GetTaskMeasurement;
  let versusSdk: VersusSdk;
  try {
    const sent = await rpc(door.url, METHOD.SendMessage, sendParams(BENCH_TASK_TEXT, 'msg-bench-setup'));
    const task = sent.result.task as { id?: unknown; status?: { state?: unknown } } | undefined;
    if (typeof task?.id !== 'string' || task.status?.state !== 'TASK_STATE_COMPLETED')
      throw new Error(`the setup task did not complete: ${JSON.stringify(sent.result)}`);
    getTask = await measureGetTask(door, task.id, config, log);
    versusSdk = await measureVersusSdk(door, config);
  } finally {
    await door.stop();
  }
  const footprint: Footprint = await measureFootprint(root, capsuleDir, config);
  const coldStart: ColdStart = await measureColdStart(root, capsuleDir, config, log);
  if (process.argv.includes('--versus')) {
    // An A/B pass: GetTask beside its anchors, SendMessage and streams beside the SDK, RSS and cold start; the targets' table and one JSON line.
    const targets = { getTask, versusSdk, footprint, coldStart };
    process.stdout.write(`\n${targetLines(targets).join('\n')}\n\n`);
    process.stdout.write(
      `${JSON.stringify({ bench: 'murmur-door-versus', at: new Date().toISOString(), targets: targetsJson(targets), getTask, versusSdk, footprint, coldStart })}\n`,
    );
    return;
  }
  const listTasks = await measureListTasks(home, capsuleDir, config, log);
  const { fanOut, fanOutWide, streamMemory } = await measureStreams(root, config);
  const processes = await measureProcessLifetime(root, config.killTrials, config.holderCalls, log);
  const shellSandboxMeasurement = await shellSandbox();
  if (config.cpuProfDir) log(`the doors' CPU profiles (GetTask/SendMessage/streams, then fan-out) are in ${config.cpuProfDir}`);
  const drivers = await measureDrivers(root);
  const planesMeasurement = await planes();
  const formationMeasurement = await formation();
  const governorsMeasurement = await governors();
  const consolePerf = readConsolePerf();
  const consoleViews = readConsoleViewsPerf();

  const results = {
    config,
    versions: versions(),
    getTask,
    versusSdk,
    footprint,
    coldStart,
    listTasks,
    fanOut,
    fanOutWide,
    streamMemory,
    processes,
    shellSandbox: shellSandboxMeasurement,
    consolePerf,
    consoleViews,
  };
  process.stdout.write(renderTable(results));
  process.stdout.write(renderDrivers(drivers));
  process.stdout.write(`${renderJson(results)}\n`);
  process.stdout.write(`${JSON.stringify({ bench: 'murmur-door-drivers', at: new Date().toISOString(), drivers })}\n`);
  printPlanes(planesMeasurement);
  printFormation(formationMeasurement);
  printGovernors(governorsMeasurement);
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
