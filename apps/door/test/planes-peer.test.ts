/**
 * The peer plane, share-file and fetch-peer-file on real doors (docs/planes.md, "The peer plane", "The tools"): a
 * two-member formation under `mur run --roster` where `owner` shares files from exports.peer_files and `reader`
 * redeems them; and a member seated (by this test, as its supervisor) with a callee whose card is v0.4.0's.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { readFileSync, renameSync, writeFileSync, mkdirSync, existsSync, readdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { MurmurClient } from '@murmur/client';
import { authBlock, bearer, tokensOf } from './support/auth.js';
import { tempDir } from './support/door-process.js';
import { type FormationProcess, forkMember, makeFormation, nextMessage, runFormation } from './support/formation.js';

const REFUSAL = '{"error":"handle_not_found","message":"no file is shared under this handle for this audience"}';
const HANDLE_URL = /http:\/\/\S+?\/resources\/peer\/phk_[A-Za-z0-9_-]{43}/;

const SHARE = (rule: string, extra = '') => `
  - match: ^${rule} (\\S+) (\\S+)$
    turns:
      - tools:
          - tool: share-file
            input: { path: "{{match.1}}", audience: "{{match.2}}"${extra} }
        answer: "{{tool.content}}"`;

const OWNER_SCRIPT = `
rules:${SHARE('share')}${SHARE('short', ', ttl_secs: 1')}${SHARE('twice', ', uses: 2')}
  - match: ^handoff (\\S+)$
    turns:
      - tools:
          - tool: share-file
            input: { path: "{{match.1}}", audience: reader }
      - tools:
          - tool: call-member
            input: { member: reader, task: "fetch {{tool.content}}" }
        answer: waiting
      - answer: "{{continuation}}"
default:
  turns:
    - answer: "owner: {{task.text}}"
`;

const READER_SCRIPT = `
rules:
  - match: ^get (\\S+) (\\S+)$
    turns:
      - tools:
          - tool: fetch-peer-file
            input: { url: "{{match.1}}", save_as: "{{match.2}}" }
        answer: "{{tool.content}}"
  - match: (http://\\S+?/resources/peer/phk_[A-Za-z0-9_-]{43})
    turns:
      - tools:
          - tool: fetch-peer-file
            input: { url: "{{match.1}}", save_as: inbox/report.txt }
        answer: "{{tool.content}}"
default:
  turns:
    - answer: "reader: {{task.text}}"
`;

const manifest = (name: string, lines: string[]) =>
  [
    `name: ${name}`,
    'version: 0.1.0',
    'lifecycle:',
    '  task_acceptance: queue',
    'inference:',
    '  driver: script',
    '  script: script.yaml',
    '  max_turns: 4',
    ...lines,
    '',
  ].join('\n');

const OWNER = manifest('owner', ['capabilities:', '  network:', '    allow: [localhost]', 'exports:', '  peer_files:', '    root: shared']);
const READER = manifest('reader', [
  'capabilities:',
  '  peer_fetch: true',
  '  network:',
  '    allow: [localhost]',
  'exports:',
  '  peer_tasks:',
  '    accept: true',
]);

const ROSTER =
  'name: files\nentry: owner\nmembers:\n  owner: { capsule: ./owner }\n  reader: { capsule: ./reader }\nrules:\n  - from: owner\n    to: [reader]\n';

interface TraceRecord {
  type: string;
  [key: string]: unknown;
}

const traceText = (recordsDir: string) => readFileSync(path.join(recordsDir, 'trace.jsonl'), 'utf8');
const traceOf = (recordsDir: string): TraceRecord[] =>
  traceText(recordsDir)
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as TraceRecord);

describe('the peer plane between two formation members', () => {
  const home = tempDir('home');
  let formation: FormationProcess;
  let owner: MurmurClient;
  let reader: MurmurClient;
  let shared: string;
  const say = async (client: MurmurClient, text: string) => {
    const task = await client.sendText(text);
    return task.artifacts?.find((a) => a.artifactId === 'response')?.parts[0].text ?? '';
  };
  /** share-file's result, from the owner's answer. */
  const share = async (rule: string, file: string, audience = 'reader') => {
    const text = await say(owner, `${rule} ${file} ${audience}`);
    const json = /\{"handle_id".*\}/.exec(text);
    assert.ok(json, text);
    return JSON.parse(json[0]) as { handle_id: string; url: string; expires_at: string; uses: number };
  };
  const redeem = (url: string, audience: string | null = 'reader', method = 'GET') =>
    fetch(url, { method, headers: audience === null ? {} : { 'x-murmur-audience': audience } });
  const refused = async (response: Response) => {
    assert.equal(response.status, 404);
    assert.equal(await response.text(), REFUSAL);
  };

  before(async () => {
    const roster = makeFormation(ROSTER, { owner: { manifest: OWNER, script: OWNER_SCRIPT }, reader: { manifest: READER, script: READER_SCRIPT } });
    shared = path.join(path.dirname(roster), 'owner', 'shared');
    mkdirSync(path.join(shared, 'sub'), { recursive: true });
    writeFileSync(path.join(shared, 'report.txt'), 'the quarterly numbers\n');
    writeFileSync(path.join(shared, 'big.bin'), Buffer.alloc(4096, 7));
    writeFileSync(path.join(path.dirname(roster), 'owner', 'secret.txt'), 'outside the export root');
    formation = await runFormation(roster, home, [], { MURMUR_PEER_FETCH_MAX_BYTES: '1024' });
    owner = new MurmurClient(formation.member('owner').url);
    reader = new MurmurClient(formation.member('reader').url);
  });
  after(() => formation?.mur.kill('SIGKILL'));

  test('a handle serves its file once, to its audience, with x-murmur-handle-id; then the one refusal', async () => {
    const minted = await share('share', 'report.txt');
    assert.match(minted.handle_id, /^hdl_[0-9a-f]{32}$/);
    assert.ok(minted.url.startsWith(`${formation.member('owner').url}/resources/peer/phk_`), minted.url);
    assert.equal(minted.uses, 1);
    const expires = Date.parse(minted.expires_at) - Date.now();
    assert.ok(expires > 14 * 60_000 && expires <= 15 * 60_000, `expires in ${expires} ms`);
    const first = await redeem(minted.url);
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('x-murmur-handle-id'), minted.handle_id);
    assert.equal(first.headers.get('cache-control'), 'no-store');
    assert.equal(first.headers.get('content-type'), 'text/plain; charset=utf-8');
    assert.equal(first.headers.get('content-length'), '22');
    assert.match(first.headers.get('content-disposition') ?? '', /^attachment; filename="report.txt"/);
    assert.equal(await first.text(), 'the quarterly numbers\n');
    await refused(await redeem(minted.url));
    // The trace names the handle by id and never holds the secret.
    const trace = traceOf(formation.member('owner').recordsDir);
    assert.ok(trace.some((r) => r.type === 'peer_handle_mint' && r.handle_id === minted.handle_id && r.audience === 'reader'));
    assert.ok(trace.some((r) => r.type === 'peer_handle_redeem' && r.handle_id === minted.handle_id && r.uses_left === 0));
    assert.ok(trace.some((r) => r.type === 'peer_handle_refused' && r.handle_id === minted.handle_id && r.reason === 'used_up'));
    assert.doesNotMatch(traceText(formation.member('owner').recordsDir), /phk_[A-Za-z0-9_-]{43}/);
  });

  test('a file of several chunks arrives whole and exact, with its length', async () => {
    const bytes = randomBytes(3 * 512 * 1024 + 77);
    writeFileSync(path.join(shared, 'large.bin'), bytes);
    const minted = await share('share', 'large.bin');
    const answer = await redeem(minted.url);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('content-length'), String(bytes.length));
    assert.ok(Buffer.from(await answer.arrayBuffer()).equals(bytes));
  });

  test('a wrong or missing x-murmur-audience is refused and takes no use; HEAD takes none either', async () => {
    const minted = await share('share', 'report.txt');
    await refused(await redeem(minted.url, 'owner'));
    await refused(await redeem(minted.url, null));
    await refused(await redeem(minted.url, 'Reader'));
    const head = await redeem(minted.url, 'reader', 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-length'), '22');
    assert.equal(head.headers.get('x-murmur-handle-id'), minted.handle_id);
    assert.equal(await head.text(), '');
    assert.equal((await redeem(minted.url)).status, 200);
    await refused(await redeem(minted.url));
    const reasons = traceOf(formation.member('owner').recordsDir)
      .filter((r) => r.type === 'peer_handle_refused' && r.handle_id === minted.handle_id)
      .map((r) => r.reason);
    assert.deepEqual(reasons, ['wrong_audience', 'wrong_audience', 'wrong_audience', 'used_up']);
  });

  test('uses: 2 allows two redeems; an expired handle (ttl_secs: 1) is refused', async () => {
    const twice = await share('twice', 'report.txt');
    assert.equal(twice.uses, 2);
    assert.equal((await redeem(twice.url)).status, 200);
    assert.equal((await redeem(twice.url)).status, 200);
    await refused(await redeem(twice.url));
    const short = await share('short', 'report.txt');
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    await refused(await redeem(short.url));
    assert.ok(
      traceOf(formation.member('owner').recordsDir).some((r) => r.type === 'peer_handle_refused' && r.handle_id === short.handle_id && r.reason === 'expired'),
    );
  });

  test('malformed and unknown handles, a file replaced after minting: the same refusal; other methods 405', async () => {
    const base = `${formation.member('owner').url}/resources/peer/`;
    for (const handle of ['', 'x', `phk_${'A'.repeat(43)}`, `phk_${'A'.repeat(42)}`, `phk_${'A'.repeat(43)}/x`, '%2e%2e%2freport.txt']) {
      await refused(await redeem(base + handle));
    }
    const post = await fetch(`${base}phk_${'A'.repeat(43)}`, { method: 'POST' });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET, HEAD');
    writeFileSync(path.join(shared, 'moving.txt'), 'first');
    const minted = await share('share', 'moving.txt');
    writeFileSync(path.join(shared, 'moving.next'), 'second');
    renameSync(path.join(shared, 'moving.next'), path.join(shared, 'moving.txt'));
    await refused(await redeem(minted.url));
  });

  test('a link swapped in after minting: out of the root, to another file, a folder on the way; the same file through a link is still it', async () => {
    const swap = async (name: string, change: () => void) => {
      const minted = await share('share', name);
      change();
      const answer = await redeem(minted.url);
      return { minted, status: answer.status, text: await answer.text() };
    };
    const outside = path.join(path.dirname(shared), 'secret.txt');
    writeFileSync(path.join(shared, 'swap-out.txt'), 'shared');
    const out = await swap('swap-out.txt', () => {
      renameSync(path.join(shared, 'swap-out.txt'), path.join(shared, 'swap-out.old'));
      symlinkSync(outside, path.join(shared, 'swap-out.txt'));
    });
    writeFileSync(path.join(shared, 'swap-in.txt'), 'shared');
    const inside = await swap('swap-in.txt', () => {
      renameSync(path.join(shared, 'swap-in.txt'), path.join(shared, 'swap-in.old'));
      symlinkSync('report.txt', path.join(shared, 'swap-in.txt'));
    });
    mkdirSync(path.join(shared, 'box'));
    writeFileSync(path.join(shared, 'box', 'f.txt'), 'shared');
    mkdirSync(path.join(path.dirname(shared), 'elsewhere'));
    writeFileSync(path.join(path.dirname(shared), 'elsewhere', 'f.txt'), 'outside the export root too');
    const folder = await swap('box/f.txt', () => {
      renameSync(path.join(shared, 'box'), path.join(shared, 'box.old'));
      symlinkSync('../elsewhere', path.join(shared, 'box'));
    });
    for (const [what, answer] of Object.entries({ out, inside, folder })) {
      assert.equal(answer.status, 404, what);
      assert.equal(answer.text, REFUSAL, what);
    }
    const reasons = traceOf(formation.member('owner').recordsDir)
      .filter((r) => r.type === 'peer_handle_refused')
      .map((r) => [r.handle_id, r.reason]);
    for (const { minted } of [out, inside, folder])
      assert.ok(
        reasons.some(([id, reason]) => id === minted.handle_id && reason === 'file_gone'),
        minted.handle_id,
      );
    // Moved within the root and its old name made a link to it: the path still resolves inside the root to the very
    // file minted (device and inode), so it is served.
    writeFileSync(path.join(shared, 'same.txt'), 'the same file');
    const same = await swap('same.txt', () => {
      renameSync(path.join(shared, 'same.txt'), path.join(shared, 'same.moved'));
      symlinkSync('same.moved', path.join(shared, 'same.txt'));
    });
    assert.equal(same.status, 200);
    assert.equal(same.text, 'the same file');
  });

  test("share-file's refusals are tool errors naming the rule", async () => {
    assert.match(await say(owner, 'share ../secret.txt reader'), /share-file: '\.\.\/secret\.txt' is not a path under exports\.peer_files\.root/);
    assert.match(await say(owner, 'share /etc/passwd reader'), /is not a path under exports\.peer_files\.root/);
    assert.match(
      await say(owner, 'share missing.txt reader'),
      /share-file: nothing can be shared at 'missing\.txt': it is not a regular file under exports\.peer_files\.root/,
    );
    assert.match(await say(owner, 'share sub reader'), /nothing can be shared at 'sub'/);
    assert.match(
      await say(owner, 'share report.txt nobody'),
      /peer_unreachable: 'nobody' is not a member this capsule may call \(members it may call: reader\)/,
    );
    assert.match(await say(owner, 'share report.txt owner'), /peer_unreachable: 'owner' is not a member/);
    assert.doesNotMatch(traceText(formation.member('owner').recordsDir), /outside the export root/);
  });

  test("fetch-peer-file stores the file in the reader's workdir; its refusals are tool errors", async () => {
    const workDir = path.join(formation.member('reader').recordsDir, 'work');
    const minted = await share('share', 'report.txt');
    const stored = JSON.parse(/\{"handle_id".*\}/.exec(await say(reader, `get ${minted.url} got/report.txt`))![0]) as {
      handle_id: string;
      path: string;
      size: number;
    };
    assert.deepEqual(stored, { handle_id: minted.handle_id, path: 'got/report.txt', size: 22 });
    assert.equal(readFileSync(path.join(workDir, 'got', 'report.txt'), 'utf8'), 'the quarterly numbers\n');
    // Used up now: the plane's refusal becomes the tool's error.
    assert.match(
      await say(reader, `get ${minted.url} again.txt`),
      /fetch-peer-file: the peer refused the handle: handle_not_found \(HTTP 404\): no file is shared under this handle for this audience/,
    );
    const fresh = await share('share', 'report.txt');
    assert.match(
      await say(reader, `get ${fresh.url} got/report.txt`),
      /'got\/report\.txt' already exists in the workdir; fetch-peer-file never replaces a file/,
    );
    assert.match(await say(reader, `get ${fresh.url} ../escape.txt`), /fetch-peer-file: '\.\.\/escape\.txt' is not a path under the workdir/);
    assert.match(await say(reader, 'get http://127.0.0.1:1/elsewhere x.txt'), /url is not a peer handle URL/);
    assert.match(
      await say(reader, `get ${fresh.url.replace('127.0.0.1', 'example.com')} x.txt`),
      /the handle's door is on example\.com, which capabilities\.network\.allow does not list; nothing was sent/,
    );
    // Past the size limit (1,024 bytes in this formation): refused, nothing stored, no temporary file left.
    const big = await share('share', 'big.bin');
    assert.match(await say(reader, `get ${big.url} big.bin`), /the file is 4096 bytes, past the 1024-byte limit; nothing was stored/);
    assert.equal(existsSync(path.join(workDir, 'big.bin')), false);
    assert.deepEqual(
      readdirSync(workDir).filter((n) => n.endsWith('.part')),
      [],
    );
    // The fresh handle was never redeemed by the refused calls: it still serves.
    assert.equal((await redeem(fresh.url)).status, 200);
    assert.doesNotMatch(traceText(formation.member('reader').recordsDir), /phk_[A-Za-z0-9_-]{43}/);
  });

  test('fetch-peer-file from a peer whose body breaks off stores nothing; one slower than the headers timeout is stored', async () => {
    // A stand-in for a peer plane: `short` announces 600 bytes and cuts the connection after 100 (as the plane does
    // when the file shrinks); `slow` sends its headers at once and the second half of its body after 10.5 s, past the
    // 10 s the tool waits for headers.
    const peer = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': '600', 'x-murmur-handle-id': 'hdl_0123456789abcdef0123456789abcdef' });
      res.write(Buffer.alloc(300, 1));
      if (req.url?.endsWith('A')) setTimeout(() => res.socket?.destroy(), 100);
      else setTimeout(() => res.end(Buffer.alloc(300, 2)), 10_500);
    });
    await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve));
    try {
      const address = peer.address();
      const base = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/resources/peer/phk_`;
      const workDir = path.join(formation.member('reader').recordsDir, 'work');
      assert.match(
        await say(reader, `get ${base}${'A'.repeat(43)} cut/short.bin`),
        /fetch-peer-file: the download broke off after 300 of 600 bytes \(.+\); nothing was stored/,
      );
      assert.equal(existsSync(path.join(workDir, 'cut', 'short.bin')), false);
      assert.deepEqual(readdirSync(path.join(workDir, 'cut')), []);
      const slow = await say(reader, `get ${base}${'B'.repeat(43)} slow.bin`);
      assert.match(slow, /"path":"slow\.bin","size":600/);
      assert.equal(readFileSync(path.join(workDir, 'slow.bin')).length, 600);
    } finally {
      peer.closeAllConnections();
      peer.close();
    }
  });

  test("fetch-peer-file's save_as never leaves the workdir: through a link a command left, and under a swap while the peer answers", async () => {
    const workDir = path.join(formation.member('reader').recordsDir, 'work');
    const outside = tempDir('outside');
    // What a command could have left in the workdir: a folder that is a link to a host folder.
    symlinkSync(outside, path.join(workDir, 'link-out'));
    const minted = await share('share', 'report.txt');
    assert.match(
      await say(reader, `get ${minted.url} link-out/deep/planted.txt`),
      /fetch-peer-file: 'link-out\/deep\/planted\.txt' leads outside the workdir or cannot be made under it/,
    );
    assert.deepEqual(readdirSync(outside), [], 'no folder was made outside before the refusal');
    // A peer that answers its headers at once and its body 500 ms later; meanwhile the target's folder is swapped
    // for a link out (as a racing command would). The file lands in the folder that was opened, never outside.
    let swapped = false;
    const peer = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': '5', 'x-murmur-handle-id': 'hdl_0123456789abcdef0123456789abcdef' });
      setTimeout(() => {
        renameSync(path.join(workDir, 'race'), path.join(workDir, 'race-parked'));
        symlinkSync(outside, path.join(workDir, 'race'));
        swapped = true;
        res.end('bytes');
      }, 500);
    });
    await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve));
    try {
      const port = (peer.address() as { port: number }).port;
      const answer = await say(reader, `get http://127.0.0.1:${port}/resources/peer/phk_${'C'.repeat(43)} race/landed.txt`);
      assert.ok(swapped, 'the folder was swapped while the peer answered');
      assert.match(answer, /"path":"race\/landed\.txt","size":5/);
      assert.deepEqual(readdirSync(outside), [], 'nothing was written outside');
      assert.equal(readFileSync(path.join(workDir, 'race-parked', 'landed.txt'), 'utf8'), 'bytes');
    } finally {
      peer.closeAllConnections();
      peer.close();
    }
  });

  test('end to end: owner shares, hands the URL to reader with call-member, reader fetches it', async () => {
    const text = await say(owner, 'handoff report.txt');
    assert.match(text, /"path":"inbox\/report\.txt","size":22/);
    assert.equal(readFileSync(path.join(formation.member('reader').recordsDir, 'work', 'inbox', 'report.txt'), 'utf8'), 'the quarterly numbers\n');
    const fetched = traceOf(formation.member('reader').recordsDir).filter((r) => r.type === 'peer_file_fetched' && r.path === 'inbox/report.txt');
    assert.equal(fetched.length, 1);
    assert.match(String(fetched[0].handle_id), /^hdl_[0-9a-f]{32}$/);
    assert.doesNotMatch(traceText(formation.member('owner').recordsDir), HANDLE_URL);
  });
});

describe('share-file to a member whose card is v0.4.0 (no supportedInterfaces)', () => {
  const home = tempDir('home');
  let server: Server;
  let url: string;
  before(async () => {
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ name: 'reader', url: 'http://localhost:1', version: '0.4.0' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  });
  after(() => server?.close());

  test('peer_unreachable: its card has no JSONRPC interface', async () => {
    const roster = makeFormation(ROSTER, { owner: { manifest: OWNER, script: OWNER_SCRIPT }, reader: { manifest: READER, script: READER_SCRIPT } });
    mkdirSync(path.join(path.dirname(roster), 'owner', 'shared'));
    writeFileSync(path.join(path.dirname(roster), 'owner', 'shared', 'a.txt'), 'a');
    const child = forkMember(roster, 'owner', home);
    try {
      const announced = await nextMessage<{ kind: string; url: string }>(child, 'announced');
      child.send({ kind: 'seat', accept: [], links: [{ member: 'reader', url, token: 'mur_unused' }], doors: [url] });
      await nextMessage(child, 'seated');
      const task = await new MurmurClient(announced.url).sendText('share a.txt reader');
      const text = task.artifacts?.find((a) => a.artifactId === 'response')?.parts[0].text ?? '';
      assert.match(text, /peer_unreachable: its card has no JSONRPC interface/);
      assert.doesNotMatch(text, /handle_id/);
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe('the peer plane on an authenticated door (seed 000 step 1: the handle is the credential)', () => {
  const home = tempDir('home');
  let server: Server;
  let cardUrl: string;
  before(async () => {
    // The audience's card, as a v1.0 member's: a JSONRPC interface, so share-file mints.
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ name: 'reader', version: '0.1.0', supportedInterfaces: [{ url: cardUrl, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    cardUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  });
  after(() => server?.close());

  test('a handle is redeemed without a door token (a wrong one is ignored); every other path still takes one', async () => {
    const secured = manifest('owner', [
      'capabilities:',
      '  network:',
      '    allow: [localhost]',
      'exports:',
      '  files:',
      '    root: shared',
      '  peer_files:',
      '    root: shared',
      ...authBlock({ files: ['resources/files'] }).split('\n'),
    ]);
    const roster = makeFormation(ROSTER, { owner: { manifest: secured, script: OWNER_SCRIPT }, reader: { manifest: READER, script: READER_SCRIPT } });
    mkdirSync(path.join(path.dirname(roster), 'owner', 'shared'));
    writeFileSync(path.join(path.dirname(roster), 'owner', 'shared', 'a.txt'), 'for the reader');
    const child = forkMember(roster, 'owner', home);
    try {
      const announced = await nextMessage<{ kind: string; url: string; recordsDir: string }>(child, 'announced');
      child.send({ kind: 'seat', accept: [], links: [{ member: 'reader', url: cardUrl, token: 'mur_unused' }], doors: [cardUrl] });
      await nextMessage(child, 'seated');
      const tokens = tokensOf(announced);
      // Sending the task takes the operator's token like any method.
      await assert.rejects(new MurmurClient(announced.url).sendText('twice a.txt reader'));
      const task = await new MurmurClient(announced.url, { token: tokens.operator }).sendText('twice a.txt reader');
      const text = task.artifacts?.find((a) => a.artifactId === 'response')?.parts[0].text ?? '';
      const url = HANDLE_URL.exec(text)?.[0];
      assert.ok(url, text);
      const first = await fetch(url, { headers: { 'x-murmur-audience': 'reader' } });
      assert.equal(first.status, 200);
      assert.equal(await first.text(), 'for the reader');
      const second = await fetch(url, { headers: { 'x-murmur-audience': 'reader', ...bearer('mur_not_a_token_of_this_door') } });
      assert.equal(second.status, 200);
      assert.equal(await second.text(), 'for the reader');
      // Used up: the plane's refusal, not the gate's 401; so are a made-up handle and another method.
      const third = await fetch(url, { headers: { 'x-murmur-audience': 'reader' } });
      assert.equal(third.status, 404);
      assert.equal(await third.text(), REFUSAL);
      const madeUp = await fetch(`${announced.url}/resources/peer/phk_${'B'.repeat(43)}`);
      assert.equal(madeUp.status, 404);
      assert.equal(await madeUp.text(), REFUSAL);
      assert.equal((await fetch(url, { method: 'DELETE' })).status, 405);
      // The operator plane of the same door, on the same file: the token, then the scope.
      const direct = `${announced.url}/resources/files/a.txt`;
      assert.equal((await fetch(direct)).status, 401);
      assert.equal((await fetch(direct, { headers: bearer('mur_not_a_token_of_this_door') })).status, 401);
      const served = await fetch(direct, { headers: bearer(tokens.files) });
      assert.equal(served.status, 200);
      assert.equal(await served.text(), 'for the reader');
      // A path that only looks like the peer plane is not it: the gate answers.
      assert.equal((await fetch(`${announced.url}/resources/peerx/phk_${'B'.repeat(43)}`)).status, 401);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
