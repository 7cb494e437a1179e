/**
 * ListTasks page tokens name a position in the change order and nothing else: base64 of
 * "<change>:<task id>:<seal>" (seed 000's example token MTI6dHNrXzAxYTE… decodes to "12:tsk_01a1…", and a token
 * here begins the same way). The seal is the door's MAC of the position under a key only that session holds, so a
 * token the door never issued — forged, altered, or another session's — is refused -32602 (seed 000, "ListTasks":
 * "Anything else"). Filters and visibility apply afresh on every page, so a token stays transferable between the
 * callers of one session.
 */

export interface PagePosition {
  change: number;
  taskId: string;
}

/** A position as a token carries it: the seal is checked by the door that issued it. */
export interface SealedPagePosition extends PagePosition {
  seal: string;
}

const POSITION = /^(\d{1,15}):(tsk_[0-9a-f]{32}):([A-Za-z0-9_-]{22})$/;

/** The text a door seals: the position as the token spells it. */
export function pagePositionText(position: PagePosition): string {
  return `${position.change}:${position.taskId}`;
}

export function encodePageToken(position: SealedPagePosition): string {
  return btoa(`${pagePositionText(position)}:${position.seal}`);
}

/** The position a well-formed token names, or null. Whether the door issued it is for the door to check. */
export function decodePageToken(token: string): SealedPagePosition | null {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(token) || token.length % 4 !== 0) return null;
  let text: string;
  try {
    text = atob(token);
  } catch {
    return null;
  }
  const [, change, taskId, seal] = POSITION.exec(text) ?? [];
  if (change === undefined || taskId === undefined || seal === undefined) return null;
  return { change: Number(change), taskId, seal };
}
