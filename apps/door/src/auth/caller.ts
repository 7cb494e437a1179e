/**
 * Who is asking, for the rule "Who sees a task" (seed 000): a public door's callers and the operator see every
 * task; a declared credential, and a formation member (`member:<caller>`), sees the tasks its own requests started.
 * `scopes` are the door methods (and `resources/files`, `resources/records`) the caller's token reaches.
 */
export interface Caller {
  readonly principal: string;
  readonly sees: 'all' | 'own';
  readonly scopes: ReadonlySet<string> | 'all';
}

export const PUBLIC_CALLER: Caller = { principal: 'public', sees: 'all', scopes: 'all' };
export const OPERATOR_PRINCIPAL = 'operator';
/** The owner of the tasks the runtime starts itself (the launch's own task). */
const SESSION_PRINCIPAL = 'session';
export const SESSION_CALLER: Caller = { principal: SESSION_PRINCIPAL, sees: 'all', scopes: 'all' };

export function reaches(caller: Caller, scope: string): boolean {
  return caller.scopes === 'all' || caller.scopes.has(scope);
}
