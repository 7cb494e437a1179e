/** A tool result as the model receives it: inside the untrusted fence naming its source (seed 001, artifact examples). */
export function fenceToolResult(toolName: string, body: string): string {
  return `<untrusted-content source=tool:${toolName}>\n${body}</untrusted-content>`;
}
