import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { readSettings } from '../../src/config/settings.js';
import type { AddedDoor } from '../../src/console-server/added-doors.js';
import { startConsoleServer } from '../../src/console-server/console-server.js';
import { tempDir } from './door-process.js';

/**
 * mur console's server in the test's process, reading `home` as `MURMUR_HOME=<home> mur console` would, over a
 * stand-in for the console's built files (the server needs an index.html; the tests read its APIs).
 */
export async function startTestConsole(home: string, options: { host?: string; doors?: readonly AddedDoor[] } = {}): Promise<{ url: string; close(): Promise<void> }> {
  const dist = tempDir('dist');
  writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>console</title>');
  const started = await startConsoleServer({ host: options.host ?? '127.0.0.1', port: 0, dist, settings: readSettings({ MURMUR_HOME: home }), doors: options.doors });
  return { url: started.url, close: () => started.server.close() };
}
