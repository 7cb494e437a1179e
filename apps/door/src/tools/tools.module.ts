import { Module } from '@nestjs/common';
import { SESSION_CONTEXT, type SessionContext } from '../session/session-context.js';
import { BackgroundCommands } from './background-commands.js';
import { ToolDispatcher } from './tool-dispatcher.js';

@Module({
  providers: [
    { provide: BackgroundCommands, useFactory: () => new BackgroundCommands() },
    { provide: ToolDispatcher, useFactory: (s: SessionContext, b: BackgroundCommands) => new ToolDispatcher(s, b), inject: [SESSION_CONTEXT, BackgroundCommands] },
  ],
  exports: [BackgroundCommands, ToolDispatcher],
})
export class ToolsModule {}
