/**
 * A capsule exporting `exported/` as its operator plane, with files inside, secrets outside, and links both ways
 * (docs/planes.md). The secrets carry a marker no answer of the plane may ever contain.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { makeCapsule, manifestYaml } from './door-process.js';

export const SECRET_MARKER = 'SECRET_MARKER_7f3a';
export const HELLO = 'hello from the operator plane\n';

export interface FilesCapsule {
  dir: string;
  root: string;
  big: Buffer;
}

/** Writes the capsule; `extra` is appended to its manifest (an authentication block, say). */
export function filesCapsule(name: string, extra = ''): FilesCapsule {
  const dir = makeCapsule(manifestYaml({ name, extra: `exports:\n  files:\n    root: exported\n${extra}` }), 'default:\n  turns:\n    - answer: ok\n', {
    'secret.txt': `${SECRET_MARKER} one level up\n`,
    'outside/secret2.txt': `${SECRET_MARKER} in a sibling folder\n`,
    'exported/hello.txt': HELLO,
    'exported/sub/inner.md': '# inner\n',
    'exported/sub/deeper/leaf.json': '{"leaf":true}\n',
    'exported/with space é.txt': 'unicode name\n',
    'exported/%41.txt': 'a name the path rules cannot reach\n',
    'exported/empty.bin': '',
  });
  const root = path.join(dir, 'exported');
  const big = randomBytes(1024 * 1024 + 17);
  writeFileSync(path.join(root, 'big.bin'), big);
  symlinkSync('hello.txt', path.join(root, 'link-in'));
  symlinkSync('sub', path.join(root, 'link-dir-in'));
  symlinkSync('../secret.txt', path.join(root, 'link-out'));
  symlinkSync(path.join(dir, 'secret.txt'), path.join(root, 'link-abs-out'));
  symlinkSync('/etc/passwd', path.join(root, 'link-etc'));
  symlinkSync('../outside', path.join(root, 'link-dir-out'));
  symlinkSync('..', path.join(root, 'link-parent'));
  symlinkSync('/', path.join(root, 'link-slash'));
  symlinkSync('../../secret.txt', path.join(root, 'sub', 'link-up'));
  symlinkSync('nowhere.txt', path.join(root, 'dangling'));
  symlinkSync('link-out', path.join(root, 'chain-out'));
  mkdirSync(path.join(root, 'empty-folder'));
  execFileSync('mkfifo', [path.join(root, 'fifo')]);
  return { dir, root, big };
}

export interface BytesAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** One request with the path sent exactly as given, answered as raw bytes. */
export function fetchBytes(url: string, target: string, options: { method?: string; headers?: Record<string, string> } = {}): Promise<BytesAnswer> {
  const at = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: at.hostname, port: at.port, method: options.method ?? 'GET', path: target, headers: options.headers ?? {}, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}
