/**
 * inference.transport: process in murmur.yaml (docs/harness.md, "The manifest"): every refusal of the harness block
 * and of what other blocks may not say beside it, each worded in the one config format, and a good manifest resolved.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import type { Variables } from '../config/settings.js';
import type { ConfigProblem } from '../config/config-problem.js';
import { harnessSpec } from './harness-spec.js';
import { loadManifest, parseManifest } from './manifest.loader.js';

const vars = (env: Record<string, string>): Variables => ({ variable: (name) => env[name] });

const HARNESS = ['inference:', '  transport: process', '  harness:', '    name: claude-code', '    model: claude-sonnet-4-5'];

function refusal(lines: string[], env: Record<string, string> = {}): string[] {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'murmur-harness-manifest-'));
  writeFileSync(path.join(dir, 'murmur.yaml'), ['name: h', 'version: 0.1.0', ...lines, ''].join('\n'));
  try {
    loadManifest(dir, vars(env));
  } catch (error) {
    return (error as Error).message
      .split('\n')
      .slice(1)
      .map((l) => l.trim());
  }
  assert.fail('the manifest was accepted');
}

test('a harness is required under transport: process, and nothing of a driver is taken', () => {
  assert.deepEqual(refusal(['inference:', '  transport: process']), [
    'inference.harness: found nothing; allowed: a harness, required under inference.transport: process',
  ]);
  assert.deepEqual(refusal([...HARNESS, '  driver: script', '  script: s.yaml']), [
    'inference.driver: found "script"; allowed: nothing under inference.transport: process: the harness makes the inference calls',
    'inference.script: found "s.yaml"; allowed: nothing under inference.transport: process: the harness makes the inference calls',
  ]);
  assert.deepEqual(refusal([...HARNESS, '  choices:', '    fast: { driver: openai-compatible, model: m }']), [
    'inference.choices: found {"fast":{"driver":"openai-compatible","model":"m"}}; allowed: nothing under inference.transport: process: the harness makes the inference calls',
  ]);
});

test('a harness under transport: http is refused, and http still needs its driver', () => {
  assert.deepEqual(
    refusal(['inference:', '  driver: script', '  script: s.yaml', '  harness: { name: codex, model: m }'])[0],
    'inference.harness: found {"name":"codex","model":"m"}; allowed: nothing under inference.transport: http: a harness runs only under inference.transport: process',
  );
  assert.deepEqual(refusal(['inference:', '  max_turns: 3']), [
    'inference.driver: found nothing; allowed: a driver choice, required under inference.transport: http',
  ]);
});

test('the harness block: its name, claude-code’s own keys, the settings the runtime sets itself', () => {
  assert.deepEqual(refusal(['inference:', '  transport: process', '  harness: { name: aider, model: m }']), [
    'inference.harness.name: found "aider"; allowed: one of "claude-code", "codex"',
  ]);
  assert.deepEqual(refusal(['inference:', '  transport: process', '  harness: { name: codex, model: m, key_as: auth-token, prompt_suggestions: true }']), [
    'inference.harness.key_as: found "auth-token"; allowed: nothing for codex: key_as is claude-code’s',
    'inference.harness.prompt_suggestions: found true; allowed: false for codex: only claude-code predicts prompts',
  ]);
  assert.deepEqual(
    refusal(['inference:', '  transport: process', '  harness: { name: codex, model: m, settings: { mcp_servers: {}, model_reasoning_effort: high } }']),
    [
      "inference.harness.settings.mcp_servers: found {}; allowed: a setting the runtime does not set itself; codex's model, model_provider, model_providers, mcp_servers, sandbox_mode, approval_policy, developer_instructions are the runtime's",
    ],
  );
});

test('what other blocks may not say beside a harness: switch-driver’s grant, an unsandboxed shell', () => {
  assert.deepEqual(refusal([...HARNESS, 'control:', '  agent_settings: [inference.driver]', 'capabilities:', '  shell:', '    sandbox: "off"']), [
    'control.agent_settings: found ["inference.driver"]; allowed: no inference.driver under inference.transport: process: switch-driver selects among driver choices, and a harness has none',
    'capabilities.shell.sandbox: found "off"; allowed: "on" under inference.transport: process: a harness and everything it runs always run in the sandbox',
  ]);
});

test('seed 004: pull-artifact’s grant is refused at load under transport: process, the harness owning its tool list', () => {
  assert.deepEqual(refusal([...HARNESS, 'capabilities:', '  install:', '    tool: [acme/*]']), [
    'capabilities.install: found {"tool":["acme/*"]}; allowed: nothing under inference.transport: process: pull-artifact and remove-artifact run only on the http agent loop, and the harness owns its tool list',
  ]);
});

/** The manifest's own `${NAME}` syntax, written without a template literal's. */
const sub = (text: string) => `$\{${text}}`;

test('at launch: the key variable must be set, base_url and model substitute as a driver choice’s do', () => {
  assert.deepEqual(refusal([...HARNESS, '    api_key_env: MURMUR_TEST_NO_KEY', `    base_url: ${sub('MURMUR_TEST_NO_URL')}`]), [
    `inference.harness.base_url: found "${sub('MURMUR_TEST_NO_URL')}" (the environment variable MURMUR_TEST_NO_URL is not set and has no default); allowed: variables that are set, or a default: ${sub('MURMUR_TEST_NO_URL:-<default>')}`,
    'inference.harness.api_key_env: found "MURMUR_TEST_NO_KEY" (the variable is not set); allowed: a variable that is set: it holds the provider’s key',
  ]);
  assert.deepEqual(refusal([...HARNESS, '    base_url: ftp://x']), ['inference.harness.base_url: found "ftp://x"; allowed: an http or https URL']);
});

test('a good harness resolves: defaults, substitutions, the key by its variable’s name only', () => {
  const manifest = parseManifest(
    [
      'name: h',
      'version: 0.1.0',
      ...HARNESS.slice(0, 3),
      '    name: codex',
      `    model: ${sub('MODEL:-gpt-5-codex')}`,
      '    api_key_env: KEY',
      '    settings: { model_reasoning_effort: high }',
      '',
    ].join('\n'),
    'murmur.yaml',
  );
  const problems: ConfigProblem[] = [];
  const spec = harnessSpec(manifest, vars({ KEY: 'sk-1' }), problems);
  assert.deepEqual(problems, []);
  assert.deepEqual(spec, {
    name: 'codex',
    model: 'gpt-5-codex',
    baseUrl: 'https://api.openai.com/v1',
    apiKeyEnv: 'KEY',
    keyAs: 'api-key',
    settings: { model_reasoning_effort: 'high' },
    promptSuggestions: false,
    idleTimeoutMs: 600_000,
    binary: null,
  });
});
