import assert from 'node:assert/strict';
import { test } from 'node:test';
import { codexAdapter } from './codex.js';
import type { RunPlan } from './run-plan.js';

const plan: RunPlan = {
  spec: {
    name: 'codex',
    model: 'gpt-test',
    baseUrl: 'http://127.0.0.1:9/v1',
    apiKeyEnv: 'OPENAI_API_KEY',
    keyAs: 'api-key',
    settings: {},
    promptSuggestions: false,
    idleTimeoutMs: 60_000,
    binary: null,
  },
  mode: { kind: 'new', id: null },
  turnsLeft: 4,
  systemPrompt: 'be brief',
  workDir: '/work',
  toolServerUrl: 'http://127.0.0.1:7/mcp',
  toolTimeoutSecs: 120,
};

test('the runtime’s tool server is required: Codex lists its tools before the first turn, and a server that cannot start fails the run', () => {
  const args = codexAdapter().args(plan);
  const server = args.find((a) => a.startsWith('mcp_servers.murmur='));
  assert.equal(
    server,
    'mcp_servers.murmur={url = "http://127.0.0.1:7/mcp", bearer_token_env_var = "MURMUR_TOOLS_TOKEN", tool_timeout_sec = 120, startup_timeout_sec = 30, required = true}',
  );
  assert.equal(args[args.indexOf(server!) - 1], '-c');
});
