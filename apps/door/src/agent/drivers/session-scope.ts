import type { OnModuleDestroy } from '@nestjs/common';

/** The session's lifetime as an AbortSignal: every provider request is joined to it, so the session's end closes them. */
export class DriverSessionScope implements OnModuleDestroy {
  private readonly controller = new AbortController();

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  onModuleDestroy(): void {
    this.controller.abort(new Error('the session ended'));
  }
}
