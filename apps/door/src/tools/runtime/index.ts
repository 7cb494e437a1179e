import type { JsonObject } from '@murmur/protocol';
import type { Manifest } from '../../manifest/manifest.schema.js';
import type { SessionContext } from '../../session/session-context.js';
import type { TraceWriter } from '../../records/trace-writer.js';
import type { OutboundTracing } from '../../egress/outbound-tracing.js';
import type { PeerHandles } from '../../peers/peer-handles.js';
import type { QuotaWindows } from '../../usage/quota-windows.js';
import type { UsageLedger } from '../../usage/usage-ledger.js';
import type { SpendCeilings } from '../../usage/spend-ceilings.js';
import type { BackgroundCommands } from '../background-commands.js';
import type { DriverSelection } from './driver-selection.js';
import {
  callMemberDescription,
  callMemberSchema,
  END_WITHOUT_ANSWER_CHECKED_SCHEMA,
  END_WITHOUT_ANSWER_DESCRIPTION,
  END_WITHOUT_ANSWER_SCHEMA,
  type MemberCallPort,
} from './call-member.js';
import { BACKGROUND_COMMAND_DESCRIPTION, BACKGROUND_COMMAND_SCHEMA, backgroundCommandGranted, runBackgroundCommand } from './background-command.js';
import type { ToolCallContext } from '../tool-call.js';
import type { ArtifactInstaller } from '../artifacts/artifact-installer.js';
import { installGranted, PULL_ARTIFACT_SCHEMA, pullArtifactDescription, REMOVE_ARTIFACT_DESCRIPTION, REMOVE_ARTIFACT_SCHEMA } from './pull-artifact.js';
import { type DelegatePort, delegateTaskDescription, delegateTaskSchema } from './delegate-task.js';
import { FETCH_PEER_FILE_DESCRIPTION, FETCH_PEER_FILE_SCHEMA, fetchPeerFileGranted, runFetchPeerFile } from './fetch-peer-file.js';
import { runShareFile, SHARE_FILE_DESCRIPTION, SHARE_FILE_SCHEMA, shareFileGranted } from './share-file.js';
import type { RuntimeToolName, RuntimeToolRun } from './runtime-tools.js';
import { inputTimeoutText, REQUEST_INPUT_SCHEMA, requestInputDescription, requestInputGranted, runRequestInput } from './request-input.js';
import { runPlan, type StepDispatch } from './plan-run.js';
import { readPlan, SUBMIT_PLAN_CHECKED_SCHEMA, SUBMIT_PLAN_DESCRIPTION, SUBMIT_PLAN_SCHEMA, submitPlanGranted } from './submit-plan.js';
import { runSessionStatus, SESSION_STATUS_DESCRIPTION, SESSION_STATUS_SCHEMA, sessionStatusGranted } from './session-status.js';
import { refuseSwitch, runSwitchDriver, switchDriverDescription, switchDriverGranted, switchDriverSchema } from './switch-driver.js';

/** A runtime tool this runtime implements: its inventory entry, whether the manifest grants it, and how a call runs. */
export interface RuntimeTool {
  description: string;
  inputSchema: JsonObject;
  /** What a call's input is checked against before it runs, when the tool makes some of inputSchema's checks itself (in its seed's order); inputSchema when absent. */
  checkedSchema?: JsonObject;
  granted(manifest: Manifest): boolean;
  run: RuntimeToolRun;
  /** Told when the dispatcher refused a call's input against inputSchema (the tool did not run). */
  inputRefused?(input: Record<string, unknown>, reason: string, ctx: ToolCallContext): void;
}

export interface RuntimeToolDeps {
  session: SessionContext;
  background: BackgroundCommands;
  trace: TraceWriter;
  usage: UsageLedger;
  /** A harness's subscription windows (transport: process), which session-status reports. */
  quota: QuotaWindows | null;
  spend: SpendCeilings;
  drivers: DriverSelection;
  /** A formation member's calls, when roster.yaml lets it call another member; else null. */
  memberCalls: MemberCallPort | null;
  /** The session's delegations, when capabilities.spawn.allow names a sub-capsule; else null. */
  delegations: DelegatePort | null;
  /** The peer handles share-file mints and the peer plane redeems. */
  handles: PeerHandles;
  /** Client spans for the runtime's outbound requests: capsule steps, fetch-peer-file, share-file's card read (docs/telemetry.md). */
  tracing: OutboundTracing;
  /** Who owns what the runtime tools write into the workdir: the session's own user when the door is root (docs/sandbox.md), else null. */
  fileOwner: number | null;
  /** What a plan's tool steps run through: the dispatcher, and its refusal of a tool this session does not have. */
  plans: { dispatch: StepDispatch; missing: (name: string) => string | null };
  /** pull-artifact's and remove-artifact's work (docs/artifacts.md). */
  installer: ArtifactInstaller;
}

export { inputTimeoutText };

/** The runtime tools implemented so far, by name: the dispatcher looks a call up here instead of branching on names. */
export function runtimeTools(deps: RuntimeToolDeps): Partial<Record<RuntimeToolName, RuntimeTool>> {
  return {
    'share-file': {
      description: SHARE_FILE_DESCRIPTION,
      inputSchema: SHARE_FILE_SCHEMA,
      granted: shareFileGranted,
      run: (input, ctx) => runShareFile(input, deps, ctx),
    },
    'fetch-peer-file': {
      description: FETCH_PEER_FILE_DESCRIPTION,
      inputSchema: FETCH_PEER_FILE_SCHEMA,
      granted: fetchPeerFileGranted,
      run: (input, ctx) => runFetchPeerFile(input, { ...deps, maxBytes: deps.session.settings.peerFetchMaxBytes, owner: deps.fileOwner }, ctx),
    },
    'session-status': {
      description: SESSION_STATUS_DESCRIPTION,
      inputSchema: SESSION_STATUS_SCHEMA,
      granted: sessionStatusGranted,
      run: (_input, ctx) => runSessionStatus({ ...deps, quota: deps.quota ?? undefined }, ctx),
    },
    'switch-driver': {
      description: switchDriverDescription(deps.drivers),
      inputSchema: switchDriverSchema(deps.drivers),
      granted: switchDriverGranted,
      run: (input, ctx) => runSwitchDriver(input, deps, ctx),
      inputRefused: (input, reason, ctx) => refuseSwitch(deps, input.driver, reason, ctx),
    },
    'request-input': {
      description: requestInputDescription(deps.session.manifest.lifecycle.input_timeout_secs),
      inputSchema: REQUEST_INPUT_SCHEMA,
      granted: requestInputGranted,
      run: (input, ctx) => runRequestInput(input, ctx, deps.session.manifest.lifecycle.input_timeout_secs),
    },
    'submit-plan': {
      description: SUBMIT_PLAN_DESCRIPTION,
      inputSchema: SUBMIT_PLAN_SCHEMA,
      checkedSchema: SUBMIT_PLAN_CHECKED_SCHEMA,
      granted: submitPlanGranted,
      run: (input, ctx) => {
        const { session } = deps;
        const steps = readPlan(input, { missing: deps.plans.missing, allow: session.manifest.capabilities.network.allow });
        const deadlineSecs = session.manifest.lifecycle.delegation_deadline_secs ?? session.settings.delegationTimeoutSecs;
        return runPlan(steps, ctx.toolCallId ?? '', ctx, { dispatch: deps.plans.dispatch, trace: deps.trace, deadlineSecs, tracing: deps.tracing });
      },
    },
    'pull-artifact': {
      description: pullArtifactDescription(deps.installer.installGrant),
      inputSchema: PULL_ARTIFACT_SCHEMA,
      granted: installGranted,
      run: (input, ctx) => deps.installer.pull(String(input.artifact), ctx),
    },
    'remove-artifact': {
      description: REMOVE_ARTIFACT_DESCRIPTION,
      inputSchema: REMOVE_ARTIFACT_SCHEMA,
      granted: installGranted,
      run: (input) => deps.installer.remove(String(input.artifact)),
    },
    'background-command': {
      description: BACKGROUND_COMMAND_DESCRIPTION,
      inputSchema: BACKGROUND_COMMAND_SCHEMA,
      granted: backgroundCommandGranted,
      run: (input, ctx) => runBackgroundCommand(input, { commands: deps.background, trace: deps.trace }, ctx),
    },
    ...(deps.delegations === null || deps.delegations.capsules.length === 0
      ? {}
      : {
          'delegate-task': {
            description: delegateTaskDescription(deps.delegations.capsules),
            inputSchema: delegateTaskSchema(deps.delegations.capsules),
            granted: (manifest: Manifest) => manifest.capabilities.spawn.allow.length > 0,
            run: (input, ctx) => deps.delegations!.delegate(String(input.capsule), String(input.task), ctx),
          },
        }),
    ...(deps.memberCalls === null || deps.memberCalls.callees.length === 0
      ? {}
      : {
          'call-member': callMemberTool(deps.memberCalls),
          // end-without-answer exists exactly where call-member does (seed 004).
          'end-without-answer': {
            description: END_WITHOUT_ANSWER_DESCRIPTION,
            inputSchema: END_WITHOUT_ANSWER_SCHEMA,
            checkedSchema: END_WITHOUT_ANSWER_CHECKED_SCHEMA,
            granted: () => true,
            // A missing reason reads as a blank one: refused by the port in seed 004's order.
            run: async (input, ctx) => deps.memberCalls!.endWithoutAnswer(typeof input.reason === 'string' ? input.reason : '', ctx),
          },
        }),
  };
}

/** call-member exists exactly where a rule lets this member call another (seed 004, "The grant is the tool's existence"). */
function callMemberTool(port: MemberCallPort): RuntimeTool {
  return {
    description: callMemberDescription(port.callees),
    inputSchema: callMemberSchema(port.callees),
    granted: () => true,
    run: (input, ctx) => port.call(String(input.member), String(input.task), ctx),
  };
}

export { MEMBER_CALL_PORT, type MemberCallPort } from './call-member.js';
export { DELEGATE_PORT, type DelegatePort } from './delegate-task.js';

export { DriverSelection } from './driver-selection.js';
export { switchResult } from './switch-driver.js';
export { PLAN_GUIDANCE, submitPlanGranted } from './submit-plan.js';
export { isRuntimeToolName, missingGrantMessage, RUNTIME_TOOL_GRANTS, type RuntimeToolName } from './runtime-tools.js';
