import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { MachineLedger } from './machine-ledger.js';

const NOON = () => new Date('2026-12-02T12:00:00Z');
const dir = () => mkdtempSync(path.join(os.tmpdir(), 'ledger-'));

describe('the machine ledger: one day total, evaluated in file order by every reader', () => {
  test('reservations are granted while the total leaves room; a settlement replaces its reservation', () => {
    const d = dir();
    const a = new MachineLedger(d, 'ses_a', NOON);
    const first = a.reserve(600, 1000);
    assert.equal(first.spent, 0);
    assert.ok(first.key);
    assert.equal(a.reserve(600, 1000).key, null, '600 + 600 passes 1000');
    a.settle(first.key, 250);
    assert.equal(a.tokensToday(), 250);
    assert.deepEqual(a.reserve(600, 1000), { key: 'ses_a 3', spent: 250 });
  });

  test('two sessions interleaved: the later reservation sees the earlier one, whoever reads first', () => {
    const d = dir();
    const a = new MachineLedger(d, 'ses_a', NOON);
    const b = new MachineLedger(d, 'ses_b', NOON);
    assert.ok(a.reserve(700, 1000).key);
    const refused = b.reserve(400, 1000);
    assert.deepEqual(refused, { key: null, spent: 700 });
    b.add(100);
    assert.equal(a.tokensToday(), 800, 'a reads b’s use too');
    assert.equal(b.tokensToday(), 800);
  });

  test('a reservation never settled stays counted; a torn last line is read once it is whole', () => {
    const d = dir();
    const crashed = new MachineLedger(d, 'ses_gone', NOON);
    crashed.reserve(300, 10_000);
    const file = path.join(d, '2026-12-02.ledger');
    appendFileSync(file, 'U ses_x 4');
    const reader = new MachineLedger(d, 'ses_r', NOON);
    assert.equal(reader.tokensToday(), 300);
    appendFileSync(file, '0\n');
    assert.equal(reader.tokensToday(), 340);
    assert.match(readFileSync(file, 'utf8'), /^R ses_gone 1 300 10000\nU ses_x 40\n$/);
  });

  test('a new day (UTC) starts from nothing, in a file of its own', () => {
    const d = dir();
    let now = new Date('2026-12-02T23:59:59Z');
    const a = new MachineLedger(d, 'ses_a', () => now);
    a.add(900);
    assert.equal(a.tokensToday(), 900);
    now = new Date('2026-12-03T00:00:01Z');
    assert.equal(a.tokensToday(), 0);
    assert.ok(a.reserve(900, 1000).key);
  });
});
