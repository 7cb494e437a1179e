import { Module } from '@nestjs/common';
import { SESSION_CONTEXT, type SessionContext } from '../session/session-context.js';
import { CardService } from './card.service.js';
import { SHELL_BINARIES, type ShellBinaries } from './shell-binaries.js';

/** The agent card: derived from what the door serves and what the capsule may do. */
@Module({
  providers: [{ provide: CardService, useFactory: (s: SessionContext, b: ShellBinaries) => new CardService(s, b), inject: [SESSION_CONTEXT, SHELL_BINARIES] }],
  exports: [CardService],
})
export class CardModule {}
