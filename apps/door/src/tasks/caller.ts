/**
 * Who is asking, for the rule "Who sees a task" (seed 000): a public door's callers and the operator see every
 * task; a declared credential (and a formation member) sees the tasks its own requests started.
 */
export type Caller = { readonly sees: 'all'; readonly principal: string } | { readonly sees: 'own'; readonly principal: string };

export const PUBLIC_CALLER: Caller = { sees: 'all', principal: 'public' };
export const SESSION_PRINCIPAL = 'session';
