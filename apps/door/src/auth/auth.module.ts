import { Module } from '@nestjs/common';
import { SESSION_CONTEXT, type SessionContext } from '../session/session-context.js';
import { ControlGate, mintControlToken, writeControlToken } from './control-token.js';
import { RequestGate } from './request-gate.js';
import { TokenRegistry } from './token-registry.js';
import { mintTokens, writeTokens } from './tokens.js';

/**
 * network.authentication: on an authenticated door the tokens are minted when the module starts, written to the
 * records folder (mode 0600) for `mur token`, and held only as digests. Every door also mints its control token.
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
    {
      // Every door, public or not, mints its control token at launch (docs/control.md).
      provide: ControlGate,
      useFactory: (s: SessionContext, gate: RequestGate) => {
        const token = mintControlToken();
        writeControlToken(s.recordsDir, token);
        return new ControlGate(token, (t) => gate.isDoorToken(t));
      },
      inject: [SESSION_CONTEXT, RequestGate],
    },
  ],
  exports: [RequestGate, ControlGate],
})
export class AuthModule {}
