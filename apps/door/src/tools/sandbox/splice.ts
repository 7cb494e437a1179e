import type { Socket } from 'node:net';

/**
 * Carries two connections into each other, byte for byte, and ends both when either ends or fails. The door's egress
 * sockets use it, and the relay inside the sandbox runs its very source (relay-script.ts), so both ends agree.
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
