/** A capsule whose driver choices point at the fake providers (docs/drivers.md), and the keys the tests hand the door. */
import { after, before } from 'node:test';
import { FakeProvider } from './fake-providers/fake-provider.js';

export const OPENAI_KEY = 'sk-fake-openai-Z3cr3tK3yValue0001';
export const ANTHROPIC_KEY = 'sk-ant-fake-Z3cr3tK3yValue0002';

/** The door reads keys from its environment: runDoor passes the test process's environment on. */
export function exportKeys(): void {
  process.env.MURMUR_TEST_OPENAI_KEY = OPENAI_KEY;
  process.env.MURMUR_TEST_ANTHROPIC_KEY = ANTHROPIC_KEY;
  delete process.env.MURMUR_TEST_UNSET_KEY;
}

export function driverManifest(opts: { start: string; openai: FakeProvider; anthropic: FakeProvider; name?: string; extra?: string }): string {
  return `name: ${opts.name ?? 'drivers'}
version: 0.1.0
lifecycle:
  task_acceptance: queue
inference:
  driver: ${opts.start}
  max_turns: 8
  choices:
    fast:
      driver: openai-compatible
      base_url: ${opts.openai.baseUrl}
      model: fake-gpt
      api_key_env: MURMUR_TEST_OPENAI_KEY
      max_output_tokens: 2000
      context_window: 32000
      idle_timeout_secs: 1
    deep:
      driver: anthropic
      base_url: ${opts.anthropic.baseUrl}
      model: claude-fake
      api_key_env: MURMUR_TEST_ANTHROPIC_KEY
      max_output_tokens: 4096
      thinking_budget_tokens: 1024
      idle_timeout_secs: 1
    nokey:
      driver: openai-compatible
      base_url: ${opts.openai.baseUrl}
      model: fake-gpt
      api_key_env: MURMUR_TEST_UNSET_KEY
capabilities:
  shell:
    allow: [bash]
control:
  agent_settings: [inference.driver]
${opts.extra ?? ''}`;
}

/**
 * Both fake providers, each expecting its test key (exported here), started before the tests of the file or describe
 * block that calls this and closed after them. `contextLimitTokens`: the models' context (FakeProvider).
 */
export function fakeProviderPair(options: { contextLimitTokens?: number } = {}): { openai: FakeProvider; anthropic: FakeProvider } {
  exportKeys();
  const fakes = {
    openai: new FakeProvider('openai', { expectKey: OPENAI_KEY, ...options }),
    anthropic: new FakeProvider('anthropic', { expectKey: ANTHROPIC_KEY, ...options }),
  };
  before(async () => {
    await fakes.openai.start();
    await fakes.anthropic.start();
  });
  after(async () => {
    await fakes.openai.close();
    await fakes.anthropic.close();
  });
  return fakes;
}
