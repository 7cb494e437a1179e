import { Module } from '@nestjs/common';
import { TraceWriter } from '../records/trace-writer.js';
import { DoorLog } from './door-log.js';
import { SESSION_CONTEXT, type SessionContext } from './session-context.js';
import { QuotaWindows } from '../usage/quota-windows.js';
import { UsageLedger } from '../usage/usage-ledger.js';
import { PeerHandles } from '../peers/peer-handles.js';
import path from 'node:path';
import { MachineLedger } from '../usage/machine-ledger.js';
import { SpendCeilings } from '../usage/spend-ceilings.js';

/** The session's records: its trace and its door log; its token usage over the inference records and its spend ceilings. */
@Module({
  providers: [
    { provide: TraceWriter, useFactory: (s: SessionContext) => new TraceWriter(s.recordsDir), inject: [SESSION_CONTEXT] },
    { provide: DoorLog, useFactory: (s: SessionContext) => new DoorLog(s.recordsDir), inject: [SESSION_CONTEXT] },
    { provide: UsageLedger, useFactory: () => new UsageLedger() },
    // A harness's subscription windows, for session-status and the quota frame (docs/harness.md).
    { provide: QuotaWindows, useFactory: () => new QuotaWindows() },
    // The spend ceilings over the session's usage and the host's day ledger in MURMUR_HOME (docs/agent-loop.md).
    {
      provide: SpendCeilings,
      useFactory: (s: SessionContext, usage: UsageLedger) =>
        new SpendCeilings(
          { session: s.manifest.inference?.max_session_tokens ?? null, machine: s.manifest.spend.machine_tokens_per_day ?? null },
          usage,
          new MachineLedger(path.join(s.settings.home, 'spend'), s.sessionId),
        ),
      inject: [SESSION_CONTEXT, UsageLedger],
    },
    // The peer handles share-file mints (tools/) and the peer plane redeems (planes/): in memory, one per door.
    { provide: PeerHandles, useFactory: () => new PeerHandles() },
  ],
  exports: [TraceWriter, DoorLog, UsageLedger, QuotaWindows, SpendCeilings, PeerHandles],
})
export class SessionModule {}
