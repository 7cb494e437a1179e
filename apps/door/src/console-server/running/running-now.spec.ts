/**
 * The running-now watch's door bound (docs/console.md, "Running now"): past `maxDoors` the rest are counted as
 * unwatched and not asked. The watch over real doors and a real `mur console` is console-running.test.ts; reaching
 * RUNNING_DOORS_MAX there would take that many doors, so the cut is tested here with a small bound.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import type { SessionEntry } from '../../session/session-registry.js';
import { RunningNow } from './running-now.js';

/** A home whose registry lists `count` live sessions (this process's pid), each on its own closed loopback port. */
function homeWithSessions(count: number): string {
  const home = mkdtempSync(path.join(tmpdir(), 'running-now-'));
  mkdirSync(path.join(home, 'sessions'));
  for (let i = 0; i < count; i++) {
    const sessionId = `ses_0190${String(i).padStart(28, '0')}`;
    const entry: SessionEntry = {
      sessionId,
      name: `door-${i}`,
      version: '0.1.0',
      url: `http://127.0.0.1:${i + 1}`,
      pid: process.pid,
      capsuleDir: '/nonexistent/capsule',
      recordsDir: '/nonexistent/records',
      startedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    };
    writeFileSync(path.join(home, 'sessions', `${sessionId}.json`), JSON.stringify(entry));
  }
  return home;
}

test('past the door bound, the rest are counted as unwatched and not asked', () => {
  const home = homeWithSessions(5);
  const bounded = new RunningNow({ home, maxDoors: 2 });
  try {
    const s = bounded.snapshot();
    assert.equal(s.doors.length, 2);
    assert.equal(s.unwatched, 3);
    assert.equal(s.bounds.doors, 2);
    assert.deepEqual(
      s.doors.map((d) => d.name),
      ['door-0', 'door-1'],
      'the oldest sessions are the ones watched',
    );
  } finally {
    bounded.close();
    rmSync(home, { recursive: true, force: true });
  }
});
