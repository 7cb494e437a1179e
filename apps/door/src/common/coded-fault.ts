/**
 * A failure inside the door after a request was accepted: the RPC layer answers it -32603 with this message (seed
 * 000: "-32603 Names the failure: a request the door accepted and could not hand to the session"). Each module
 * extends it with its own code, so the transport maps one base class and imports no module's internals.
 */
export class CodedFault extends Error {
  constructor(
    /** A stable name for logs: `store_unavailable`, … */
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
