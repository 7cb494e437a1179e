import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { type LoadedManifest, loadManifest, ManifestError } from '../manifest/manifest.loader.js';
import { rosterSchema } from './roster.schema.js';

/** A roster that cannot be launched: the message names the file, the key path and the rule. Exits 2. */
export class RosterError extends Error {
  override readonly name = 'RosterError';
}

export interface RosterMember {
  readonly name: string;
  readonly loaded: LoadedManifest;
  /** The members this one may call, in roster order. */
  readonly callees: readonly string[];
  /** The members that may call this one, in roster order. */
  readonly callers: readonly string[];
}

export interface Roster {
  readonly file: string;
  /** roster.yaml's folder: capsule paths and task.md are read from here. */
  readonly dir: string;
  readonly name: string;
  readonly entry: string;
  readonly deadline: string | null;
  /** In roster order. */
  readonly members: readonly RosterMember[];
}

/**
 * Loads roster.yaml and every member's manifest, and refuses a formation that could not work (docs/formations.md):
 * an unknown member, a self-call, a caller without an agent loop, a callee that refuses peer tasks or starts none,
 * and a cycle. Nothing starts until this returns.
 */
export function loadRoster(file: string): Roster {
  const full = path.resolve(file);
  if (!existsSync(full)) throw new RosterError(`${full}: no such roster file`);
  const doc = parseDocument(readFileSync(full, 'utf8'), { uniqueKeys: true });
  if (doc.errors.length > 0) throw new RosterError(`${full}: not valid YAML: ${doc.errors[0].message}`);
  const parsed = rosterSchema.safeParse(doc.toJS());
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue.path.length > 0 ? issue.path.join('.') : '(top level)';
    const message = issue.code === 'unrecognized_keys' ? `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `'${k}'`).join(', ')}` : issue.message;
    throw new RosterError(`${full}: ${where}: ${message}`);
  }
  const roster = parsed.data;
  const fail = (where: string, message: string): never => {
    throw new RosterError(`${full}: ${where}: ${message}`);
  };
  const names = Object.keys(roster.members);
  const known = (name: string, where: string) => {
    if (!names.includes(name)) fail(where, `'${name}' is not a member; the members are ${names.join(', ')}`);
  };
  known(roster.entry, 'entry');
  const calls = new Map<string, Set<string>>(names.map((n) => [n, new Set<string>()]));
  roster.rules.forEach((rule, r) => {
    known(rule.from, `rules.${r}.from`);
    rule.to.forEach((to, t) => {
      known(to, `rules.${r}.to.${t}`);
      if (to === rule.from) fail(`rules.${r}.to.${t}`, `${to} may not call itself`);
      if (calls.get(rule.from)!.has(to)) fail(`rules.${r}.to.${t}`, `${to} is named twice for ${rule.from}`);
      calls.get(rule.from)!.add(to);
    });
  });
  const dir = path.dirname(full);
  const loaded = new Map<string, LoadedManifest>();
  for (const name of names) {
    try {
      loaded.set(name, loadManifest(path.resolve(dir, roster.members[name].capsule)));
    } catch (error) {
      if (error instanceof ManifestError) fail(`members.${name}`, error.message);
      throw error;
    }
  }
  for (const [from, tos] of calls) {
    if (tos.size === 0) continue;
    if (!loaded.get(from)!.manifest.inference) fail(`members.${from}`, `${from} calls other members, so it needs an inference: block (call-member is an agent tool)`);
    for (const to of tos) {
      const manifest = loaded.get(to)!.manifest;
      if (!(manifest.exports.peer_tasks?.accept ?? false)) {
        fail(`members.${to}`, `${to} is called by ${from} but does not accept peer tasks: every call would be answered 403 peer_not_accepted; set exports.peer_tasks.accept: true in its murmur.yaml`);
      }
      if (manifest.lifecycle.task_acceptance === 'none') fail(`members.${to}`, `${to} is called by ${from} but starts no task (task_acceptance: none)`);
    }
  }
  const cycle = findCycle(names, calls);
  if (cycle) fail('rules', `the rules form a cycle (${cycle.join(' → ')}); a formation's calls must flow one way`);
  const inOrder = (set: Set<string>) => names.filter((n) => set.has(n));
  return {
    file: full,
    dir,
    name: roster.name,
    entry: roster.entry,
    deadline: roster.deadline ?? null,
    members: names.map((name) => ({
      name,
      loaded: loaded.get(name)!,
      callees: inOrder(calls.get(name)!),
      callers: names.filter((n) => calls.get(n)!.has(name)),
    })),
  };
}

/** The first cycle found by depth-first search, as the path that closes it, or null. */
function findCycle(names: readonly string[], calls: ReadonlyMap<string, ReadonlySet<string>>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (name: string): string[] | null => {
    if (state.get(name) === 'done') return null;
    if (state.get(name) === 'open') return [...stack.slice(stack.indexOf(name)), name];
    state.set(name, 'open');
    stack.push(name);
    for (const next of names.filter((n) => calls.get(name)!.has(n))) {
      const found = visit(next);
      if (found) return found;
    }
    stack.pop();
    state.set(name, 'done');
    return null;
  };
  for (const name of names) {
    const found = visit(name);
    if (found) return found;
  }
  return null;
}

/** Callers before their callees: the order a formation stops in, so no member is called after its callee stopped. */
export function callersFirst(roster: Roster): string[] {
  const order: string[] = [];
  const placed = new Set<string>();
  const place = (member: RosterMember) => {
    if (placed.has(member.name)) return;
    for (const caller of member.callers) place(roster.members.find((m) => m.name === caller)!);
    placed.add(member.name);
    order.push(member.name);
  };
  for (const member of roster.members) place(member);
  return order;
}
