/**
 * The untrusted fence: text the model must read as data, not instructions, wrapped with the source it came from
 * (`tool:<name>` for a tool's result, as seed 001's artifact examples show; `task:<origin>` for an untrusted task's
 * text). A closing tag inside the body is escaped so nothing in it can end the fence early.
 */
const CLOSE = '</untrusted-content>';

export function fenceUntrusted(source: string, body: string): string {
  const safe = body.replaceAll(CLOSE, '<\\/untrusted-content>');
  return `<untrusted-content source=${source}>\n${safe}${safe.endsWith('\n') ? '' : '\n'}${CLOSE}`;
}

/** A tool result as the model receives it. */
export function fenceToolResult(toolName: string, body: string): string {
  return fenceUntrusted(`tool:${toolName}`, body);
}
