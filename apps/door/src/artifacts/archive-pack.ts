import { lstat, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';
import { ARCHIVE_BOUNDS, ArchiveRefusal, pathRefusal } from './archive-bounds.js';
import { ContentDigest } from './content-digest.js';

/** One entry of an artifact folder, as mur pack writes it. */
interface FolderEntry {
  path: string;
  kind: 'folder' | 'file';
  executable: boolean;
}

/** The folder's entries in path order: regular files and folders only, within the archive bounds. */
async function folderEntries(root: string): Promise<FolderEntry[]> {
  const out: FolderEntry[] = [];
  let bytes = 0;
  const walk = async (relative: string): Promise<void> => {
    for (const name of await readdir(path.join(root, relative))) {
      const rel = relative === '' ? name : `${relative}/${name}`;
      const refused = pathRefusal(rel);
      if (refused !== null) throw new ArchiveRefusal(refused);
      const stats = await lstat(path.join(root, rel));
      if (stats.isDirectory()) {
        out.push({ path: rel, kind: 'folder', executable: true });
        await walk(rel);
      } else if (stats.isFile()) {
        bytes += stats.size;
        out.push({ path: rel, kind: 'file', executable: (stats.mode & 0o111) !== 0 });
      } else
        throw new ArchiveRefusal(
          `${rel} is ${stats.isSymbolicLink() ? 'a symbolic link' : 'neither a file nor a folder'}: an artifact holds regular files and folders only`,
        );
      if (out.length > ARCHIVE_BOUNDS.entries) throw new ArchiveRefusal(`the folder holds more than ${ARCHIVE_BOUNDS.entries} entries`);
      if (bytes > ARCHIVE_BOUNDS.unpackedBytes) throw new ArchiveRefusal(`the folder's files hold more than ${ARCHIVE_BOUNDS.unpackedBytes} bytes`);
    }
  };
  await walk('');
  return out.sort((a, b) => (a.path < b.path ? -1 : 1));
}

/**
 * An artifact folder as mur pack writes it (docs/artifacts.md, "The archive and its bounds"): a gzip'd tar of its
 * entries in path order, folders and executables 0755, the rest 0644, owner 0, time 0 — so packing one folder twice
 * gives the same bytes — and its digest.
 */
export async function packFolder(root: string): Promise<{ archive: Buffer; digest: string }> {
  const entries = await folderEntries(root);
  const digest = new ContentDigest();
  const tar = pack();
  const chunks: Buffer[] = [];
  tar.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
  const ended = new Promise<void>((resolve, reject) => {
    tar.on('end', resolve);
    tar.on('error', reject);
  });
  const common = { uid: 0, gid: 0, uname: '', gname: '', mtime: new Date(0) };
  for (const entry of entries) {
    if (entry.kind === 'folder') {
      digest.folder(entry.path);
      tar.entry({ ...common, name: `${entry.path}/`, type: 'directory', mode: 0o755 });
      continue;
    }
    const bytes = await readFile(path.join(root, entry.path));
    digest.file(entry.path, entry.executable, bytes.length);
    digest.bytes(bytes);
    tar.entry({ ...common, name: entry.path, type: 'file', mode: entry.executable ? 0o755 : 0o644, size: bytes.length }, bytes);
  }
  tar.finalize();
  await ended;
  const archive = gzipSync(Buffer.concat(chunks), { level: 9 });
  if (archive.length > ARCHIVE_BOUNDS.archiveBytes) throw new ArchiveRefusal(`the archive would be larger than ${ARCHIVE_BOUNDS.archiveBytes} bytes`);
  return { archive, digest: digest.done() };
}
