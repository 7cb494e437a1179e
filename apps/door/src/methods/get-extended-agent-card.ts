import { Inject, Injectable } from '@nestjs/common';
import { METHOD } from '@murmur/protocol';
import { CardService } from '../card/card.service.js';
import type { RpcAnswer, RpcMethod } from '../rpc/rpc-context.js';

/** GetExtendedAgentCard: the extended card, to any valid token (only an authenticated door serves it). */
@Injectable()
export class GetExtendedAgentCardMethod implements RpcMethod {
  readonly method = METHOD.GetExtendedAgentCard;

  constructor(@Inject(CardService) private readonly card: CardService) {}

  async handle(): Promise<RpcAnswer> {
    return { result: this.card.extendedCard() };
  }
}
