/** How the agent receives a data part: its value pretty-printed in a Markdown fence labelled data (seed 000, "Parts"). */
import type { JsonValue } from './types.js';

const LABEL_UNSAFE = /[\s`=]/g;

function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return longest;
}

export function renderDataPart(value: JsonValue, mediaType?: string, filename?: string): string {
  const body = JSON.stringify(value, null, 2);
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(body) + 1));
  let label = 'data';
  if (mediaType !== undefined) label += ` media-type=${mediaType.replace(LABEL_UNSAFE, '_')}`;
  if (filename !== undefined) label += ` filename=${filename.replace(LABEL_UNSAFE, '_')}`;
  return `${fence}${label}\n${body}\n${fence}`;
}

/** A fence labelled `label` around `text`, one backtick longer than any run inside it and at least three. */
export function renderFence(label: string, text: string): string {
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(text) + 1));
  return `${fence}${label}\n${text}\n${fence}`;
}
