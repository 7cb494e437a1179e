import path from 'node:path';
import type { QuotaWindowFrameFields } from '@murmur/protocol';
import { CodexEventReader, codexQuota } from './codex-events.js';
import { obj } from './harness-events.js';
import { folderEntries, inStoreFolder, inSubfolder, readAt, withStoreFile } from './harness-store.js';
import { type HarnessAdapter, type RunPlan, TOOLS_TOKEN_VARIABLE } from './run-plan.js';
import { tomlKey, tomlValue } from './toml-value.js';

/** Where Codex keeps its state under the harness's home (CODEX_HOME). */
const codexHome = (home: string) => path.join(home, '.codex');
/** Its sessions' logs, from the harness's home. */
const CODEX_SESSIONS = ['.codex', 'sessions'];

/** The most of a session log read at once for its windows, and the longest line of it read. @unit bytes */
const LOG_READ_BYTES = 4 * 1024 * 1024;
const LOG_LINE_BYTES = 1024 * 1024;

/**
 * Codex's `exec --json` (docs/harness.md, "How a task runs"). Codex reads its endpoint from its configuration, not
 * from OPENAI_BASE_URL: the runtime hands it a model provider named `murmur` whose key variable is the manifest's
 * api_key_env, and the runtime's tools as an MCP server over HTTP whose bearer token it reads from the environment.
 * Its own sandbox and approvals are off: it runs in the runtime's.
 */
export function codexAdapter(): HarnessAdapter {
  // How far each session log was read for windows: a run reads only what its turn appended.
  const logOffsets = new Map<string, number>();
  return {
    name: 'codex',
    // Codex refuses a CODEX_HOME that does not exist.
    homeFolders: ['.codex'],
    args(plan: RunPlan): string[] {
      const { spec } = plan;
      const provider = { name: 'murmur', base_url: spec.baseUrl, wire_api: 'responses', ...(spec.apiKeyEnv === null ? {} : { env_key: spec.apiKeyEnv }) };
      // required: Codex starts its first turn only once the runtime's tools are listed (a turn that began before the
      // tool server answered offered the model no runtime tool, and a call to one was refused "unsupported call"),
      // and a tool server that cannot start fails the run instead of leaving the capsule without its tools.
      const tools = {
        url: plan.toolServerUrl,
        bearer_token_env_var: TOOLS_TOKEN_VARIABLE,
        tool_timeout_sec: plan.toolTimeoutSecs,
        startup_timeout_sec: 30,
        required: true,
      };
      const overrides = [
        'model_provider="murmur"',
        `model_providers.murmur=${tomlValue(provider)}`,
        `mcp_servers.murmur=${tomlValue(tools)}`,
        `developer_instructions=${tomlValue(plan.systemPrompt)}`,
        // Nothing to report home and nothing to update: in the sandbox those hosts do not resolve, and a lookup that
        // waits out its resolver's timeout held every run 5 s at its exit (the operator's settings may turn them on).
        'otel.exporter="none"',
        'otel.trace_exporter="none"',
        'otel.metrics_exporter="none"',
        'analytics.enabled=false',
        'check_for_update_on_startup=false',
        ...Object.entries(spec.settings).map(([key, value]) => `${tomlKey(key)}=${tomlValue(value)}`),
      ];
      return [
        'exec',
        '--json',
        '--skip-git-repo-check',
        '--dangerously-bypass-approvals-and-sandbox',
        '-C',
        plan.workDir,
        '-m',
        spec.model,
        ...overrides.flatMap((o) => ['-c', o]),
        ...(plan.mode.kind === 'resume' ? ['resume', plan.mode.id] : []),
        '-',
      ];
    },
    env(plan: RunPlan, home: string, key: string | null): Record<string, string> {
      return { HOME: home, CODEX_HOME: codexHome(home), ...(key === null || plan.spec.apiKeyEnv === null ? {} : { [plan.spec.apiKeyEnv]: key }) };
    },
    newSessionId: () => null,
    reader: () => new CodexEventReader(),
    sessionStored: (home, id) => sessionLog(home, id) !== null,
    resumeRefused: (stderr) => /no rollout found/i.test(stderr),
    quotaSince(home: string, sessionId: string): QuotaWindowFrameFields[] {
      const log = sessionLog(home, sessionId);
      if (log === null) return [];
      const key = [...log.folders, log.name].join('/');
      const read = inStoreFolder(home, log.folders, (folder) => withStoreFile(folder, log.name, (fd, size) => readFrom(fd, size, logOffsets.get(key) ?? 0)));
      if (!read) return [];
      const { text, end } = read;
      logOffsets.set(key, end);
      let windows: QuotaWindowFrameFields[] = [];
      for (const line of text.split('\n')) {
        if (line.length > LOG_LINE_BYTES || !line.includes('"rate_limits"')) continue;
        let parsed: unknown;
        try {
          parsed = JSON.parse(line);
        } catch {
          continue;
        }
        const payload = obj(obj(parsed)?.payload);
        if (payload?.type === 'token_count') {
          const found = codexQuota(obj(payload.rate_limits));
          if (found.length > 0) windows = found;
        }
      }
      return windows;
    },
  };
}

/**
 * The session's log, `sessions/<y>/<m>/<d>/rollout-<time>-<id>.jsonl` under CODEX_HOME: the folders from the home and
 * the file's name, or null. Found in the store as the sandbox left it (harness-store.ts): folders and a file that are
 * links, and entries past a folder's first STORE_FOLDER_ENTRIES, are not looked at.
 */
function sessionLog(home: string, id: string): { folders: string[]; name: string } | null {
  const suffix = `-${id}.jsonl`;
  const walk = (folder: number, below: string[]): { folders: string[]; name: string } | null => {
    for (const entry of folderEntries(folder)) {
      if (below.length === 3) {
        if (entry.isFile() && entry.name.startsWith('rollout-') && entry.name.endsWith(suffix)) return { folders: below, name: entry.name };
        continue;
      }
      if (!entry.isDirectory()) continue;
      const found = inSubfolder(folder, entry.name, (sub) => walk(sub, [...below, entry.name]));
      if (found) return found;
    }
    return null;
  };
  const found = inStoreFolder(home, CODEX_SESSIONS, (sessions) => walk(sessions, []));
  return found ? { folders: [...CODEX_SESSIONS, ...found.folders], name: found.name } : null;
}

/** The whole lines of an open log appended since `from`, at most LOG_READ_BYTES of them, and where the next read starts. */
function readFrom(fd: number, size: number, from: number): { text: string; end: number } {
  // A log that shrank was replaced: read it from its start.
  const start = size < from ? 0 : Math.max(from, size - LOG_READ_BYTES);
  const length = size - start;
  if (length <= 0) return { text: '', end: start };
  const buffer = readAt(fd, start, length);
  const lastNewline = buffer.lastIndexOf(0x0a);
  if (lastNewline === -1) return { text: '', end: start };
  return { text: buffer.subarray(0, lastNewline).toString('utf8'), end: start + lastNewline + 1 };
}
