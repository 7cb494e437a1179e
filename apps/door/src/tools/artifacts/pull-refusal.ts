import { ARTIFACT_REFUSAL, lockConflict } from '@murmur/protocol';

/**
 * A pull refused, with the text the model (or `mur pull`, or staging) reads: one of seed 004's tokens, or a lock
 * conflict. `kind` says which, so the CLI can tell a failed place (exit 1) from a refused artifact (exit 2).
 */
export class PullRefusal extends Error {
  override readonly name = 'PullRefusal';

  private constructor(
    readonly kind: 'not-granted' | 'not-found' | 'does-not-fit' | 'not-fetched' | 'conflict',
    message: string,
  ) {
    super(message);
  }

  static notGranted(why: string): PullRefusal {
    return new PullRefusal('not-granted', `${ARTIFACT_REFUSAL.notGranted} ${why}`);
  }

  static notFound(why: string): PullRefusal {
    return new PullRefusal('not-found', `${ARTIFACT_REFUSAL.notFound} ${why}`);
  }

  /** `text` already opens with does-not-fit: and its code (artifacts/wit-level.ts). */
  static doesNotFit(text: string): PullRefusal {
    return new PullRefusal('does-not-fit', text);
  }

  static notFetched(why: string): PullRefusal {
    return new PullRefusal('not-fetched', `${ARTIFACT_REFUSAL.notFetched} ${why}`);
  }

  static conflict(name: string, why: string): PullRefusal {
    return new PullRefusal('conflict', lockConflict(name, why));
  }
}
