import assert from 'node:assert/strict';
import test from 'node:test';
import { formatTimestamp, parseTimestampCeilMs } from '../src/index.js';

// Seed "Status timestamps": every status carries a timestamp in RFC 3339 UTC with milliseconds and a Z,
// such as 2026-10-13T09:00:00.123Z; ListTasks' statusTimestampAfter reads any offset.

const AT = Date.UTC(2026, 9, 13, 9, 0, 0, 123);

test('formatTimestamp writes RFC 3339 UTC with milliseconds and a Z', () => {
  assert.equal(formatTimestamp(AT), '2026-10-13T09:00:00.123Z');
  assert.equal(formatTimestamp(Date.UTC(2026, 9, 13, 9, 0, 0)), '2026-10-13T09:00:00.000Z');
  assert.equal(formatTimestamp(0), '1970-01-01T00:00:00.000Z');
  assert.match(formatTimestamp(Date.now()), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
});

test("a cutoff copied from a task's status.timestamp includes that task", () => {
  for (const ms of [0, 1, AT, AT + 1, Date.now()]) assert.equal(parseTimestampCeilMs(formatTimestamp(ms)), ms);
});

test('any offset names the same instant', () => {
  const at = Date.UTC(2026, 9, 13, 9, 0, 0);
  const forms = [
    '2026-10-13T09:00:00Z',
    '2026-10-13T09:00:00z',
    '2026-10-13t09:00:00Z',
    '2026-10-13T09:00:00+00:00',
    '2026-10-13T09:00:00-00:00',
    '2026-10-13T11:00:00+02:00',
    '2026-10-13T14:45:00+05:45',
    '2026-10-12T23:00:00-10:00',
    '2026-10-14T08:59:00+23:59',
  ];
  for (const text of forms) assert.equal(parseTimestampCeilMs(text), at, text);
});

test('fractional seconds: one to nine digits', () => {
  const base = Date.UTC(2026, 9, 13, 9, 0, 0);
  assert.equal(parseTimestampCeilMs('2026-10-13T09:00:00.1Z'), base + 100);
  assert.equal(parseTimestampCeilMs('2026-10-13T09:00:00.12Z'), base + 120);
  assert.equal(parseTimestampCeilMs('2026-10-13T09:00:00.123Z'), base + 123);
  assert.equal(parseTimestampCeilMs('2026-10-13T09:00:00.123000Z'), base + 123);
  assert.equal(parseTimestampCeilMs('2026-10-13T09:00:00.123000000Z'), base + 123);
});

test('a cutoff between two milliseconds reads as the next one, so "at or after" stays exact', () => {
  const base = Date.UTC(2026, 9, 13, 9, 0, 0);
  assert.equal(parseTimestampCeilMs('2026-10-13T09:00:00.1231Z'), base + 124);
  assert.equal(parseTimestampCeilMs('2026-10-13T09:00:00.123000001Z'), base + 124);
  assert.equal(parseTimestampCeilMs('2026-10-13T09:00:00.999999Z'), base + 1000);
});

test('more than nine fractional digits are still RFC 3339', () => {
  const base = Date.UTC(2026, 9, 13, 9, 0, 0);
  assert.equal(parseTimestampCeilMs('2026-10-13T09:00:00.1230000000Z'), base + 123);
  assert.equal(parseTimestampCeilMs('2026-10-13T09:00:00.1230000000001Z'), base + 124);
});

test('calendar edges: leap days, month ends, a leap second', () => {
  assert.equal(parseTimestampCeilMs('2028-02-29T00:00:00Z'), Date.UTC(2028, 1, 29));
  assert.equal(parseTimestampCeilMs('2000-02-29T00:00:00Z'), Date.UTC(2000, 1, 29));
  assert.equal(parseTimestampCeilMs('2026-04-30T23:59:59Z'), Date.UTC(2026, 3, 30, 23, 59, 59));
  assert.equal(parseTimestampCeilMs('2016-12-31T23:59:60Z'), Date.UTC(2017, 0, 1));
});

test('years before 100 are not read as 19xx', () => {
  const year = (y: number, month = 0, day = 1): number => {
    const d = new Date(0);
    d.setUTCFullYear(y, month, day);
    return d.getTime();
  };
  assert.equal(parseTimestampCeilMs('0050-01-01T00:00:00Z'), year(50));
  assert.equal(parseTimestampCeilMs('0000-01-01T00:00:00Z'), year(0));
  assert.equal(parseTimestampCeilMs('0004-02-29T00:00:00Z'), year(4, 1, 29), 'year 4 is a leap year');
  assert.equal(parseTimestampCeilMs('0000-02-29T00:00:00Z'), year(0, 1, 29), 'year 0 is a leap year');
  assert.equal(parseTimestampCeilMs('0100-02-29T00:00:00Z'), null, 'year 100 is not');
  assert.equal(parseTimestampCeilMs('0001-01-01T00:00:00Z'), -62135596800000);
});

test('what is not an RFC 3339 timestamp is null', () => {
  const bad = [
    '',
    '2026-10-13',
    '2026-10-13T09:00:00',
    '2026-10-13T09:00Z',
    '2026-10-13T09:00:00.Z',
    '2026-10-13T09:00:00+0200',
    '2026-10-13T09:00:00+02',
    '2026-10-13T9:00:00Z',
    '26-10-13T09:00:00Z',
    '2026-1-13T09:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-00-01T00:00:00Z',
    '2026-10-00T00:00:00Z',
    '2026-10-32T00:00:00Z',
    '2026-02-29T00:00:00Z',
    '1900-02-29T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-10-13T24:00:00Z',
    '2026-10-13T09:60:00Z',
    '2026-10-13T09:00:61Z',
    '2026-10-13T09:00:00+24:00',
    '2026-10-13T09:00:00+02:60',
    ' 2026-10-13T09:00:00Z',
    '2026-10-13T09:00:00Z ',
    '+2026-10-13T09:00:00Z',
    '2026-10-13T09:00:00UTC',
    '2026-10-13T09:00:00.123',
    '１０２６-10-13T09:00:00Z',
  ];
  for (const text of bad) assert.equal(parseTimestampCeilMs(text), null, JSON.stringify(text));
});
