/** Identifier prefixes (DESIGN "Identifiers"): a prefix, then a UUIDv7 as 32 lowercase hex digits. */
export const ID_PREFIX = {
  session: 'ses_',
  task: 'tsk_',
  context: 'ctx_',
  message: 'msg_',
  work: 'wrk_',
  delegation: 'dlg_',
  memberCall: 'mcl_',
  handle: 'hdl_',
  /** The id the records carry for a control token (docs/control.md), never the token. */
  controlToken: 'ctk_',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

export function isId(kind: IdKind, value: string): boolean {
  return value.startsWith(ID_PREFIX[kind]) && /^[0-9a-f]{32}$/.test(value.slice(ID_PREFIX[kind].length));
}

/** The messageId of a task's status message: msg_<task id>_status (seed 000, GetTask example). */
export const statusMessageId = (taskId: string): string => `msg_${taskId}_status`;
