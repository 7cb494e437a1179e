/**
 * The runtime's outbound requests (member offers, reads and cancels, completions, share-file's card read,
 * fetch-peer-file's redeem): each ends by its own timeout whatever the garbage collector does, and a failure reaches
 * the model in words that name no address (seed 004, call-member: "The model never sees the door's address or the
 * token").
 *
 * Why not `AbortSignal.any([signal, AbortSignal.timeout(ms)])`: Node 20 holds a timeout signal only weakly once it is
 * combined, so a collection while the request waits loses it, and `fetch` then waits for an answer that never comes
 * (issue 29: a frozen member's call hung past its deadline). Here one plain timer owns one AbortController, kept
 * referenced until the request settles, and the request's own promise is raced against that timer, so even an abort
 * that `fetch` lost cannot hang the caller. Node 22 and 24 keep the combined signal: this workaround stays only while
 * the project's machines run Node 20, below the floor (docs/decisions.md, "Node versions"), and goes when they do not.
 */

/** How a request given up on after its own timeout rejects: a TimeoutError, as `AbortSignal.timeout()` names it. */
export class OutboundTimeout extends Error {
  override name = 'TimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${secondsOf(timeoutMs)}`);
  }
}

export interface OutboundBound {
  /** The request's own timeout; without one, only `signal` ends it early. */
  timeoutMs?: number;
  /** The caller's signal (a task's, a call's): once it aborts, the request is aborted and rejects with its reason. */
  signal?: AbortSignal;
  /**
   * The controller whose signal the request is handed, when the caller needs it after the request settles (a body
   * read on, aborted by the caller's own means); a fresh one otherwise.
   */
  controller?: AbortController;
}

/**
 * Runs `request` with a signal that aborts at its timeout or when `bound.signal` aborts, and settles by then however
 * the request behaves: rejecting with an `OutboundTimeout`, or with the caller's signal's reason.
 */
export function boundedRequest<T>(request: (signal: AbortSignal) => Promise<T>, bound: OutboundBound = {}): Promise<T> {
  const controller = bound.controller ?? new AbortController();
  const outer = bound.signal;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const givenUp = new Promise<never>((_, reject) => {
    const stop = (reason: unknown) => {
      controller.abort(reason);
      reject(reason);
    };
    if (outer?.aborted) return stop(outer.reason);
    if (outer) {
      onAbort = () => stop(outer.reason);
      outer.addEventListener('abort', onAbort, { once: true });
    }
    if (bound.timeoutMs !== undefined) {
      const ms = bound.timeoutMs;
      timer = setTimeout(() => stop(new OutboundTimeout(ms)), ms);
    }
  });
  const running = controller.signal.aborted ? Promise.reject(controller.signal.reason) : Promise.resolve().then(() => request(controller.signal));
  // A request that settles after the race was lost has nothing left to tell.
  running.catch(() => undefined);
  givenUp.catch(() => undefined);
  return Promise.race([running, givenUp]).finally(() => {
    clearTimeout(timer);
    if (onAbort) outer?.removeEventListener('abort', onAbort);
    // Referenced here, so the controller lives until the request has settled.
    void controller;
  });
}

/** The system errors a request may fail with, in words that name neither the address nor anything sent. */
const CODE_WORDS: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused',
  ECONNRESET: 'the connection was reset',
  EPIPE: 'the connection was reset',
  ECONNABORTED: 'the connection was aborted',
  UND_ERR_SOCKET: 'the connection closed before an answer came',
  UND_ERR_CLOSED: 'the connection closed before an answer came',
  ETIMEDOUT: 'the connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  UND_ERR_HEADERS_TIMEOUT: 'no answer came in time',
  UND_ERR_BODY_TIMEOUT: 'the answer stopped arriving',
  ENOTFOUND: 'its host name could not be resolved',
  EAI_AGAIN: 'its host name could not be resolved',
  EHOSTUNREACH: 'its host could not be reached',
  ENETUNREACH: 'its network could not be reached',
  EADDRNOTAVAIL: 'its address could not be used',
};

function secondsOf(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/**
 * Why a request got no answer, in words that name no address and no token: the first system error code on the error's
 * cause chain (`fetch failed` → `connect ECONNREFUSED 127.0.0.1:…`), a timeout with its seconds, or, for anything
 * else, that no answer came. The raw message may go to a trace, never to the model.
 */
export function failureInWords(error: unknown): string {
  let at: unknown = error;
  for (let depth = 0; depth < 6 && typeof at === 'object' && at !== null; depth++) {
    if (at instanceof OutboundTimeout) return `it did not answer within ${secondsOf(at.timeoutMs)}`;
    const { code, name } = at as { code?: unknown; name?: unknown };
    if (typeof code === 'string' && CODE_WORDS[code] !== undefined) return CODE_WORDS[code];
    if (name === 'TimeoutError') return 'it did not answer in time';
    at = (at as { cause?: unknown }).cause;
  }
  return 'no answer came';
}

/** What of a runtime sentence could carry an address or a secret: URLs and `mur_` tokens. */
const ADDRESS_OR_TOKEN = /\b[a-z][a-z0-9+.-]*:\/\/[^\s'")\]]*[^\s'")\].,:;]|\bmur_[A-Za-z0-9_-]+/gi;

/**
 * A message a peer's door answered (a JSON-RPC error, a refusal body), kept, but with any URL or token in it replaced:
 * the last guard before a runtime sentence reaches the model.
 */
export function withoutAddresses(text: string): string {
  return text.replace(ADDRESS_OR_TOKEN, '<withheld>');
}
