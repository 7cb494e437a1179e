/**
 * ListTasks page tokens name a position in the change order and nothing else: base64 of "<change>:<task id>"
 * (seed 000's example token MTI6dHNrXzAxYTE… decodes to "12:tsk_01a1…"). Filters and visibility apply afresh on every page.
 */

export interface PagePosition {
  change: number;
  taskId: string;
}

const POSITION = /^(\d{1,15}):(tsk_[0-9a-f]{32})$/;

export function encodePageToken(position: PagePosition): string {
  return btoa(`${position.change}:${position.taskId}`);
}

export function decodePageToken(token: string): PagePosition | null {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(token) || token.length % 4 !== 0) return null;
  let text: string;
  try {
    text = atob(token);
  } catch {
    return null;
  }
  const m = POSITION.exec(text);
  if (!m) return null;
  return { change: Number(m[1]), taskId: m[2] };
}
