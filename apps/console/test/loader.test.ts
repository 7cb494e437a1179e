import { HttpRefusalError } from '@murmur/client';
import { describe, expect, it, vi } from 'vitest';
import { ConsoleApiError } from '../src/lib/io/errors';
import { Loader } from '../src/lib/io/loader.svelte';

/** A read the test answers: resolve or reject it, and see the signal it was handed. */
function pending<T>() {
  let resolve: (value: T) => void = () => {};
  let reject: (error: unknown) => void = () => {};
  let signal: AbortSignal | undefined;
  const read = (s: AbortSignal) => {
    signal = s;
    return new Promise<T>((res, rej) => {
      resolve = res;
      reject = rej;
    });
  };
  return { read, resolve: (v: T) => resolve(v), reject: (e: unknown) => reject(e), signal: () => signal };
}

const refused = () => new HttpRefusalError({ status: 401, wwwAuthenticate: 'Bearer', code: 'unauthenticated', message: 'needs a token' });

describe('Loader', () => {
  it('hands each read a signal, loads while it runs, and keeps what it read with when', async () => {
    const loader = new Loader<string>();
    expect([loader.value, loader.loading, loader.problem, loader.loadedAt]).toEqual([null, false, null, null]);
    const first = pending<string>();
    const done = loader.load(first.read);
    expect(loader.loading).toBe(true);
    expect(first.signal()?.aborted).toBe(false);
    first.resolve('one');
    await expect(done).resolves.toBe('one');
    expect(loader.value).toBe('one');
    expect(loader.loading).toBe(false);
    expect(loader.loadedAt).toEqual(expect.any(Number));
  });

  it('aborts the older request when a newer one starts; the newest answer wins, whichever arrives first', async () => {
    const loader = new Loader<string>();
    const older = pending<string>();
    const newer = pending<string>();
    const first = loader.load(older.read);
    const second = loader.load(newer.read);
    expect(older.signal()?.aborted).toBe(true);
    expect(older.signal()?.reason).toMatchObject({ name: 'AbortError' });
    expect(newer.signal()?.aborted).toBe(false);
    newer.resolve('new');
    await expect(second).resolves.toBe('new');
    // A read that ignores its signal answers late: dropped.
    older.resolve('old');
    await expect(first).resolves.toBeNull();
    expect(loader.value).toBe('new');
    expect(loader.loading).toBe(false);
  });

  it('stays loading until the newest request ends, and drops an older request’s failure', async () => {
    const onProblem = vi.fn();
    const loader = new Loader<string>({ onProblem });
    const older = pending<string>();
    const newer = pending<string>();
    void loader.load(older.read);
    const second = loader.load(newer.read);
    older.reject(new ConsoleApiError('late failure', 500));
    await Promise.resolve();
    expect(loader.loading).toBe(true);
    expect(loader.problem).toBeNull();
    newer.resolve('new');
    await second;
    expect(loader.problem).toBeNull();
    expect(onProblem).not.toHaveBeenCalled();
  });

  it('words a failure as a problem, reports it, keeps the value read before, and clears the problem on the next success', async () => {
    const onProblem = vi.fn();
    const loader = new Loader<string>({ context: { door: '127.0.0.1:1' }, onProblem });
    await loader.load(async () => 'kept');
    await expect(loader.load(() => Promise.reject(refused()))).resolves.toBeNull();
    expect(loader.problem).toMatchObject({ kind: 'needs-token', title: 'This door needs a token', needsToken: true });
    expect(onProblem).toHaveBeenCalledWith(loader.problem);
    expect(loader.value).toBe('kept');
    // A read under way does not clear the problem; its answer does.
    const again = pending<string>();
    const done = loader.load(again.read);
    expect(loader.problem).not.toBeNull();
    again.resolve('fresh');
    await done;
    expect(loader.problem).toBeNull();
    expect(loader.value).toBe('fresh');
  });

  it('words a failure its own way when told, and never counts an abort as a problem', async () => {
    const loader = new Loader<string>({
      describe: (error) => ({ kind: 'unknown', title: `custom: ${(error as Error).message}`, detail: null, needsToken: false, code: null }),
    });
    await loader.load(() => Promise.reject(new Error('boom')));
    expect(loader.problem?.title).toBe('custom: boom');
    await loader.load(() => Promise.reject(new DOMException('gone', 'AbortError')));
    expect(loader.problem?.title).toBe('custom: boom');
    expect(loader.loading).toBe(false);
  });

  it('reset() aborts the read under way, drops its answer and forgets the value and the problem', async () => {
    const loader = new Loader<string>();
    await loader.load(() => Promise.reject(new ConsoleApiError('down', 502)));
    await loader.load(async () => 'shown');
    await loader.load(() => Promise.reject(new ConsoleApiError('down', 502)));
    const inFlight = pending<string>();
    const done = loader.load(inFlight.read);
    loader.reset();
    expect(inFlight.signal()?.aborted).toBe(true);
    expect([loader.value, loader.loading, loader.problem, loader.loadedAt]).toEqual([null, false, null, null]);
    inFlight.resolve('too late');
    await expect(done).resolves.toBeNull();
    expect(loader.value).toBeNull();
  });

  it('reset({ keepProblem }) keeps the problem (what a view waits for); set() replaces the value without a read', async () => {
    const loader = new Loader<string>();
    await loader.load(async () => 'rows');
    await loader.load(() => Promise.reject(refused()));
    loader.reset({ keepProblem: true });
    expect(loader.value).toBeNull();
    expect(loader.problem?.needsToken).toBe(true);
    loader.set('from a stream');
    expect(loader.value).toBe('from a stream');
    expect(loader.loadedAt).toBeNull();
  });
});
