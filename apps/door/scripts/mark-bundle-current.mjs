// Run after `turbo run build`: the door's dist/src (tsc) and dist/bundle (esbuild) now come from one build, but a
// turbo cache hit restores both with the restore's mtimes, in no set order. bin/mur.js runs dist/src instead of a
// bundle older than it (for tsc run alone), so a restore that happened to write the bundle first made every `mur`
// run the unbundled code: twice the cold start and ~30 MiB more idle memory, with a warning on stderr. The bundle's
// entry is marked as new as the build that just ended.
import { existsSync, utimesSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = fileURLToPath(new URL('../dist/bundle/cli/main.js', import.meta.url));
if (existsSync(entry)) {
  const now = new Date();
  utimesSync(entry, now, now);
}
