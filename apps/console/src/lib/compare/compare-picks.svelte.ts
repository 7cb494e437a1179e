/**
 * The tasks picked for comparison (docs/console.md, "Compare two runs"): two at most, a third dropping the oldest;
 * kept in sessionStorage so one pick can come from one session's table and the other from another's.
 */
const KEY = 'murmur-console.compare';
const MAX = 2;

export class ComparePicks {
  #ids = $state<string[]>([]);
  readonly #storage: Storage | null;

  constructor(storage: Storage | null = typeof sessionStorage === 'undefined' ? null : sessionStorage) {
    this.#storage = storage;
    try {
      const saved: unknown = JSON.parse(storage?.getItem(KEY) ?? '[]');
      if (Array.isArray(saved)) this.#ids = saved.filter((id): id is string => typeof id === 'string' && id !== '').slice(-MAX);
    } catch {
      this.#ids = [];
    }
  }

  /** The picked task ids, oldest first. */
  get ids(): readonly string[] {
    return this.#ids;
  }

  has(taskId: string): boolean {
    return this.#ids.includes(taskId);
  }

  /** Picks the task (dropping the oldest pick beyond two), or unpicks it. */
  toggle(taskId: string, picked: boolean): void {
    const rest = this.#ids.filter((id) => id !== taskId);
    this.#save(picked ? [...rest, taskId].slice(-MAX) : rest);
  }

  clear(): void {
    this.#save([]);
  }

  #save(ids: string[]): void {
    this.#ids = ids;
    try {
      this.#storage?.setItem(KEY, JSON.stringify(ids));
    } catch {
      // Storage full or refused: the picks still hold for this page.
    }
  }
}

/** The console's picks, shared by every tasks table. */
export const comparePicks = new ComparePicks();
