import path from 'node:path';
import { Module } from '@nestjs/common';
import { PeerHandles } from '../peers/peer-handles.js';
import { SESSION_CONTEXT, type SessionContext } from '../session/session-context.js';
import { SessionModule } from '../session/session.module.js';
import { TraceWriter } from '../records/trace-writer.js';
import { OUTBOUND_TRACING, type OutboundTracing } from '../egress/outbound-tracing.js';
import { QuotaWindows } from '../usage/quota-windows.js';
import { UsageLedger } from '../usage/usage-ledger.js';
import { SpendCeilings } from '../usage/spend-ceilings.js';
import { BackgroundCommands } from './background-commands.js';
import { ProcessRegistry } from './process-registry.js';
import { SessionSandbox } from './sandbox/session-sandbox.js';
import { DELEGATE_PORT, type DelegatePort, DriverSelection, MEMBER_CALL_PORT, type MemberCallPort } from './runtime/index.js';
import { ToolDispatcher } from './tool-dispatcher.js';
import { artifactRecord } from './artifacts/artifact-installer.js';
import { SessionArtifacts } from './artifacts/installed-artifacts.js';
import { stageArtifacts } from './artifacts/stage-artifacts.js';
import { WasmHost } from './wasm/wasm-host.js';

@Module({
  imports: [SessionModule],
  providers: [
    { provide: BackgroundCommands, useFactory: () => new BackgroundCommands() },
    {
      provide: ProcessRegistry,
      useFactory: (s: SessionContext) => new ProcessRegistry(path.join(s.recordsDir, 'processes'), s.sessionId),
      inject: [SESSION_CONTEXT],
    },
    // Every command's sandbox, proven to run before the door starts (docs/sandbox.md).
    { provide: SessionSandbox, useFactory: (s: SessionContext) => SessionSandbox.forSession(s), inject: [SESSION_CONTEXT] },
    // The driver choice serving inference calls: switch-driver changes it, the agent loop reads it (docs/drivers.md).
    { provide: DriverSelection, useFactory: (s: SessionContext) => new DriverSelection(s.manifest, s.capsuleDir, s.settings), inject: [SESSION_CONTEXT] },
    {
      provide: ToolDispatcher,
      // Staging: every tool of the inventory gets its manifest under the session's runtime folder (seed 004).
      useFactory: async (
        session: SessionContext,
        background: BackgroundCommands,
        processes: ProcessRegistry,
        trace: TraceWriter,
        usage: UsageLedger,
        quota: QuotaWindows,
        spend: SpendCeilings,
        drivers: DriverSelection,
        handles: PeerHandles,
        sandbox: SessionSandbox,
        memberCalls?: MemberCallPort,
        delegations?: DelegatePort,
        tracing?: OutboundTracing,
      ) => {
        const bounds = session.manifest.capabilities.wasm;
        const wasm = new WasmHost({ maxSecs: bounds.max_secs, maxMemoryMib: bounds.max_memory_mib });
        // Declared artifacts first (docs/artifacts.md): a refusal stops the launch before anything is served.
        const declared = await stageArtifacts(session, wasm);
        for (const artifact of declared) trace.write('artifact_staged', artifactRecord(artifact));
        const artifacts = new SessionArtifacts(declared);
        const dispatcher = new ToolDispatcher({
          session,
          background,
          processes,
          sandbox,
          trace,
          usage,
          quota,
          spend,
          drivers,
          handles,
          memberCalls: memberCalls ?? null,
          delegations: delegations ?? null,
          tracing,
          artifacts,
          wasm,
        });
        dispatcher.inventory.stage(session.runtimeDir);
        return dispatcher;
      },
      // The member calls and delegations come from formations/ (provided by app.module.ts under this layer's token), absent outside a formation;
      // the outbound tracing from telemetry/, bound by app.module.ts under egress/'s token.
      inject: [
        SESSION_CONTEXT,
        BackgroundCommands,
        ProcessRegistry,
        TraceWriter,
        UsageLedger,
        QuotaWindows,
        SpendCeilings,
        DriverSelection,
        PeerHandles,
        SessionSandbox,
        { token: MEMBER_CALL_PORT, optional: true },
        { token: DELEGATE_PORT, optional: true },
        { token: OUTBOUND_TRACING, optional: true },
      ],
    },
  ],
  exports: [BackgroundCommands, ProcessRegistry, SessionSandbox, ToolDispatcher, DriverSelection],
})
export class ToolsModule {}
