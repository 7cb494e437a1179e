/** The runtime's own words on call-member's results (seed 004, "What a call returns"), verbatim. */

export function startedNote(member: string, callId: string): string {
  return `[call-member] ${member} is now working on call ${callId}. Its answer is not in this result and no tool fetches it: the runtime adds it to this conversation after you end your turn. Unless you still have work to hand to a different member, end your turn now by replying without calling a tool. Calling ${member} again before its answer arrives is refused.`;
}

export function busyNote(member: string, callId: string, deadlineSecs: number): string {
  return `[call-member] ${member} is busy with other work and has not taken call ${callId} yet. The runtime keeps offering it the task for up to ${deadlineSecs}s and adds ${member}'s answer, or word that it stayed busy, to this conversation after you end your turn. Unless you still have work to hand to a different member, end your turn now by replying without calling a tool. Calling ${member} again before then is refused.`;
}

export function endedNote(member: string, callId: string, status: 'rejected' | 'failed', sentBy: string | null): string {
  const base = `[call-member] Call ${callId} to ${member} ended ${status}, with no answer from ${member}. Do not present an answer of your own as ${member}'s.`;
  return sentBy === null
    ? base
    : `${base} If you have no answer to give without ${member}, call end-without-answer with the reason: the runtime then tells ${sentBy} plainly that you gave none.`;
}

/** A door's TASK_STATE_REJECTED answer as one sentence (seed 004). */
export function rejectedOutput(member: string, message: string | null): string {
  if (message === null || message === '') return `${member} did not take the task`;
  if (message === 'task rejected: capsule is busy') return `${member} is busy with other work and did not take the task`;
  return `${member} did not take the task: ${message.replace(/^task rejected: /, '')}`;
}

export function stayedBusyOutput(member: string, deadlineSecs: number, offers: number): string {
  return `${member} stayed busy with other work for the whole ${deadlineSecs}s this call may wait and never took the task; it was offered the task ${offers} times. Nothing was done on it.`;
}

/** The two refusals of a second call to a member whose answer has not been delivered. */
export function notYetAnsweredRefusal(member: string, callId: string): string {
  return `${member} has not yet answered call ${callId} from this task, so nothing was sent. Its answer reaches you only after you end your turn: end your turn now by replying without calling a tool. Once that answer has arrived you may call ${member} again with new work.`;
}

export function alreadyAnsweredRefusal(member: string, callId: string): string {
  return `${member} has already answered call ${callId}, so nothing was sent. The answer reaches you as soon as you end your turn: end your turn now by replying without calling a tool.`;
}
