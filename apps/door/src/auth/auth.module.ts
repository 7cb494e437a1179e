import { Module } from '@nestjs/common';
import { SESSION_CONTEXT, type SessionContext } from '../session/session-context.js';
import { RequestGate } from './request-gate.js';
import { TokenRegistry } from './token-registry.js';
import { mintTokens, writeTokens } from './tokens.js';

/**
 * network.authentication: on an authenticated door the tokens are minted when the module starts, written to the
 * records folder (mode 0600) for `mur token`, and held only as digests.
 */
@Module({
  providers: [
    {
      provide: RequestGate,
      useFactory: (s: SessionContext) => {
        if (!s.manifest.network.authentication) return new RequestGate(s, null);
        const tokens = mintTokens(s.manifest);
        writeTokens(s.recordsDir, tokens);
        return new RequestGate(s, new TokenRegistry(tokens));
      },
      inject: [SESSION_CONTEXT],
    },
  ],
  exports: [RequestGate],
})
export class AuthModule {}
