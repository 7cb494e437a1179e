import { existsSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, type ConfigProblem, shown } from '../config/config-problem.js';
import type { Variables } from '../config/settings.js';
import { readYamlConfig } from '../config/yaml-config.js';
import { type LoadedManifest, loadManifest, ManifestError } from '../manifest/manifest.loader.js';
import { rosterSchema } from './roster.schema.js';

/** A roster that cannot be launched: the message names the file, then each bad key's path, value and what is allowed. Exits 2. */
class RosterError extends ConfigError {
  override readonly name = 'RosterError';
}

interface RosterMember {
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
 * and a cycle. Each step reports every problem it finds; nothing starts until this returns.
 */
export function loadRoster(file: string, vars: Variables): Roster {
  const full = path.resolve(file);
  if (!existsSync(full)) throw new RosterError(full, 'no such roster file');
  const roster = readYamlConfig(full, rosterSchema, RosterError);
  const refuse = (problems: ConfigProblem[]) => {
    if (problems.length > 0) throw new RosterError(full, problems);
  };
  const names = Object.keys(roster.members);
  const members = `a member: ${names.join(', ')}`;
  const problems: ConfigProblem[] = [];
  const known = (name: string, where: string) => {
    const ok = names.includes(name);
    if (!ok) problems.push({ path: where, found: shown(name), allowed: members });
    return ok;
  };
  known(roster.entry, 'entry');
  const calls = new Map<string, Set<string>>(names.map((n) => [n, new Set<string>()]));
  roster.rules.forEach((rule, r) => {
    const from = known(rule.from, `rules[${r}].from`);
    rule.to.forEach((to, t) => {
      const where = `rules[${r}].to[${t}]`;
      if (!known(to, where) || !from) return;
      if (to === rule.from)
        problems.push({ path: where, found: `${shown(to)} (the rule's own from)`, allowed: 'another member: a member may not call itself' });
      else if (calls.get(rule.from)!.has(to))
        problems.push({ path: where, found: `${shown(to)} (named before for ${rule.from})`, allowed: 'each callee once for a caller' });
      else calls.get(rule.from)!.add(to);
    });
  });
  refuse(problems);
  const dir = path.dirname(full);
  const capsuleOf = (name: string) => roster.members[name].capsule;
  const loaded = new Map<string, LoadedManifest>();
  for (const name of names) {
    try {
      loaded.set(name, loadManifest(path.resolve(dir, capsuleOf(name)), vars));
    } catch (error) {
      if (!(error instanceof ManifestError)) throw error;
      problems.push({
        path: `members.${name}.capsule`,
        found: `${shown(capsuleOf(name))} (its murmur.yaml is refused, below)`,
        allowed: 'a capsule folder whose murmur.yaml loads',
        detail: error.message,
      });
    }
  }
  refuse(problems);
  for (const [from, tos] of calls) {
    if (tos.size === 0) continue;
    if (!loaded.get(from)!.manifest.inference) {
      problems.push({
        path: `members.${from}.capsule`,
        found: `${shown(capsuleOf(from))} (its murmur.yaml has no inference: block)`,
        allowed: `a capsule with an inference: block: ${from} calls other members, and call-member is an agent tool`,
      });
    }
    for (const to of tos) {
      const manifest = loaded.get(to)!.manifest;
      if (!(manifest.exports.peer_tasks?.accept ?? false)) {
        problems.push({
          path: `members.${to}.capsule`,
          found: `${shown(capsuleOf(to))} (its murmur.yaml does not accept peer tasks)`,
          allowed: `a capsule with exports.peer_tasks.accept: true: ${from} calls ${to}, and every call would be answered 403 peer_not_accepted`,
        });
      }
      if (manifest.lifecycle.task_acceptance === 'none') {
        problems.push({
          path: `members.${to}.capsule`,
          found: `${shown(capsuleOf(to))} (its task_acceptance is none: it starts no task)`,
          allowed: `a capsule that starts tasks: ${from} calls ${to}`,
        });
      }
    }
  }
  refuse(problems);
  const cycle = findCycle(names, calls);
  if (cycle)
    refuse([{ path: 'rules', found: `a cycle: ${cycle.join(' → ')}`, allowed: "rules whose calls flow one way: a formation's calls must not come back" }]);
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
