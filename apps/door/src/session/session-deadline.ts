import { formatSecondsTimestamp } from './timestamps.js';

/** The default notice margin: five minutes, or a tenth of the deadline when that is shorter (seed 004). */
const DEFAULT_NOTICE_SECS = 300;

/**
 * The session's deadline (mur run --deadline): when the runtime ends the session, and the one-time notice the agent
 * is given once no more than lifecycle.deadline_notice_secs are left (seed 004, "The deadline notice"). The clock is
 * injected, so the margin can be tested without waiting for it.
 */
export class SessionDeadline {
  private noticeSent = false;
  /** Seconds before the deadline from which the notice is due; 0 sends none. */
  readonly marginSecs: number;

  constructor(
    readonly atMs: number,
    startedAtMs: number,
    noticeSecs: number | undefined,
    private readonly now: () => number = Date.now,
  ) {
    const tenth = Math.floor((atMs - startedAtMs) / 10_000);
    this.marginSecs = noticeSecs ?? Math.max(1, Math.min(DEFAULT_NOTICE_SECS, tenth));
  }

  /** RFC 3339 UTC, to the second, as session-status and the notice write it. */
  get at(): string {
    return formatSecondsTimestamp(this.atMs);
  }

  /** Whole seconds until the deadline, rounded down; 0 once it has passed. */
  leftSecs(): number {
    return Math.max(0, Math.floor((this.atMs - this.now()) / 1000));
  }

  /**
   * The notice line, the first time a tool result is handed to the model inside the margin; null before the margin,
   * after the notice was sent, and always when the margin is 0.
   */
  takeNotice(): string | null {
    if (this.noticeSent || this.marginSecs === 0 || this.atMs - this.now() > this.marginSecs * 1000) return null;
    this.noticeSent = true;
    return `Session deadline: the runtime ends this session at ${this.at}, in ${this.leftSecs()} seconds.`;
  }
}
