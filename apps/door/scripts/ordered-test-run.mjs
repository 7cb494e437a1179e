#!/usr/bin/env node
// The door's test files run in the order given (scripts/run-tests.mjs), `--concurrency=<n>` at a time, each in its own
// process, with the reporters `node --test` was given before: TAP on stdout (.ci/total.mjs reads it), the failed tests
// and the slowest files on stderr (scripts/file-times-reporter.mjs). Why not `node --test <files>`: it sorts the files
// by name before it starts them, so the slowest files could not go first and the suite ended on whichever of them
// sorted last (on two cores, ~20 s with one or two files running). node:test's `run()` keeps the order it is given.
// Exits 1 when a test or a file failed, as `node --test` does.
import { run } from 'node:test';
import { tap } from 'node:test/reporters';
import fileTimes from './file-times-reporter.mjs';

const CONCURRENCY = /^--concurrency=(\d+)$/;
const asked = process.argv.slice(2);
const concurrency = Number(asked.map((arg) => CONCURRENCY.exec(arg)?.[1]).find((n) => n !== undefined) ?? 1);
const files = asked.filter((arg) => !CONCURRENCY.test(arg));

const stream = run({ files, concurrency });
// A failing todo test fails nothing, as under `node --test`.
stream.on('test:fail', (event) => {
  if (event.data.todo === undefined) process.exitCode = 1;
});
stream.compose(tap).pipe(process.stdout);
stream.compose(fileTimes).pipe(process.stderr);
