import { createHash, type Hash } from 'node:crypto';

/**
 * An artifact's digest (docs/artifacts.md, "The digest"): SHA-256 over its content in path order — `D <path>\n` for a
 * folder, `F <mode> <size> <path>\n` and the bytes for a file — so a folder and its archive share it, and recompressing
 * an archive changes nothing.
 */
export class ContentDigest {
  private readonly hash: Hash = createHash('sha256');

  folder(path: string): void {
    this.hash.update(`D ${path}\n`);
  }

  file(path: string, executable: boolean, size: number): void {
    this.hash.update(`F ${executable ? '755' : '644'} ${size} ${path}\n`);
  }

  bytes(chunk: Uint8Array): void {
    this.hash.update(chunk);
  }

  /** `sha256:<64 hex digits>`; the digest can be read once. */
  done(): string {
    return `sha256:${this.hash.digest('hex')}`;
  }
}

export const DIGEST = /^sha256:[0-9a-f]{64}$/;

/** A digest as a line shows it: its first 12 hex digits. */
export const shortDigest = (digest: string): string => `${digest.slice(0, 'sha256:'.length + 12)}…`;
