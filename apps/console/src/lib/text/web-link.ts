/**
 * A part's URL as a link target, or null when it should be shown and not linked: only an absolute http or https URL is
 * linked. A part's URL is a caller's or a peer's text (a message's file part, a member's artifact): a `javascript:`
 * or `data:` URL followed from the console would run in its origin, where the operator's tokens are.
 */
export function webLink(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : null;
}
