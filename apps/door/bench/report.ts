/** The bench's output: a table for people, then one JSON line (the last line of stdout) for CI and docs. */
import os from 'node:os';
import type { BenchConfig } from './config.js';
import type { LoadResult } from './load.js';
import type { GetTaskMeasurement } from './measure-get-task.js';
import type { ListTasksMeasurement } from './measure-list-tasks.js';
import type { SendMessageMeasurement } from './measure-send-message.js';
import { round } from './stats.js';

export interface BenchResults {
  config: BenchConfig;
  versions: { node: string; fastify: string; autocannon: string };
  getTask: GetTaskMeasurement;
  sendMessage: SendMessageMeasurement;
  listTasks: ListTasksMeasurement;
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => n.toFixed(2);
const pct = (n: number | null) => (n === null ? 'n/a' : `${Math.round(n * 100)}%`);
const verdict = (pass: boolean) => (pass ? 'PASS' : 'MISS');
const errorsOf = (r: LoadResult) => r.errors + r.timeouts + r.non2xx + r.mismatches;

function table(rows: string[][]): string[] {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  return rows.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('   '));
}

function loadRow(label: string, unit: string, r: LoadResult): string[] {
  return [label, `${int(r.perSecond)} ${unit}`, ms(r.p50Ms), ms(r.p99Ms), pct(r.serverCpu), pct(r.generatorCpu), pct(r.otherCpu), String(errorsOf(r))];
}

/** Above this many cores of outside work during a measurement, its figures are flagged as noisy. */
const BUSY_MACHINE = 0.25;

export function renderTable(results: BenchResults): string {
  const { config, getTask, sendMessage, listTasks } = results;
  const lines = [
    '',
    `Murmur door bench — node ${results.versions.node}, fastify ${results.versions.fastify}, autocannon ${results.versions.autocannon}, ${os.cpus().length} CPUs`,
    `load: ${config.connections} keep-alive connections, ${config.seconds}s measured per line after ${config.warmupSeconds}s warm-up; GetTask alternates raw/door in ${config.rounds} rounds`,
    'CPU columns: cores busy over the run (100% = one core) for the server, the bench (load generator), and everything else',
    '',
    ...table([
      ['measurement', 'rate', 'p50 ms', 'p99 ms', 'server CPU', 'bench CPU', 'other CPU', 'errors'],
      loadRow('GetTask — raw Fastify endpoint', 'req/s', getTask.raw),
      loadRow('GetTask — door', 'req/s', getTask.door),
      loadRow('SendMessage, blocking — door', 'tasks/s', sendMessage.door),
    ]),
    '',
    `GetTask: door / raw Fastify = ${(getTask.ratio * 100).toFixed(1)}%   (target ≥ ${getTask.target * 100}%)   ${verdict(getTask.pass)}   rounds: ${getTask.roundRatios.map((r) => `${(r * 100).toFixed(0)}%`).join(', ')}`,
    `SendMessage: ${int(sendMessage.door.perSecond)} tasks/s = ${(sendMessage.ratio * 100).toFixed(1)}% of the raw endpoint's ${int(sendMessage.rawPerSecond)} req/s (for scale; no target)`,
    '',
    `ListTasks, pageSize ${listTasks.pageSize}, over ${int(listTasks.totalSize)} tasks (median of ${listTasks.firstSamplesMs.length} requests each):`,
    ...table([
      ['  page 1', `${ms(listTasks.firstMs)} ms`],
      [`  page ${int(listTasks.deepPage)}`, `${ms(listTasks.deepMs)} ms`],
    ]),
    `ListTasks: deep / first = ${listTasks.ratio.toFixed(2)}x   (target ≤ ${listTasks.target}x)   ${verdict(listTasks.pass)}`,
    `  (seeding ${int(listTasks.seeded)} rows took ${int(listTasks.insertMs)} ms; the door reopened the session in ${int(listTasks.resumeMs)} ms)`,
    '',
  ];
  const loads = [getTask.raw, getTask.door, sendMessage.door];
  if (loads.some((r) => errorsOf(r) > 0)) lines.push('WARNING: some requests failed or answered something else; see "errors" (the rates count only correct answers).');
  if (loads.some((r) => (r.otherCpu ?? 0) > BUSY_MACHINE)) lines.push('WARNING: other work used the CPUs during the run (see "other CPU"): the rates are noisy; rerun on a quiet machine.');
  if (lines.at(-1) !== '') lines.push('');
  return lines.join('\n');
}

function loadJson(r: LoadResult) {
  return {
    perSecond: round(r.perSecond, 1),
    p50Ms: round(r.p50Ms, 3),
    p99Ms: round(r.p99Ms, 3),
    meanMs: round(r.meanMs, 3),
    responses: r.responses,
    errors: r.errors,
    timeouts: r.timeouts,
    non2xx: r.non2xx,
    mismatches: r.mismatches,
    seconds: round(r.seconds, 2),
    serverCpu: r.serverCpu === null ? null : round(r.serverCpu, 2),
    benchCpu: round(r.generatorCpu, 2),
    otherCpu: r.otherCpu === null ? null : round(r.otherCpu, 2),
    runs: r.runs,
  };
}

export function renderJson(results: BenchResults): string {
  const { config, getTask, sendMessage, listTasks } = results;
  return JSON.stringify({
    bench: 'murmur-door',
    schema: 1,
    at: new Date().toISOString(),
    environment: { ...results.versions, cpus: os.cpus().length, platform: process.platform, arch: process.arch },
    config: { seconds: config.seconds, warmupSeconds: config.warmupSeconds, rounds: config.rounds, connections: config.connections },
    getTask: {
      door: loadJson(getTask.door),
      rawFastify: loadJson(getTask.raw),
      ratio: round(getTask.ratio, 3),
      roundRatios: getTask.roundRatios.map((r) => round(r, 3)),
      target: getTask.target,
      pass: getTask.pass,
      responseBytes: getTask.responseBytes,
    },
    sendMessage: { door: loadJson(sendMessage.door), rawFastifyPerSecond: round(sendMessage.rawPerSecond, 1), ratio: round(sendMessage.ratio, 4) },
    listTasks: {
      totalSize: listTasks.totalSize,
      pageSize: listTasks.pageSize,
      deepPage: listTasks.deepPage,
      firstPageMs: round(listTasks.firstMs, 3),
      deepPageMs: round(listTasks.deepMs, 3),
      ratio: round(listTasks.ratio, 3),
      target: listTasks.target,
      pass: listTasks.pass,
      samples: listTasks.firstSamplesMs.length,
      insertMs: Math.round(listTasks.insertMs),
      resumeMs: Math.round(listTasks.resumeMs),
    },
    pass: getTask.pass && listTasks.pass,
  });
}
