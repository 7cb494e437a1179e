import { TASK_ORIGIN_HEADER } from './uris.js';

/**
 * The values of every line of one header, in arrival order, from Node's raw header list ([name, value, …]). Node
 * joins repeated unknown headers into one string in `headers`; the raw list keeps each line, which matters for
 * A2A-Version (more than one line is refused) and Authorization (more than one is invalid_token).
 */
export function headerLines(rawHeaders: readonly string[], name: string): string[] {
  const wanted = name.toLowerCase();
  const lines: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const [key, value] = [rawHeaders[i], rawHeaders[i + 1]];
    if (key !== undefined && value !== undefined && key.toLowerCase() === wanted) lines.push(value);
  }
  return lines;
}

/**
 * Every value of x-murmur-task-origin, lower-cased: repeated lines and comma-separated values read the same
 * (RFC 9110 §5.3), so `completion, a2a` names a completion exactly as two lines would, and `peer, peer` is peer.
 */
export function taskOrigins(rawHeaders: readonly string[]): string[] {
  return headerLines(rawHeaders, TASK_ORIGIN_HEADER)
    .flatMap((line) => line.split(','))
    .map((value) => value.trim().toLowerCase())
    .filter((value) => value !== '');
}
