import { Module } from '@nestjs/common';
import { TraceWriter } from '../records/trace-writer.js';
import { DoorLog } from './door-log.js';
import { SESSION_CONTEXT, type SessionContext } from './session-context.js';
import { UsageLedger } from '../usage/usage-ledger.js';
import { PeerHandles } from '../peers/peer-handles.js';

/** The session's records: its trace and its door log; and its token usage over the inference records. */
@Module({
  providers: [
    { provide: TraceWriter, useFactory: (s: SessionContext) => new TraceWriter(s.recordsDir), inject: [SESSION_CONTEXT] },
    { provide: DoorLog, useFactory: (s: SessionContext) => new DoorLog(s.recordsDir), inject: [SESSION_CONTEXT] },
    { provide: UsageLedger, useFactory: () => new UsageLedger() },
    // The peer handles share-file mints (tools/) and the peer plane redeems (planes/): in memory, one per door.
    { provide: PeerHandles, useFactory: () => new PeerHandles() },
  ],
  exports: [TraceWriter, DoorLog, UsageLedger, PeerHandles],
})
export class SessionModule {}
