import type { QuotaWindowFrameFields } from '@murmur/protocol';

/** One subscription window as session-status reports it (seed 004, `quota[]`): a member is absent when not reported. */
export interface QuotaWindow {
  name: string;
  used?: number;
  resets_at?: string;
  window_minutes?: number;
  state?: 'ok' | 'warning' | 'exhausted';
}

/**
 * The subscription windows a harness has reported in this session (seed 004, session-status `quota`): the latest of
 * each name, in the order the names were first reported. The runtime reports them and never acts on them.
 */
export class QuotaWindows {
  private readonly byName = new Map<string, QuotaWindowFrameFields>();

  /** A report of some windows: each replaces its name's last one (a name keeps its first place). */
  report(windows: readonly QuotaWindowFrameFields[]): void {
    for (const window of windows) this.byName.set(window.name, window);
  }

  /** Every window so far, as the quota frame carries them; empty before the first report. */
  frameWindows(): QuotaWindowFrameFields[] {
    return [...this.byName.values()];
  }

  /** session-status's quota, or null while no window was reported. */
  status(): QuotaWindow[] | null {
    if (this.byName.size === 0) return null;
    return this.frameWindows().map((w) => ({
      name: w.name,
      ...(w.used === undefined ? {} : { used: w.used }),
      ...(w.resetsAt === undefined ? {} : { resets_at: w.resetsAt }),
      ...(w.windowMinutes === undefined ? {} : { window_minutes: w.windowMinutes }),
      ...(w.state === undefined ? {} : { state: w.state }),
    }));
  }
}
