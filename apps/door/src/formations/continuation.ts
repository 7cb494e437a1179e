/**
 * The one user message a task continues with once every member call has ended (seed 004, "How the answer
 * arrives"), word for word: a header per answer, the member's output fenced under member:<name>, then the runtime's
 * own lines outside every fence.
 */
import { fenceUntrusted } from '../auth/untrusted-fence.js';
import type { MemberCallEnding } from '../records/record-statuses.js';

/** How a call ended: the records' list (records/trace-schema.ts), which the member_call record carries. */
export type CallStatus = MemberCallEnding;

export interface EndedCall {
  callId: string;
  member: string;
  status: CallStatus;
  output: string;
  /** What the member reported further down with no answer (metadata.murmur.noAnswerBelow), kept as read. */
  below: { member: string; status: string }[];
}

/** Output is cut at 64 KiB of UTF-8 (docs/formations.md). */
const OUTPUT_CAP_BYTES = 64 * 1024;
const CUT_MARK = '… [cut at 64 KiB]';

export function capOutput(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= OUTPUT_CAP_BYTES) return text;
  // Decoding a cut buffer drops a split character's tail as U+FFFD; trim it so the text ends on a whole character.
  return `${bytes
    .subarray(0, OUTPUT_CAP_BYTES)
    .toString('utf8')
    .replace(/\uFFFD+$/, '')}${CUT_MARK}`;
}

const list = (below: { member: string; status: string }[]) => below.map((b) => `${b.member} (${b.status})`).join(', ');

export interface ContinuationInput {
  /** This round's ended calls, in the order they were made. */
  answers: EndedCall[];
  /** Each member's latest call in this task, across rounds: whether it has no answer, or answered with a gap. */
  latest: EndedCall[];
  /** The formation member that sent this task, or null (the entry member's task). */
  sentBy: string | null;
  /** This round's delegation outcomes, already rendered: they follow every answer (seed 004, "answers first"). */
  outcomes?: string[];
}

export function continuationText({ answers, latest, sentBy, outcomes = [] }: ContinuationInput): string {
  const blocks = answers.map((a) => {
    const header =
      a.status === 'completed'
        ? `[call-member] call ${a.callId} to ${a.member} ended completed:`
        : `[call-member] call ${a.callId} to ${a.member} ended ${a.status}, with no answer from ${a.member}:`;
    return `${header}\n${fenceUntrusted(`member:${a.member}`, capOutput(a.output))}`;
  });
  const lines: string[] = [];
  const missing = latest.filter((c) => c.status !== 'completed');
  if (missing.length > 0) {
    const named = missing.map((c) =>
      c.below.length > 0
        ? `${c.member} (call ${c.callId}, ${c.status}; further down, no answer came from ${list(c.below)})`
        : `${c.member} (call ${c.callId}, ${c.status})`,
    );
    lines.push(
      `[call-member] No answer came from: ${named.join(', ')}. What you asked of them has not been done by them: do not present an answer of your own as theirs.`,
    );
  }
  const gaps = latest.filter((c) => c.status === 'completed' && c.below.length > 0);
  for (const c of gaps) {
    lines.push(
      `[call-member] ${c.member} (call ${c.callId}) answered without an answer from ${list(c.below)}: any part of its answer that stands in for theirs is ${c.member}'s own, not theirs.`,
    );
  }
  const tail =
    sentBy === null
      ? ''
      : ` If you have no answer to give, call end-without-answer with the reason instead: the runtime then tells ${sentBy} plainly that you gave none.`;
  if (latest.length === 0) {
    // No member was ever called from this task: only delegations, whose own line ends the message.
    lines.push('[delegate-task] Every delegation this task made has ended, and the outcomes are above. Answer the task with them now.');
    return [...blocks, ...outcomes, ...lines].join('\n\n');
  }
  lines.push(
    missing.length + gaps.length === 0
      ? '[call-member] Every call this task made has ended, and the answers are above. Answer the task with them now; call a member again only to give it new work.'
      : `[call-member] Every call this task made has ended. Answer the task with the answers you have and say plainly which part has no answer, or call a member again if another attempt could succeed.${tail}`,
  );
  return [...blocks, ...outcomes, ...lines].join('\n\n');
}
