/**
 * A bounded push-to-pull queue: callbacks push, one consumer pulls with `next()`. Used to turn
 * fetch-event-source's callbacks into the seam's async iterator.
 */
export class ItemQueue<T> implements AsyncIterator<T, void> {
  private readonly items: T[] = [];
  private head = 0;
  private waiter: { resolve: (result: IteratorResult<T, void>) => void; reject: (error: unknown) => void } | null = null;
  private ended = false;
  private failure: { error: unknown } | null = null;

  constructor(
    /** The most items held for a consumer that is not pulling. */
    private readonly limit: number,
    /** Called once when the consumer stops early (`return()`), to release the source. */
    private readonly onReturn: () => void = () => {},
  ) {}

  get size(): number {
    return this.items.length - this.head;
  }

  /** Adds an item; false when the queue is full (the item is not added) or already finished. */
  push(item: T): boolean {
    if (this.ended || this.failure) return false;
    if (this.waiter) {
      const { resolve } = this.waiter;
      this.waiter = null;
      resolve({ done: false, value: item });
      return true;
    }
    if (this.size >= this.limit) return false;
    this.items.push(item);
    return true;
  }

  /** No more items: the consumer gets what is queued, then the end. */
  end(): void {
    if (this.ended || this.failure) return;
    this.ended = true;
    this.settleWaiter();
  }

  /** The source failed: the consumer gets what is queued, then `error`. */
  fail(error: unknown): void {
    if (this.ended || this.failure) return;
    this.failure = { error };
    this.settleWaiter();
  }

  private settleWaiter(): void {
    if (!this.waiter) return;
    const waiter = this.waiter;
    this.waiter = null;
    if (this.failure) waiter.reject(this.failure.error);
    else waiter.resolve({ done: true, value: undefined });
  }

  next(): Promise<IteratorResult<T, void>> {
    if (this.size > 0) {
      // size > 0: the slot at head holds an item.
      const value = this.items[this.head] as T;
      this.head += 1;
      if (this.head > 1024 && this.head * 2 > this.items.length) {
        this.items.splice(0, this.head);
        this.head = 0;
      }
      return Promise.resolve({ done: false, value });
    }
    if (this.failure) return Promise.reject(this.failure.error);
    if (this.ended) return Promise.resolve({ done: true, value: undefined });
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  return(): Promise<IteratorResult<T, void>> {
    if (!this.ended && !this.failure) {
      this.ended = true;
      this.onReturn();
    }
    this.items.length = 0;
    this.head = 0;
    return Promise.resolve({ done: true, value: undefined });
  }
}
