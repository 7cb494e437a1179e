/**
 * The environment settings (docs/cli.md, "Environment settings"): one table, read once; every bad value refused in one
 * message in the config problem format, a sensitive one without its value; an empty value is an unset one; the
 * variables a manifest names are read by name from the same reading; and docs/cli.md lists every row as the table has it.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { doorSettings, readSettings, SETTINGS, SettingsError } from './settings.js';

test('unset (or empty), every setting takes its default', () => {
  const defaults = {
    home: path.join(os.homedir(), '.murmur'),
    heartbeatMs: 15_000,
    peerFetchMaxBytes: 268_435_456,
    delegationTimeoutSecs: 600,
    sourceApiUrl: 'https://api.github.com',
    consoleDist: null,
    harnessDir: path.join(os.homedir(), '.cache', 'murmur', 'harnesses'),
    otelSdkDisabled: false,
    otlpEndpoint: null,
    otlpTracesEndpoint: null,
    otlpTimeoutMs: 5_000,
    otlpHeaders: null,
    otlpCompression: null,
    otelServiceName: null,
    otelResourceAttributes: null,
  };
  const { variable: _unset, ...values } = readSettings({});
  assert.deepEqual(values, defaults);
  const empty = Object.fromEntries(Object.values(SETTINGS).map((row) => [row.name, ' ']));
  const { variable: _empty, ...fromEmpty } = readSettings(empty);
  assert.deepEqual(fromEmpty, defaults);
});

test('good values are parsed to their types', () => {
  const settings = readSettings({
    MURMUR_HOME: '/srv/murmur',
    MURMUR_HEARTBEAT_MS: '100',
    MURMUR_PEER_FETCH_MAX_BYTES: '1024',
    MURMUR_DELEGATION_TIMEOUT_SECS: '7',
    MURMUR_CONSOLE_DIST: 'console/dist',
    OTEL_SDK_DISABLED: 'TRUE',
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://collector.example/v1/traces',
    OTEL_EXPORTER_OTLP_TIMEOUT: '250',
    OTEL_EXPORTER_OTLP_HEADERS: 'api-key=abc,x-team=door',
    OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip',
    OTEL_SERVICE_NAME: 'svc',
    OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=test',
  });
  assert.equal(settings.home, '/srv/murmur');
  assert.equal(settings.heartbeatMs, 100);
  assert.equal(settings.peerFetchMaxBytes, 1024);
  assert.equal(settings.delegationTimeoutSecs, 7);
  assert.equal(settings.consoleDist, path.resolve('console/dist'));
  assert.equal(settings.otelSdkDisabled, true);
  assert.equal(settings.otlpEndpoint, 'http://127.0.0.1:4318');
  assert.equal(settings.otlpTracesEndpoint, 'https://collector.example/v1/traces');
  assert.equal(settings.otlpTimeoutMs, 250);
  assert.equal(settings.otlpHeaders, 'api-key=abc,x-team=door');
  assert.equal(settings.otlpCompression, 'gzip');
  assert.equal(settings.otelServiceName, 'svc');
  assert.equal(settings.otelResourceAttributes, 'deployment.environment=test');
  assert.ok(Object.isFrozen(settings));
});

test('every bad value is refused at once, in table order, naming the variable, its value and what is allowed', () => {
  const env = {
    OTEL_EXPORTER_OTLP_COMPRESSION: 'zstd',
    MURMUR_HOME: 'relative/home',
    MURMUR_HEARTBEAT_MS: '9',
    MURMUR_PEER_FETCH_MAX_BYTES: '268435457',
    MURMUR_DELEGATION_TIMEOUT_SECS: '1.5',
    OTEL_SDK_DISABLED: 'yes',
    OTEL_EXPORTER_OTLP_ENDPOINT: 'localhost:4318',
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'ftp://collector',
    OTEL_EXPORTER_OTLP_TIMEOUT: '0',
    OTEL_RESOURCE_ATTRIBUTES: 'no-equals-sign',
  };
  assert.throws(() => readSettings(env), {
    name: 'SettingsError',
    message: [
      'the environment:',
      '  MURMUR_HOME: found "relative/home"; allowed: an absolute path',
      '  MURMUR_HEARTBEAT_MS: found "9"; allowed: whole milliseconds from 10',
      '  MURMUR_PEER_FETCH_MAX_BYTES: found "268435457"; allowed: whole bytes from 1 to 268435456',
      '  MURMUR_DELEGATION_TIMEOUT_SECS: found "1.5"; allowed: whole seconds from 1',
      '  OTEL_SDK_DISABLED: found "yes"; allowed: true or false, in any case',
      '  OTEL_EXPORTER_OTLP_ENDPOINT: found "localhost:4318"; allowed: an http or https URL',
      '  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: found "ftp://collector"; allowed: an http or https URL',
      '  OTEL_EXPORTER_OTLP_TIMEOUT: found "0"; allowed: whole milliseconds from 1',
      '  OTEL_EXPORTER_OTLP_COMPRESSION: found "zstd"; allowed: gzip or none',
      '  OTEL_RESOURCE_ATTRIBUTES: found "no-equals-sign"; allowed: comma-separated key=value pairs',
    ].join('\n'),
  });
  try {
    readSettings(env);
  } catch (error) {
    assert.ok(error instanceof SettingsError);
    assert.equal(error.source, 'the environment');
    assert.deepEqual(
      error.problems.map((p) => p.path),
      [
        'MURMUR_HOME',
        'MURMUR_HEARTBEAT_MS',
        'MURMUR_PEER_FETCH_MAX_BYTES',
        'MURMUR_DELEGATION_TIMEOUT_SECS',
        'OTEL_SDK_DISABLED',
        'OTEL_EXPORTER_OTLP_ENDPOINT',
        'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
        'OTEL_EXPORTER_OTLP_TIMEOUT',
        'OTEL_EXPORTER_OTLP_COMPRESSION',
        'OTEL_RESOURCE_ATTRIBUTES',
      ],
    );
  }
});

test('a sensitive value is never printed, not even in part', () => {
  const secret = 'Authorization Bearer sk-live-0123456789';
  assert.throws(
    () => readSettings({ OTEL_EXPORTER_OTLP_HEADERS: secret }),
    (error: Error) => {
      assert.equal(
        error.message,
        'the environment:\n  OTEL_EXPORTER_OTLP_HEADERS: found a value that is not shown (sensitive); allowed: comma-separated key=value pairs',
      );
      for (const part of secret.split(' ')) assert.ok(!error.message.includes(part), part);
      return true;
    },
  );
  assert.deepEqual(
    Object.values(SETTINGS)
      .filter((row) => row.sensitive)
      .map((row) => row.name),
    ['OTEL_EXPORTER_OTLP_HEADERS'],
  );
});

test('a variable a manifest names is read by that name, from the reading: later changes do not reach it', () => {
  const env: Record<string, string> = { PROVIDER_KEY: 'k-1', EMPTY: '' };
  const settings = readSettings(env);
  env.PROVIDER_KEY = 'k-2';
  env.LATER = 'x';
  assert.equal(settings.variable('PROVIDER_KEY'), 'k-1');
  assert.equal(settings.variable('EMPTY'), '');
  assert.equal(settings.variable('LATER'), undefined);
});

test("the process's settings are read once: the same object every time", () => {
  assert.equal(doorSettings(), doorSettings());
});

test('docs/cli.md lists every setting with its meaning, whether it is sensitive and its default, as the table has them', () => {
  const docs = readFileSync(fileURLToPath(new URL('../../../../../docs/cli.md', import.meta.url)), 'utf8');
  const section = docs.slice(docs.indexOf('## Environment settings'));
  assert.ok(section.startsWith('## Environment settings'), 'docs/cli.md has the section');
  const rows = section.split('\n').filter((line) => /^\| `(MURMUR|OTEL)_/.test(line));
  assert.deepEqual(
    rows.map((line) => line.split(' | ')[0].replace('| `', '').replace('`', '')),
    Object.values(SETTINGS).map((row) => row.name),
    'one row per setting, in table order',
  );
  for (const row of Object.values(SETTINGS)) {
    const line = rows.find((l) => l.startsWith(`| \`${row.name}\` |`))!;
    const cells = line.split(' | ');
    assert.equal(cells[1], row.description, `${row.name}: its meaning`);
    assert.equal(cells[2], row.allowed, `${row.name}: what it allows`);
    assert.equal(cells[3], row.defaultText, `${row.name}: its default`);
    assert.equal(cells[4], row.sensitive ? 'yes' : 'no', `${row.name}: sensitive`);
    assert.equal(cells[5].replace(/ \|$/, ''), row.readBy === 'door' ? 'the door' : 'the OpenTelemetry SDK (checked by the door)', `${row.name}: read by`);
  }
});
