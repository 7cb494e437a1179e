import { type AgentCard, buildAgentCard } from '@murmur/protocol';
import type { SessionContext } from '../session/session-context.js';
import { type ServedCard, servedCard } from './card-cache.js';
import { servedMethods } from './served-methods.js';
import type { ShellBinaries } from './shell-binaries.js';

/** The agent card, derived from what this door serves and what the capsule may do. */
export class CardService {
  private publicServed: ServedCard | null = null;
  private extendedServed: ServedCard | null = null;

  constructor(
    private readonly session: SessionContext,
    private readonly binaries: ShellBinaries,
  ) {}

  card(variant: 'public' | 'extended'): AgentCard {
    const m = this.session.manifest;
    const planes: string[] = [];
    if (m.exports.files) planes.push('files');
    if (m.exports.peer_files) planes.push('peer_files');
    return buildAgentCard({
      name: m.name,
      version: m.version,
      url: this.session.url,
      sessionId: this.session.sessionId,
      methods: servedMethods(m),
      authenticated: m.network.authentication !== undefined,
      peerTasks: m.exports.peer_tasks?.accept ?? false,
      tools: m.capabilities.shell.allow.filter((name) => this.binaries.has(name)),
      shell: m.capabilities.shell.allow.length > 0,
      network: m.capabilities.network.allow.length > 0,
      planes,
      transport: m.inference?.transport ?? 'http',
      variant,
    });
  }

  /** The public card as served bytes and their ETag: built once the address is known, since nothing on it changes after. */
  publicCard(): ServedCard {
    this.publicServed ??= servedCard(JSON.stringify(this.card('public')));
    return this.publicServed;
  }

  /** The extended card as its JSON-RPC result's bytes and their ETag. */
  extendedCard(): ServedCard {
    this.extendedServed ??= servedCard(JSON.stringify(this.card('extended')));
    return this.extendedServed;
  }
}
