import type { Variables } from '../../config/settings.js';
import { type DriverChoice, declaredChoices, keyProblem } from '../../manifest/inference-choices.js';
import type { Manifest } from '../../manifest/manifest.schema.js';

/** Who selects a choice: the agent (switch-driver) or the operator with the control token (docs/control.md). */
export type Switcher = { principal: 'agent' } | { principal: 'operator'; tokenId: string };

export type SwitchOutcome = { switched: true; from: DriverChoice; to: DriverChoice } | { switched: false; reason: string };

/**
 * Which driver choice serves the session's inference calls (docs/drivers.md): the manifest's inference.driver at
 * first, then whatever switch-driver or the control surface selected. A switch applies at the next call; the first
 * call served by a new choice is told so once, naming who selected it (control_applied). Session-wide: it is not
 * reset between tasks.
 */
export class DriverSelection {
  readonly choices: ReadonlyMap<string, DriverChoice>;
  private currentName: string | null;
  private pendingBy: Switcher | null = null;
  private served: DriverChoice | null = null;

  constructor(
    manifest: Manifest,
    capsuleDir: string,
    /** Where a choice's key variable is read (the session's settings): at a switch, as at launch. */
    private readonly vars: Variables,
  ) {
    this.choices = declaredChoices(manifest, capsuleDir, vars);
    this.currentName = manifest.inference?.driver ?? null;
  }

  /** The choice the next call is served by; null in a capsule with no inference: block. */
  get current(): DriverChoice | null {
    return this.currentName === null ? null : (this.choices.get(this.currentName) ?? null);
  }

  /** The choice that served the latest call, for session-status's context window. */
  get lastServed(): DriverChoice | null {
    return this.served;
  }

  names(): string[] {
    return [...this.choices.keys()];
  }

  /** Why a choice cannot be selected now (its key variable is unset), or null. */
  problemOf(choice: DriverChoice): string | null {
    return keyProblem(choice, this.vars);
  }

  /** Selects a declared choice whose key can be produced now; nothing changes on a refusal. */
  switchTo(name: string, by: Switcher): SwitchOutcome {
    const to = this.choices.get(name);
    if (!to) return { switched: false, reason: `driver ${JSON.stringify(name)} is not one of ${this.names().join(', ')}` };
    const problem = this.problemOf(to);
    if (problem !== null) return { switched: false, reason: `choice '${name}' cannot be used: ${problem}` };
    const from = this.current!;
    if (from.name !== to.name) {
      this.currentName = to.name;
      this.pendingBy = by;
    }
    return { switched: true, from, to };
  }

  /** An inference call begins: the choice serving it, and who selected it when it is the first call since a switch. */
  beginCall(): { choice: DriverChoice; appliedBy: Switcher | null } {
    const choice = this.current;
    if (!choice) throw new Error('this capsule declares no inference driver');
    const appliedBy = this.pendingBy;
    this.pendingBy = null;
    this.served = choice;
    return { choice, appliedBy };
  }
}
