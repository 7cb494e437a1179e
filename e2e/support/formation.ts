/**
 * Test formations (docs/formations.md): a temporary folder with roster.yaml and one script capsule per member,
 * launched with `murmur.startFormation(roster)` (`mur run --roster … --json`). YAML is a superset of JSON.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ScriptTurn } from './capsules.js';

interface MemberSpec {
  /** @default 'single' */
  acceptance?: 'single' | 'queue';
  /** Called by another member: accepts peer tasks. */
  callee?: boolean;
  /** The turns of its script's default rule. */
  turns: ScriptTurn[];
  /** Shell binaries it may run. @default none */
  shell?: string[];
  /** Sub-capsules it may delegate to (delegate-task), by bare name: each one's turns, written beside the members. */
  spawn?: Record<string, ScriptTurn[]>;
}

export interface FormationSpec {
  name: string;
  entry: string;
  /** In roster order. */
  members: Record<string, MemberSpec>;
  rules: { from: string; to: string[] }[];
}

export interface FormationFolder {
  roster: string;
  remove(): void;
}

export function makeFormation(spec: FormationSpec): FormationFolder {
  const dir = mkdtempSync(path.join(os.tmpdir(), `murmur-e2e-formation-${spec.name}-`));
  const members: Record<string, { capsule: string }> = {};
  for (const [name, member] of Object.entries(spec.members)) {
    mkdirSync(path.join(dir, name));
    members[name] = { capsule: `./${name}` };
    const calls = spec.rules.some((r) => r.from === name);
    const manifest = {
      name,
      version: '0.1.0',
      lifecycle: { task_acceptance: member.acceptance ?? 'single', ...(calls ? { delegation_deadline_secs: 60 } : {}) },
      inference: { driver: 'script', script: 'script.yaml', max_turns: 6 },
      capabilities: {
        ...(member.shell ? { shell: { allow: member.shell } } : {}),
        ...(calls ? { network: { allow: ['localhost'] } } : {}),
        ...(member.spawn ? { spawn: { allow: Object.keys(member.spawn).map((sub) => `../${sub}`) } } : {}),
      },
      ...(member.callee ? { exports: { peer_tasks: { accept: true } } } : {}),
    };
    writeFileSync(path.join(dir, name, 'murmur.yaml'), `${JSON.stringify(manifest, null, 2)}\n`);
    writeFileSync(path.join(dir, name, 'script.yaml'), `${JSON.stringify({ default: { turns: member.turns } }, null, 2)}\n`);
    for (const [sub, turns] of Object.entries(member.spawn ?? {})) {
      mkdirSync(path.join(dir, sub));
      const subManifest = {
        name: sub,
        version: '0.1.0',
        lifecycle: { task_acceptance: 'single' },
        inference: { driver: 'script', script: 'script.yaml', max_turns: 4 },
      };
      writeFileSync(path.join(dir, sub, 'murmur.yaml'), `${JSON.stringify(subManifest, null, 2)}\n`);
      writeFileSync(path.join(dir, sub, 'script.yaml'), `${JSON.stringify({ default: { turns } }, null, 2)}\n`);
    }
  }
  const roster = { name: spec.name, entry: spec.entry, members, rules: spec.rules };
  writeFileSync(path.join(dir, 'roster.yaml'), `${JSON.stringify(roster, null, 2)}\n`);
  return { roster: path.join(dir, 'roster.yaml'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Three members: planner (the entry) calls worker (slow, one bash call) and critic (quick). */
export function reviewFormation(name: string, workerSleepMs: number): FormationFolder {
  return makeFormation({
    name,
    entry: 'planner',
    members: {
      planner: {
        acceptance: 'queue',
        turns: [
          {
            text: ['Handing it out. '],
            tools: [
              { tool: 'call-member', input: { member: 'worker', task: 'draft: {{task.text}}' } },
              { tool: 'call-member', input: { member: 'critic', task: 'judge: {{task.text}}' } },
            ],
            answer: 'waiting',
          },
          { answer: 'planner: {{continuation}}' },
        ],
      },
      worker: {
        callee: true,
        shell: ['bash'],
        turns: [
          { sleep_ms: workerSleepMs, text: ['drafting'], tools: [{ tool: 'bash', input: { command: 'echo drafted' } }] },
          { answer: 'worker: {{tool.stdout}}' },
        ],
      },
      critic: { callee: true, turns: [{ answer: 'critic: fine' }] },
    },
    rules: [{ from: 'planner', to: ['worker', 'critic'] }],
  });
}
