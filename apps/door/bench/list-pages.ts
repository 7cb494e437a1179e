/**
 * Times ListTasks pages against a store of seeded tasks: the first page, and a deep page reached by the token the
 * door would have answered for it (the previous page's last row's position, sealed with the session's key). Samples of the
 * two alternate, so drift affects both alike.
 */
import { METHOD } from '@murmur/protocol';
import { PageTokens } from '../src/tasks/page-tokens.js';
import { rpc } from './rpc-client.js';
import type { SeededTasks } from './seed-tasks.js';
import { median } from './stats.js';

export interface PageTimes {
  pageSize: number;
  deepPage: number;
  totalSize: number;
  firstMs: number;
  deepMs: number;
  /** deepMs / firstMs. */
  ratio: number;
  firstSamplesMs: number[];
  deepSamplesMs: number[];
}

const WARMUP = 3;

/** The token of page `page` (1-based) when the seeded rows are the newest and their changes contiguous. */
function tokenForPage(seeded: SeededTasks, pageSize: number, page: number): string {
  const change = seeded.lastChange - (page - 1) * pageSize + 1;
  if (change <= seeded.firstChange) throw new Error(`page ${page} lies outside the seeded tasks`);
  return PageTokens.withKey(seeded.pageTokenKey).issue({ change, taskId: seeded.idByChange(change) });
}

function taskIds(result: Record<string, unknown>): string[] {
  const tasks = result.tasks;
  if (!Array.isArray(tasks)) throw new Error('ListTasks answered without a tasks list');
  return tasks.map((t: { id?: unknown }) => String(t.id));
}

export async function timePages(url: string, seeded: SeededTasks, pageSize: number, deepPage: number, samples: number): Promise<PageTimes> {
  const first = { pageSize };
  const deep = { pageSize, pageToken: tokenForPage(seeded, pageSize, deepPage) };

  // The pages are the ones meant: page 1 starts at the newest task and names page 2 as built here; the deep page
  // starts right after the row its token names.
  const one = (await rpc(url, METHOD.ListTasks, first)).result;
  if (taskIds(one)[0] !== seeded.idByChange(seeded.lastChange)) throw new Error('ListTasks page 1 does not start at the newest seeded task');
  if (one.nextPageToken !== tokenForPage(seeded, pageSize, 2))
    throw new Error(`ListTasks page 1 answered nextPageToken ${String(one.nextPageToken)}, not the token built for page 2`);
  const far = (await rpc(url, METHOD.ListTasks, deep)).result;
  const expectedTop = seeded.lastChange - (deepPage - 1) * pageSize;
  const farIds = taskIds(far);
  if (farIds.length !== pageSize || farIds[0] !== seeded.idByChange(expectedTop)) throw new Error(`ListTasks page ${deepPage} is not the page expected`);

  for (let i = 0; i < WARMUP; i++) {
    await rpc(url, METHOD.ListTasks, first);
    await rpc(url, METHOD.ListTasks, deep);
  }
  const firstSamplesMs: number[] = [];
  const deepSamplesMs: number[] = [];
  for (let i = 0; i < samples; i++) {
    firstSamplesMs.push((await rpc(url, METHOD.ListTasks, first)).elapsedMs);
    deepSamplesMs.push((await rpc(url, METHOD.ListTasks, deep)).elapsedMs);
  }
  const firstMs = median(firstSamplesMs);
  const deepMs = median(deepSamplesMs);
  return { pageSize, deepPage, totalSize: Number(one.totalSize), firstMs, deepMs, ratio: deepMs / firstMs, firstSamplesMs, deepSamplesMs };
}
