/**
 * A store's folders are the runtime's own (docs/artifacts.md, "The stores"): a store root that is a symbolic link is a
 * place that cannot be read, and mur publish writes through no link — not the root, not `<scope>/<name>/` — with
 * temporary files made O_EXCL|O_NOFOLLOW beside the final ones. Real files and links.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { PlaceUnreadable } from './place.js';
import { projectStoreOf, publishedDigest, StoreFolder, writeToStore } from './store-folder.js';

const RECORD = 'artifact: acme/x\nversion: 1.0.0\ndigest: sha256:' + '0'.repeat(64) + '\nruntime: skill\ndescription: x\n';

function capsule(): { capsuleDir: string; store: string; elsewhere: string } {
  const base = mkdtempSync(path.join(os.tmpdir(), 'murmur-store-'));
  const capsuleDir = path.join(base, 'capsule');
  const elsewhere = path.join(base, 'elsewhere');
  mkdirSync(path.join(capsuleDir, '.murmur'), { recursive: true });
  mkdirSync(elsewhere);
  return { capsuleDir, store: projectStoreOf(capsuleDir), elsewhere };
}

describe('a store through a symbolic link', () => {
  test('a store root that is a link cannot be read, named by its documented place, not its host path', async () => {
    const { store, elsewhere } = capsule();
    await writeToStore(elsewhere, 'acme/x', '1.0.0', Buffer.from('archive'), RECORD);
    symlinkSync(elsewhere, store);
    const place = new StoreFolder('project store', store);
    const said = 'the project store cannot be read: .murmur/store in the capsule folder is a symbolic link, which the door does not follow';
    await assert.rejects(place.held('acme/x'), (error: unknown) => error instanceof PlaceUnreadable && error.message === said);
    await assert.rejects(place.matching('acme/*'), { message: said });
    const global = new StoreFolder('global store', store);
    await assert.rejects(global.held('acme/x'), {
      message: 'the global store cannot be read: $MURMUR_HOME/store is a symbolic link, which the door does not follow',
    });
    assert.equal(await publishedDigest(store, 'acme/x', '1.0.0'), null, 'mur publish reads no record through the link either');
  });

  test('mur publish writes through no link: the root, a scope or a name folder; nothing is written where it points', async () => {
    const linkedRoot = capsule();
    symlinkSync(linkedRoot.elsewhere, linkedRoot.store);
    await assert.rejects(writeToStore(linkedRoot.store, 'acme/x', '1.0.0', Buffer.from('archive'), RECORD), {
      name: 'PlaceUnreadable',
      message: `${linkedRoot.store} is a symbolic link: a store is written only into folders of its own, never through a link`,
    });
    const linkedScope = capsule();
    mkdirSync(linkedScope.store);
    symlinkSync(linkedScope.elsewhere, path.join(linkedScope.store, 'acme'));
    await assert.rejects(writeToStore(linkedScope.store, 'acme/x', '1.0.0', Buffer.from('archive'), RECORD), {
      message: `${path.join(linkedScope.store, 'acme')} is a symbolic link: a store is written only into folders of its own, never through a link`,
    });
    const linkedName = capsule();
    mkdirSync(path.join(linkedName.store, 'acme'), { recursive: true });
    symlinkSync('.', path.join(linkedName.store, 'acme', 'x'));
    await assert.rejects(writeToStore(linkedName.store, 'acme/x', '1.0.0', Buffer.from('archive'), RECORD), {
      message: `${path.join(linkedName.store, 'acme', 'x')} is a symbolic link: a store is written only into folders of its own, never through a link`,
    });
    for (const { elsewhere } of [linkedRoot, linkedScope]) assert.deepEqual(readdirSync(elsewhere), []);
    assert.deepEqual(readdirSync(path.join(linkedName.store, 'acme')).sort(), ['x']);
  });

  test('a store without links is written as before: the files in place, no temporary left, the record read back', async () => {
    const { store } = capsule();
    const archive = await writeToStore(store, 'acme/x', '1.0.0', Buffer.from('archive'), RECORD);
    assert.equal(archive, path.join(store, 'acme', 'x', '1.0.0.tgz'));
    assert.equal(readFileSync(archive, 'utf8'), 'archive');
    assert.deepEqual(readdirSync(path.join(store, 'acme', 'x')).sort(), ['1.0.0.tgz', '1.0.0.yaml']);
    assert.equal(await publishedDigest(store, 'acme/x', '1.0.0'), `sha256:${'0'.repeat(64)}`);
    assert.deepEqual(
      (await new StoreFolder('project store', store).held('acme/x'))?.versions.map((v) => v.version),
      ['1.0.0'],
    );
    assert.ok(existsSync(path.join(store, 'acme', 'x', '1.0.0.yaml')));
  });
});
