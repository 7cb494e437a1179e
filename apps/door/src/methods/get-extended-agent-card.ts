import { Inject, Injectable } from '@nestjs/common';
import { METHOD } from '@murmur/protocol';
import { EXTENDED_CARD_CACHE_CONTROL } from '../card/card-cache.js';
import { CardService } from '../card/card.service.js';
import type { RpcAnswer, RpcMethod } from '../rpc/rpc-context.js';

/** GetExtendedAgentCard: the extended card, to any valid token (only an authenticated door serves it). */
@Injectable()
export class GetExtendedAgentCardMethod implements RpcMethod {
  readonly method = METHOD.GetExtendedAgentCard;

  constructor(@Inject(CardService) private readonly card: CardService) {}

  async handle(): Promise<RpcAnswer> {
    const card = this.card.extendedCard();
    // A POST is answered 200 whatever If-None-Match says (seed 000: every JSON-RPC answer is 200); the ETag lets a
    // caller tell a changed card from the one it holds.
    return { resultJson: card.json, headers: { 'cache-control': EXTENDED_CARD_CACHE_CONTROL, etag: card.etag } };
  }
}
