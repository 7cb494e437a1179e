/**
 * Malformed Authorization headers, fuzzed from a seeded PRNG (seed 000, "What the door answers", step 2): random
 * schemes, spacing, Unicode (sent as UTF-8 bytes), values up to 16 KB, the control characters an HTTP client may
 * send, and repeated lines. The door never answers 5xx, never lets a request past step 2 without a valid token,
 * and refuses each with a 401 JSON body. Set AUTH_FUZZ_SEED to replay another run.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  assertInvalidToken,
  assertRpcResult,
  authBlock,
  bearer,
  CARD_PATH,
  envelope,
  prng,
  RPC_HEADERS,
  type RawRequest,
  raw,
  tokensOf,
} from './support/auth.js';
import { type DoorProcess, makeCapsule, manifestYaml, runDoor } from './support/door-process.js';

const REALM = 'fuzz';
const SEED = Number(process.env.AUTH_FUZZ_SEED ?? 0x0a2a1001);
const CASES = 200;
/** Node's server refuses a header section over 16 KiB (431) before any door code runs; values stay below it. */
const MAX_VALUE_BYTES = 16_000;

let door: DoorProcess;
let tokens: string[];

before(async () => {
  door = await runDoor(
    makeCapsule(manifestYaml({ name: REALM, extra: authBlock({ reader: ['ListTasks', 'GetTask'] }) }), 'default:\n  turns:\n    - answer: ok\n'),
  );
  tokens = Object.values(tokensOf(door));
});
after(async () => {
  await door?.stop();
});

/** UTF-8 bytes of `text` as a latin1 string: what node:http writes byte for byte. */
const utf8Bytes = (text: string) => Buffer.from(text, 'utf8').toString('latin1');

interface Case {
  kind: string;
  /** One header line per element; the header is sent under `name`. */
  lines: string[];
  name: string;
  request: 'list' | 'send' | 'get-root' | 'post-path' | 'files';
}

function generator(seed: number) {
  const rand = prng(seed);
  const int = (n: number) => Math.floor(rand() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)];
  const ascii = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/=';
  const printable = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)).join('');
  /** Characters beyond ASCII, as text (sent as their UTF-8 bytes). */
  const unicode = ['é', 'ß', 'Ω', 'Б', 'е', 'а', '中', '文', '😀', '\u200b', '\u200e', '\u202e', '\u0301', 'Ｂ', 'ｅ', '\ufeff', '\u00a0', 'ﬀ', 'İ', 'K'];
  /** The control characters node:http lets a value carry: tab, and the C1 range as single bytes. */
  const controls = ['\t', '\x80', '\x85', '\x9b', '\x9f', '\xa0', '\xff'];
  const randomString = (alphabet: string, n: number) => Array.from({ length: n }, () => alphabet[int(alphabet.length)]).join('');
  const schemes = [
    'Bearer',
    'bearer',
    'BEARER',
    'Basic',
    'Digest',
    'Token',
    'Bearer:',
    'Bear',
    'Bearerx',
    'Bearer,',
    'MAC',
    'Negotiate',
    'OAuth',
    'B',
    'bearer=',
    'Bearer;',
  ];

  /** A token that is not one this session minted: a valid one changed, or a new one. */
  const wrongToken = (): string => {
    const t = pick(tokens);
    switch (int(8)) {
      case 0:
        return t + pick([...ascii]);
      case 1:
        return t.slice(0, -1 - int(4));
      case 2: {
        const i = 4 + int(t.length - 4);
        const c = t[i];
        const flipped = c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase();
        return flipped === c ? `${t.slice(0, i)}${c === '0' ? '1' : '0'}${t.slice(i + 1)}` : t.slice(0, i) + flipped + t.slice(i + 1);
      }
      case 3: {
        const i = int(t.length);
        return t.slice(0, i) + utf8Bytes(pick(unicode)) + t.slice(i);
      }
      case 4:
        return `mur_${randomString(ascii, 43)}`;
      case 5:
        return randomString(printable, 1 + int(80));
      case 6:
        return `${t} ${pick(tokens)}`;
      default:
        return t.toUpperCase();
    }
  };

  const cases: Case[] = [];
  for (let i = 0; i < CASES; i++) {
    const request = pick(['list', 'list', 'list', 'send', 'get-root', 'post-path', 'files'] as const);
    const name = pick(['authorization', 'Authorization', 'AUTHORIZATION', 'aUtHoRiZaTiOn']);
    const kind = pick(['scheme', 'spacing', 'unicode', 'long', 'control', 'lines', 'empty', 'valid-token-bad-scheme'] as const);
    let lines: string[];
    switch (kind) {
      case 'scheme':
        lines = [`${pick(schemes)}${pick([' ', ' ', '=', ':', ''])}${int(2) ? wrongToken() : randomString(ascii, 1 + int(64))}`];
        break;
      case 'spacing':
        lines = [
          `${pick(['', ' ', '  ', '\t'])}${pick(['Bearer', 'bearer'])}${pick([' ', '  ', '   ', '\t', ' \t', '\t '])}${wrongToken()}${pick(['', ' ', '  ', '\t'])}`,
        ];
        break;
      case 'unicode': {
        const scheme = int(2) ? 'Bearer' : utf8Bytes(pick(['Веаrer', 'Ｂｅａｒｅｒ', 'Bearer\u200b', 'Bеarer', 'ßearer', 'BEARER\u0301']));
        const token = int(2) ? wrongToken() : utf8Bytes(Array.from({ length: 1 + int(40) }, () => pick(unicode)).join(''));
        lines = [`${scheme} ${token}`];
        break;
      }
      case 'long': {
        const length = 1024 + int(MAX_VALUE_BYTES - 1024 - 64);
        const filler = int(3) === 0 ? 'A'.repeat(length) : randomString(ascii, length);
        lines = [int(2) ? `Bearer ${pick(tokens)}${filler}` : `${pick(schemes)} ${filler}`];
        break;
      }
      case 'control': {
        const t = wrongToken();
        const at = int(t.length + 1);
        lines = [`Bearer ${t.slice(0, at)}${pick(controls)}${t.slice(at)}`];
        if (int(2)) lines = [`Bearer${pick(controls)}${wrongToken()}`];
        break;
      }
      case 'lines':
        // More than one line is refused whatever the lines hold, valid ones included.
        lines = Array.from({ length: 2 + int(3) }, () => (int(2) ? `Bearer ${pick(tokens)}` : `${pick(schemes)} ${wrongToken()}`));
        break;
      case 'empty':
        lines = [pick(['', ' ', '\t', '  \t ', 'Bearer', 'Bearer ', 'bearer\t', ' Bearer '])];
        break;
      default:
        // A minted token behind something that is not the Bearer scheme.
        lines = [`${pick(['Basic', 'Token', 'Bearerr', 'Bear', 'MAC', 'Bearer:', 'Bearer='])} ${pick(tokens)}`];
        if (int(3) === 0) lines = [pick(tokens)];
    }
    cases.push({ kind, lines, name, request });
  }
  return cases;
}

function requestFor(c: Case): RawRequest {
  const headers: Record<string, string | string[]> = { [c.name]: c.lines.length === 1 ? c.lines[0] : c.lines };
  switch (c.request) {
    case 'list':
      return { method: 'POST', path: '/', headers: { ...RPC_HEADERS, ...headers }, body: envelope('ListTasks', {}) };
    case 'send':
      return {
        method: 'POST',
        path: '/',
        headers: { ...RPC_HEADERS, ...headers },
        body: envelope('SendMessage', { message: { messageId: 'f', role: 'ROLE_USER', parts: [{ text: 'x' }] } }),
      };
    case 'get-root':
      return { method: 'GET', path: '/', headers };
    case 'post-path':
      return { method: 'POST', path: '/x/y', headers: { ...RPC_HEADERS, ...headers }, body: envelope('ListTasks', {}) };
    default:
      return { method: 'GET', path: '/resources/files/a.txt', headers };
  }
}

/** Whether the door would rightly let this header through: exactly one line, Bearer in any case, a minted token. */
function isValid(lines: string[]): boolean {
  if (lines.length !== 1) return false;
  const value = lines[0].replace(/^[ \t]+|[ \t]+$/g, '');
  const m = /^bearer (.*)$/i.exec(value);
  return m !== null && tokens.includes(m[1]);
}

describe(`fuzzed Authorization headers (seed ${SEED})`, () => {
  test(`${CASES} cases: never 5xx, never past step 2 without a valid token, always a 401 JSON body`, async () => {
    const cases = generator(SEED);
    const kinds = new Map<string, number>();
    let accepted = 0;
    for (let i = 0; i < cases.length; i += 8) {
      const batch = cases.slice(i, i + 8);
      const answers = await Promise.all(batch.map((c) => raw(door.url, requestFor(c))));
      for (const [j, answer] of answers.entries()) {
        const c = batch[j];
        kinds.set(c.kind, (kinds.get(c.kind) ?? 0) + 1);
        const what = `case ${i + j} (${c.kind}, ${c.request}, ${c.name}: ${JSON.stringify(c.lines).slice(0, 200)})`;
        assert.ok(answer.status < 500, `${what}: ${answer.status} ${answer.text}`);
        if (isValid(c.lines)) {
          accepted++;
          assert.notEqual(answer.status, 401, `${what}: a valid token is let in`);
          continue;
        }
        assert.notEqual(answer.status, 200, `${what}: no bypass: ${answer.text.slice(0, 200)}`);
        assertInvalidToken(answer, REALM, what);
      }
    }
    assert.ok(accepted <= CASES / 10, `the generator makes malformed headers (${accepted} were valid)`);
    for (const kind of ['scheme', 'spacing', 'unicode', 'long', 'control', 'lines', 'empty', 'valid-token-bad-scheme'])
      assert.ok((kinds.get(kind) ?? 0) > 5, `${kind} cases were played`);
  });

  test('the door is still serving after the fuzz, and logged no failure', async () => {
    const answer = await raw(door.url, { method: 'POST', path: '/', headers: { ...RPC_HEADERS, ...bearer(tokens[1]) }, body: envelope('ListTasks', {}) });
    assertRpcResult(answer, 'ListTasks after the fuzz');
    const card = await raw(door.url, { method: 'GET', path: CARD_PATH });
    assert.equal(card.status, 200);
    assert.doesNotMatch(door.stderr(), /error|exception/i);
  });

  test('an Authorization value longer than the server’s header limit is refused before the door: 431, never 5xx or 200', async () => {
    for (const value of [`Bearer ${tokens[0]}${'A'.repeat(16_384)}`, `Bearer ${'x'.repeat(20_000)}`]) {
      const answer = await raw(door.url, { method: 'POST', path: '/', headers: { ...RPC_HEADERS, authorization: value }, body: envelope('ListTasks', {}) });
      assert.equal(answer.status, 431, answer.text);
    }
  });
});
