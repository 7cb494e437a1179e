/**
 * The planes bench's subjects: a two-member formation (`mur run --roster`) whose `owner` exports a folder on the
 * operator plane and shares files with `reader` (share-file needs a roster callee whose card it reads), and a raw
 * baseline: a child process that pipes `fs.createReadStream` of one file to every socket that connects.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { stopChild, track } from './children.js';
import { MUR_CLI } from './door-process.js';

/** A file of the example's `owner/shared`, the folder its peer_files export. */
export const SHARED_FILE = 'handoff.txt';

/** examples/planes: the owner exporting its files and sharing with the reader (the e2e suite's files spec runs it too). */
const EXAMPLE = fileURLToPath(new URL('../../../../examples/planes/', import.meta.url));

export interface PlanesFormation {
  /** The owner's door. */
  url: string;
  pid: number;
  /** The owner's operator export root: put the files to download here. */
  filesRoot: string;
  stop(): Promise<void>;
}

/**
 * Copies examples/planes into `dir`, starts the formation, resolves once it is announced. `nodeFlags`
 * go to `mur run --roster`, and through fork's inherited execArgv to every member (`--cpu-prof`, say).
 */
export async function startPlanesFormation(dir: string, home: string, nodeFlags: readonly string[] = []): Promise<PlanesFormation> {
  cpSync(EXAMPLE, dir, { recursive: true });
  const filesRoot = path.join(dir, 'owner', 'files');
  const child = track(
    spawn(process.execPath, [...nodeFlags, MUR_CLI, 'run', '--roster', path.join(dir, 'roster.yaml'), '--json'], {
      env: { ...process.env, MURMUR_HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const owner = await new Promise<{ url: string; pid: number }>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`mur run --roster exited ${code} before announcing: ${stderr.trim()}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!line.startsWith('{')) return;
      const members = (JSON.parse(line) as { members?: { member: string; url: string; pid: number }[] }).members;
      const found = members?.find((m) => m.member === 'owner');
      if (found) resolve(found);
    });
  });
  return { url: owner.url, pid: owner.pid, filesRoot, stop: () => stopChild(child) };
}

/** The raw baseline: `fs.createReadStream(file).pipe(socket)` for each connection, in its own process like the door. */
export async function startRawFileServer(file: string): Promise<{ port: number; pid: number; stop(): Promise<void> }> {
  const script = `const fs=require('node:fs');const net=require('node:net');
const s=net.createServer((c)=>{c.on('error',()=>{});fs.createReadStream(process.argv[1]).pipe(c);});
s.listen(0,'127.0.0.1',()=>console.log(s.address().port));`;
  const child: ChildProcess = track(spawn(process.execPath, ['-e', script, file], { stdio: ['ignore', 'pipe', 'inherit'] }));
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the raw file server exited ${code}`)));
    createInterface({ input: child.stdout! }).once('line', (line) => resolve(Number(line)));
  });
  return { port, pid: child.pid!, stop: () => stopChild(child) };
}
