import { CodedFault } from '../common/coded-fault.js';

/** The store could not read or write: answered -32603 with this message, and nothing reported as changed. */
export class StoreError extends CodedFault {
  override readonly name = 'StoreError';

  constructor(message: string, options?: { cause?: unknown }) {
    super('store_unavailable', message, options);
  }
}
