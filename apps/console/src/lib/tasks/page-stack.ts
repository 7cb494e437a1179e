/**
 * The page tokens behind ListTasks' "Previous" button. The door's tokens only go forward (each names the position
 * after a page), so the console keeps the tokens of the pages it came through. Immutable: each move returns a new
 * stack, which a manager can hold in `$state.raw`.
 */
export class PageTokenStack {
  private constructor(
    /** The token of the page on screen: '' for the first page. */
    readonly current: string,
    /** The tokens of the pages before it, oldest first. */
    private readonly before: readonly string[],
  ) {}

  static first(): PageTokenStack {
    return new PageTokenStack('', []);
  }

  /** The stack of a deep link: the tokens of the pages after the first, oldest first (`tokens` read back). */
  static of(tokens: readonly string[]): PageTokenStack {
    const kept = tokens.filter((t) => t !== '');
    if (kept.length === 0) return PageTokenStack.first();
    return new PageTokenStack(kept[kept.length - 1], ['', ...kept.slice(0, -1)]);
  }

  /** The tokens of the pages after the first up to the one on screen, oldest first ([] on the first page). */
  get tokens(): string[] {
    return this.pageNumber === 1 ? [] : [...this.before.slice(1), this.current];
  }

  /** 1 for the first page. */
  get pageNumber(): number {
    return this.before.length + 1;
  }

  get hasPrevious(): boolean {
    return this.before.length > 0;
  }

  /** The stack after moving to the page `nextPageToken` names. A "" token (no next page) leaves it unchanged. */
  forward(nextPageToken: string): PageTokenStack {
    if (nextPageToken === '') return this;
    return new PageTokenStack(nextPageToken, [...this.before, this.current]);
  }

  /** The stack after moving back one page; the first page stays where it is. */
  back(): PageTokenStack {
    if (this.before.length === 0) return this;
    return new PageTokenStack(this.before[this.before.length - 1], this.before.slice(0, -1));
  }
}
