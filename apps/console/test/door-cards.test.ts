import { HttpRefusalError } from '@murmur/client';
import type { AgentCard } from '@murmur/protocol';
import { describe, expect, it } from 'vitest';
import { DoorCards } from '../src/lib/door/door-cards.svelte';
import type { Problem } from '../src/lib/io/errors';
import { fakeClient } from './support/fake-client';

const card = (name: string, extended = true) =>
  ({ name, version: '0.1.0', capabilities: { extendedAgentCard: extended }, securityRequirements: [{ schemes: {} }] }) as unknown as AgentCard;

function setup(token: string | null = 'mur_t', proxyToken = false) {
  const { client } = fakeClient();
  const reported: Problem[] = [];
  const cards = new DoorCards({ door: '127.0.0.1:1', client: () => client, token: () => token, proxyToken: () => proxyToken, report: (p) => reported.push(p) });
  return { client, cards, reported };
}

describe('DoorCards', () => {
  it('reads the public and, with a token, the extended card', async () => {
    const { client, cards } = setup();
    client.getCard.mockResolvedValue(card('public'));
    client.getExtendedCard.mockResolvedValue(card('extended'));
    await cards.load();
    expect([cards.public?.name, cards.extended?.name, cards.extendedNote, cards.authenticated]).toEqual(['public', 'extended', null, true]);
  });

  it("reads the extended card without a token in the page when mur console's proxy sends one (--token-file)", async () => {
    const { client, cards } = setup(null, true);
    client.getCard.mockResolvedValue(card('public'));
    client.getExtendedCard.mockResolvedValue(card('extended'));
    await cards.load();
    expect([cards.extended?.name, cards.extendedNote]).toEqual(['extended', null]);
  });

  it('keeps the card it read when a read fails, and says why', async () => {
    const { client, cards } = setup(null);
    client.getCard.mockResolvedValueOnce(card('public')).mockRejectedValueOnce(new TypeError('fetch failed'));
    await cards.load();
    await cards.load();
    expect(cards.public?.name).toBe('public');
    expect(cards.problem?.title).toBe('fetch failed');
    expect(cards.extendedNote).toBe('Give a token to read the extended card.');
  });

  it('reports a refused token met reading the extended card, and notes it', async () => {
    const { client, cards, reported } = setup();
    client.getCard.mockResolvedValue(card('public'));
    client.getExtendedCard.mockRejectedValue(
      new HttpRefusalError({ status: 401, wwwAuthenticate: 'Bearer', code: 'unauthenticated', message: 'token refused' }),
    );
    await cards.load();
    expect(cards.extended).toBeNull();
    expect(reported.map((p) => p.needsToken)).toEqual([true]);
    expect(cards.extendedNote).toBe('This door needs a token: token refused');
  });

  it('lets only the newest read land; forgetExtended and reset forget what a token read', async () => {
    const { client, cards } = setup();
    let first: (c: AgentCard) => void = () => {};
    client.getCard.mockImplementationOnce(() => new Promise((r) => (first = r))).mockResolvedValue(card('newer'));
    client.getExtendedCard.mockResolvedValue(card('extended'));
    const older = cards.load();
    await cards.load();
    first(card('older'));
    await older;
    expect(cards.public?.name).toBe('newer');
    expect(client.getExtendedCard).toHaveBeenCalledTimes(1);
    cards.forgetExtended();
    expect(cards.extended).toBeNull();
    await cards.load();
    cards.reset();
    expect([cards.extended, cards.extendedNote]).toEqual([null, null]);
    expect(cards.public?.name).toBe('newer');
  });
});
