import { type ChildProcess, fork } from 'node:child_process';
import { type ChildToParent, type DelegateOrder, isChildMessage } from './delegation-messages.js';

/** The built `mur` entry a sub-capsule runs as (`mur run <capsule> --delegation`): a file this layer forks, never imports. */
const MUR_MAIN = new URL('../cli/main.js', import.meta.url);
/** How long a sub-capsule may take to announce its door, and to take its task. */
const CHILD_START_MS = 30_000;

export interface LaunchedChild {
  child: ChildProcess;
  sessionId: string;
  version: string;
  taskId: string;
}

function next<K extends ChildToParent['kind']>(child: ChildProcess, kind: K): Promise<Extract<ChildToParent, { kind: K }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`the sub-capsule did not answer within ${CHILD_START_MS / 1000} s`)), CHILD_START_MS);
    const onMessage = (message: unknown) => {
      if (!isChildMessage(message)) return;
      if (message.kind === 'failed') done(new Error(message.message));
      else if (message.kind === kind) done(null, message as Extract<ChildToParent, { kind: K }>);
    };
    const onExit = (code: number | null) => done(new Error(`the sub-capsule exited${code === null ? '' : ` ${code}`} before it held the task`));
    const done = (error: Error | null, value?: Extract<ChildToParent, { kind: K }>) => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      if (error) reject(error);
      else resolve(value!);
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/**
 * Launches a sub-capsule with the member machinery (docs/formations.md, "Delegation"): a forked `mur run` with an IPC
 * channel, its records in `recordsDir`, and resolves once its door holds the task. `stderr` receives its lines.
 */
export async function launchChild(opts: {
  capsuleDir: string;
  recordsDir: string;
  deadline: string | null;
  order: Omit<DelegateOrder, 'kind'>;
  stderr: (line: string) => void;
}): Promise<LaunchedChild> {
  const args = ['run', opts.capsuleDir, '--delegation', '--records', opts.recordsDir, ...(opts.deadline === null ? [] : ['--deadline', opts.deadline])];
  const child = fork(MUR_MAIN, args, { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  child.stderr!.on('data', (chunk: Buffer) => {
    for (const line of chunk
      .toString()
      .split('\n')
      .filter((l) => l !== ''))
      opts.stderr(line);
  });
  try {
    const announced = await next(child, 'announced');
    const launched = next(child, 'launched');
    child.send({ kind: 'delegate', ...opts.order } satisfies DelegateOrder);
    const { taskId } = await launched;
    return { child, sessionId: announced.sessionId, version: announced.version, taskId };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}
