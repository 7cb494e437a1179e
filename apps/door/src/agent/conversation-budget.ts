import type { ConversationMessage } from './conversation.js';

/**
 * Characters of text a task's transcript keeps (assistant text and thinking, tool results, user text; images are
 * bounded by the manifest's own limits): 4 Mi characters, far past any provider's context window, so a real model
 * never meets the cut, while a task that streams for hours (the script driver repeats chunks without limit) holds a
 * bounded transcript instead of every character it ever produced.
 * @default 4 Mi characters
 */
export const CONVERSATION_TEXT_BUDGET = 4 * 1024 * 1024;

/** What stands in for an elided text: how much was there and why it is gone. */
export const elidedText = (chars: number, budget: number): string =>
  `[${chars} characters of earlier output elided: a task's conversation keeps the newest ${budget} characters of text]`;

const isElided = (text: string): boolean => text.startsWith('[') && text.includes(' characters of earlier output elided: ');

function messageChars(message: ConversationMessage): number {
  switch (message.role) {
    case 'user':
      return message.content.reduce((n, c) => n + (c.type === 'text' ? c.text.length : 0), 0);
    case 'assistant':
      return message.text.length + message.thinking.reduce((n, t) => n + t.text.length, 0);
    case 'tool':
      return message.results.reduce((n, r) => n + r.content.length, 0);
  }
}

/** Elides one message's texts in place; the characters it gave back. */
function elide(message: ConversationMessage, budget: number): number {
  const before = messageChars(message);
  if (message.role === 'assistant') {
    if (message.text.length > 0 && !isElided(message.text)) message.text = elidedText(message.text.length, budget);
    // Providers accept earlier turns without their thinking (Anthropic strips it); a block is never half kept.
    message.thinking = [];
  } else if (message.role === 'tool') {
    for (const result of message.results) if (!isElided(result.content)) result.content = elidedText(result.content.length, budget);
  } else {
    message.content = message.content.map((c) => (c.type === 'text' && !isElided(c.text) ? { type: 'text', text: elidedText(c.text.length, budget) } : c));
  }
  return before - messageChars(message);
}

/**
 * Keeps the transcript's text within `budget` characters by eliding the oldest messages' texts, never the task's own
 * message (the first) nor the newest two (the last call and its tool results, which the next call answers). Tool
 * calls, their ids and the messages' order stay, so a provider still reads a well-formed transcript. Returns the
 * characters elided (0 when nothing was).
 */
export function keepWithinBudget(messages: ConversationMessage[], budget = CONVERSATION_TEXT_BUDGET): number {
  let total = messages.reduce((n, m) => n + messageChars(m), 0);
  let elided = 0;
  for (let i = 1; i < messages.length - 2 && total > budget; i++) {
    const freed = elide(messages[i], budget);
    total -= freed;
    elided += freed;
  }
  return elided;
}
