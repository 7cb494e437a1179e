/** A process's resident set size from /proc/<pid>/status (VmRSS), in KiB; null where /proc is not available. */
import { readFileSync } from 'node:fs';
import { median } from './stats.js';

export function rssKiB(pid: number): number | null {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
  return match ? Number(match[1]) : null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The median of a few readings `gapMs` apart, once the process had `settleMs` to settle. */
export async function settledRssKiB(pid: number, settleMs = 300, samples = 5, gapMs = 50): Promise<number> {
  await sleep(settleMs);
  const readings: number[] = [];
  for (let i = 0; i < samples; i++) {
    if (i > 0) await sleep(gapMs);
    const rss = rssKiB(pid);
    if (rss === null) throw new Error(`cannot read /proc/${pid}/status: the memory figures need Linux /proc`);
    readings.push(rss);
  }
  return median(readings);
}

/** Reads the RSS every `everyMs` until stopped, keeping the largest reading. */
export function sampleRss(pid: number, everyMs = 10): { stop(): { maxKiB: number; samples: number } } {
  let maxKiB = rssKiB(pid) ?? 0;
  let samples = 1;
  const timer = setInterval(() => {
    const rss = rssKiB(pid);
    if (rss !== null) maxKiB = Math.max(maxKiB, rss);
    samples += 1;
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      const rss = rssKiB(pid);
      if (rss !== null) maxKiB = Math.max(maxKiB, rss);
      return { maxKiB, samples: samples + 1 };
    },
  };
}
