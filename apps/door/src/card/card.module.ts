import { Module } from '@nestjs/common';
import { SESSION_CONTEXT, type SessionContext } from '../session/session-context.js';
import { ToolDispatcher } from '../tools/tool-dispatcher.js';
import { ToolsModule } from '../tools/tools.module.js';
import { CardService } from './card.service.js';

/** The agent card: derived from what the door serves and what the capsule may do. */
@Module({
  imports: [ToolsModule],
  providers: [{ provide: CardService, useFactory: (s: SessionContext, t: ToolDispatcher) => new CardService(s, t), inject: [SESSION_CONTEXT, ToolDispatcher] }],
  exports: [CardService],
})
export class CardModule {}
