import { encodeRefusalBody, type RecordFormationResponse, RECORDS_PLANE_PATH, recordNotFoundRefusal, refusalStatus } from '@murmur/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { answerRecordRequest, type RecordSource } from '../record-reads/record-answers.js';
import { recordTarget, sendRecordAnswer } from '../record-reads/record-reply.js';
import { refuseUnlessReadOnly } from './read-only-method.js';

/** What the record plane knows of its door's session. */
export interface OwnSession {
  readonly sessionId: string;
  readonly name: string;
  readonly recordsDir: string;
  readonly startedAtMs: number;
  /** The door's URL once it listens. */
  url(): string | null;
  /** A callee's door by its roster name, once the formation seated this member. */
  memberUrl(member: string): string | null;
  /** The formation this session is a member of, once seated; null outside a formation. */
  formation(): RecordFormationResponse | null;
}

/**
 * The record plane: the door's own session's record, with the paths and shapes of mur console's record API, reached
 * after the door token, peer consent and the resources/records scope (seed 000, step 4). One request is answered at a
 * time; it keeps its trace's index (record-reads/trace-index.ts) and reads only the lines an answer needs.
 */
export class RecordsPlane {
  readonly #source: RecordSource;
  #line: Promise<unknown> = Promise.resolve();

  constructor(own: OwnSession) {
    this.#source = {
      sessions: () => [
        {
          sessionId: own.sessionId,
          name: own.name,
          url: own.url(),
          recordsDir: own.recordsDir,
          state: 'live',
          startedAt: new Date(own.startedAtMs).toISOString(),
          endedAt: null,
        },
      ],
      memberUrl: (member) => own.memberUrl(member),
      formation: () => own.formation(),
    };
  }

  async answer(request: FastifyRequest, reply: FastifyReply, target: string): Promise<FastifyReply> {
    const refused = refuseUnlessReadOnly(request, reply);
    if (refused) return refused;
    const parsed = recordTarget(target, RECORDS_PLANE_PATH);
    if (parsed === null) {
      return reply
        .code(refusalStatus('not_found'))
        .header('content-type', 'application/json')
        .send(encodeRefusalBody(recordNotFoundRefusal(target.split('?')[0])));
    }
    // First come, first served: the next request starts once this one's answer is written.
    const turn = this.#line.then(async () =>
      sendRecordAnswer(request, reply, await answerRecordRequest(this.#source, parsed.rest, parsed.query, parsed.shown)),
    );
    this.#line = turn.catch(() => undefined);
    return turn;
  }
}
