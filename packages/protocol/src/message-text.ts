/**
 * The text of a message or artifact, read the one way every package reads it. Seed 000 ("Messages"): "The agent
 * reads the parts in order, joined by a newline". Only text parts carry text; data, file and url parts are skipped.
 */
import type { Part } from './types.js';

/** What joins the text parts. */
export const MESSAGE_TEXT_JOINER = '\n';

/** The text parts of `parts`, in order, joined by MESSAGE_TEXT_JOINER; '' when there are none. */
export function partsText(parts: readonly Part[] | undefined | null): string {
  if (!parts) return '';
  const texts: string[] = [];
  for (const part of parts) if (typeof part.text === 'string') texts.push(part.text);
  return texts.join(MESSAGE_TEXT_JOINER);
}

/** The text of a message (a status message, a user message), '' when it has none or is absent. */
export function messageText(message: { parts: readonly Part[] } | undefined | null): string {
  return partsText(message?.parts);
}
