import type { SessionContext } from '../session/session-context.js';
import type { TraceWriter } from '../records/trace-writer.js';
import type { TaskQueue } from '../tasks/task-queue.js';
import type { BackgroundCommand, BackgroundCommands } from '../tools/background-commands.js';
import { describeBackgroundCommand } from '../tools/runtime/background-command.js';

/** The first line of a detached command's result task; the background-command text follows it. */
const COMMAND_RESULT_HEADING = 'A shell command that moved to the background has finished.';

/**
 * A detached command's result (seed 000, "Who sees a task"; seed 004, background-command): under
 * task_acceptance: queue with after_task: sleep, a background command that exits arrives as a task of the session,
 * unless a background-command call already returned its exit. Elsewhere it is only recorded.
 */
export class CommandCompletions {
  constructor(deps: { session: SessionContext; background: BackgroundCommands; queue: TaskQueue; trace: TraceWriter }) {
    const { lifecycle } = deps.session.manifest;
    const delivers = lifecycle.task_acceptance === 'queue' && lifecycle.after_task === 'sleep';
    deps.background.on('exited', (command: BackgroundCommand) => {
      if (!delivers || command.exitReported || deps.queue.isClosing) return;
      command.exitReported = true;
      void deps.queue
        .submitSessionTask(`${COMMAND_RESULT_HEADING}\n\n${describeBackgroundCommand(command, null)}${command.limit === null ? '' : `\n${command.limit}`}`)
        .then((row) => deps.trace.write('command_result_task', { task_id: row.id, work_id: command.workId, state: row.state }))
        .catch(() => undefined);
    });
  }
}
