/**
 * The control surface's wire (docs/control.md): where it is served, what GET and POST answer, and its refusals.
 * The door answers with these; `mur control` and the console read them. Every refusal is an HTTP status and a
 * `{"error", "message"}` body, as the door's own are; the sentences are pinned by tests.
 */
import type { HttpRefusalBody } from './http-refusals.js';

/** Beside POST /, served at step 1 of "What the door answers" with its own token. */
export const CONTROL_PATH = '/control';

/** The settings the control surface changes: its own list, not the manifest's control.agent_settings. */
export const CONTROL_SETTINGS = ['inference.driver'] as const;
type ControlSetting = (typeof CONTROL_SETTINGS)[number];

/** One declared driver choice as GET /control lists it; `problem` says why a choice cannot be selected now. */
interface ControlChoice {
  name: string;
  driver: string;
  model?: string;
  usable: boolean;
  problem?: string;
}

/** GET /control: each setting, its value now (what the next call is served by) and what it may become. */
export interface ControlSettings {
  sessionId: string;
  settings: { setting: ControlSetting; value: string; choices: ControlChoice[] }[];
}

/** POST /control's body. */
export interface ControlChangeRequest {
  setting: string;
  value: string;
}

/** POST /control's answer when the change is made: switch-driver's result sentence as `message`. */
export interface ControlChange {
  setting: ControlSetting;
  from: string;
  to: string;
  message: string;
}

/** The www-authenticate realm of a control refusal: the capsule's name and the word control. */
export function controlChallenge(capsule: string, invalidToken: boolean): string {
  return `Bearer realm="${capsule} control"${invalidToken ? ', error="invalid_token"' : ''}`;
}

/** 401 unauthenticated on the control surface: no Authorization header. */
export function controlUnauthenticatedRefusal(): HttpRefusalBody<'unauthenticated'> {
  return {
    error: 'unauthenticated',
    message: "the control surface needs the session's control token: send Authorization: Bearer <token> (mur token prints it)",
  };
}

/** Why the control surface refused a token. */
export type ControlTokenWhy = 'several-headers' | 'not-bearer' | 'door-token' | 'unknown-token';

const CONTROL_TOKEN_MESSAGES: Readonly<Record<ControlTokenWhy, string>> = {
  'several-headers': 'send one Authorization header, not several',
  'not-bearer': 'the Authorization header must be Bearer <token>',
  'door-token': "this is a door token: the control surface takes the session's control token, which no door accepts (mur token prints it)",
  'unknown-token': "this is not this session's control token, or the session has been restarted since",
};

/** 401 invalid_token on the control surface. */
export function controlInvalidTokenRefusal(why: ControlTokenWhy): HttpRefusalBody<'invalid_token'> {
  return { error: 'invalid_token', message: CONTROL_TOKEN_MESSAGES[why] };
}

/** 404 not_found: a path under /control/. */
export function controlNotFoundRefusal(): HttpRefusalBody<'not_found'> {
  return { error: 'not_found', message: `the control surface answers GET and POST at ${CONTROL_PATH}` };
}

/** The Allow header of a 405 from the control surface. */
export const CONTROL_ALLOW = 'GET, HEAD, POST';

/** 405 method_not_allowed: the control surface answers GET, HEAD and POST. */
export function controlMethodNotAllowedRefusal(method: string): HttpRefusalBody<'method_not_allowed'> {
  return { error: 'method_not_allowed', message: `the control surface answers GET and POST, not ${method}` };
}

/** What is wrong with a POST body. */
export type InvalidControlRequestWhy = 'content-type' | 'not-json' | 'shape';

const INVALID_REQUEST_MESSAGES: Readonly<Record<InvalidControlRequestWhy, string>> = {
  'content-type': 'send the change with content-type: application/json',
  'not-json': 'the body is not JSON',
  shape: 'the body must be {"setting": "<setting>", "value": "<value>"}, both strings',
};

/** 400 invalid_request: a POST body the control surface cannot read. */
export function invalidControlRequestRefusal(why: InvalidControlRequestWhy): HttpRefusalBody<'invalid_request'> {
  return { error: 'invalid_request', message: INVALID_REQUEST_MESSAGES[why] };
}

/** 422 setting_not_controllable: a setting outside CONTROL_SETTINGS. */
export function unknownSettingRefusal(setting: string): HttpRefusalBody<'setting_not_controllable'> {
  return { error: 'setting_not_controllable', message: `the control surface changes ${CONTROL_SETTINGS.join(', ')}, not ${JSON.stringify(setting)}` };
}

/** 422 setting_not_controllable: inference.driver on a capsule with no inference: block. */
export function noInferenceRefusal(): HttpRefusalBody<'setting_not_controllable'> {
  return { error: 'setting_not_controllable', message: 'this capsule has no inference: block, so inference.driver cannot change' };
}

/** 422 control_refused: the setting's own check refused the value; `reason` is switch-driver's message. */
export function controlRefusedRefusal(reason: string): HttpRefusalBody<'control_refused'> {
  return { error: 'control_refused', message: reason };
}
