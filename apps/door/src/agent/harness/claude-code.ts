import { randomUUID } from 'node:crypto';
import { ClaudeCodeEventReader } from './claude-code-events.js';
import { folderEntries, inStoreFolder, inSubfolder, isStoreFile } from './harness-store.js';
import { type HarnessAdapter, type RunPlan, TOOLS_TOKEN_VARIABLE } from './run-plan.js';

/** The variable Claude Code reads the provider's key from, by inference.harness.key_as (docs/harness.md). */
const KEY_VARIABLE = { 'api-key': 'ANTHROPIC_API_KEY', 'auth-token': 'ANTHROPIC_AUTH_TOKEN', 'oauth-token': 'CLAUDE_CODE_OAUTH_TOKEN' } as const;

/**
 * Claude Code in its print mode (`-p`) with stream-json output (docs/harness.md, "How a task runs"): the session id
 * is the runtime's own for a new session (`--session-id`), `--max-turns` what is left of the task's, the runtime's
 * tools one MCP server over HTTP whose token is read from the environment, its own permission prompts off (it runs in
 * the runtime's sandbox).
 */
export const claudeCode: HarnessAdapter = {
  name: 'claude-code',
  homeFolders: [],
  args(plan: RunPlan): string[] {
    const { spec } = plan;
    const mcp = { mcpServers: { murmur: { type: 'http', url: plan.toolServerUrl, headers: { Authorization: `Bearer \${${TOOLS_TOKEN_VARIABLE}}` } } } };
    return [
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--include-partial-messages',
      '--model',
      spec.model,
      ...(plan.mode.kind === 'resume' ? ['--resume', plan.mode.id] : plan.mode.id === null ? [] : ['--session-id', plan.mode.id]),
      '--max-turns',
      String(plan.turnsLeft),
      '--permission-mode',
      'bypassPermissions',
      '--strict-mcp-config',
      '--mcp-config',
      JSON.stringify(mcp),
      '--append-system-prompt',
      plan.systemPrompt,
      ...(Object.keys(spec.settings).length > 0 ? ['--settings', JSON.stringify(spec.settings)] : []),
      ...(spec.promptSuggestions ? ['--prompt-suggestions'] : []),
    ];
  },
  env(plan: RunPlan, home: string, key: string | null): Record<string, string> {
    return {
      HOME: home,
      SHELL: '/bin/bash',
      ANTHROPIC_BASE_URL: plan.spec.baseUrl,
      ...(key === null ? {} : { [KEY_VARIABLE[plan.spec.keyAs]]: key }),
      // It runs in the runtime's sandbox (the name it reads for that), with nothing to update and no one to report to.
      IS_SANDBOX: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      MCP_TOOL_TIMEOUT: String(plan.toolTimeoutSecs * 1000),
      ...(plan.spec.promptSuggestions ? { CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION: '1' } : {}),
    };
  },
  newSessionId: () => randomUUID(),
  reader: () => new ClaudeCodeEventReader(),
  // Its projects' folders under the harness's home, read as the sandbox left them (harness-store.ts): no link followed.
  sessionStored: (home: string, id: string): boolean =>
    inStoreFolder(home, ['.claude', 'projects'], (projects) =>
      folderEntries(projects).some(
        (entry) => entry.isDirectory() && inSubfolder(projects, entry.name, (folder) => isStoreFile(folder, `${id}.jsonl`)) === true,
      ),
    ) === true,
  resumeRefused: (stderr) => /No conversation found/i.test(stderr),
};
