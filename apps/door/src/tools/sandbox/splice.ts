import type { Socket } from 'node:net';

/**
 * Carries two connections into each other, byte for byte, and ends both when either ends or fails: the door's side of
 * a command's egress (the relay inside the sandbox is the init's, native/murmur-sandbox.c).
 */
export function splice(inner: Socket, outer: Socket): void {
  const end = () => {
    inner.destroy();
    outer.destroy();
  };
  inner.pipe(outer);
  outer.pipe(inner);
  inner.on('error', end).on('close', end);
  outer.on('error', end).on('close', end);
}
