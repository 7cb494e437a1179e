/**
 * What a command prints is data (docs/sandbox.md, "Output is data"): where a person reads it — a terminal through
 * `mur`, the console, a log — the characters a terminal or a page acts on instead of showing are written out as
 * escapes: the C0 controls but tab and newline (ESC starts every terminal sequence: a screen clear, a clipboard write,
 * a title), a carriage return not followed by a newline (it returns over what was printed), DEL, the C1 controls (8-bit
 * CSI and OSC), and the bidirectional formatting controls (they reorder what is shown). The text keeps its length
 * order and meaning; JSON reads the escapes back as the same characters.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters it finds
const ACTED_ON = /[\u0000-\u0008\u000b-\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/g;

export function escapeControlCharacters(text: string): string {
  return text.replace(ACTED_ON, (c) => (c === '\r' ? '\\r' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
}
