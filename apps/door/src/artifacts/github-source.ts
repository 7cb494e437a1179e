import { Readable } from 'node:stream';
import semver from 'semver';
import { boundedRequest, failureInWords } from '../egress/outbound-request.js';
import { ARCHIVE_BOUNDS } from './archive-bounds.js';
import { type HeldArtifact, type Place, PlaceUnreadable } from './place.js';
import { parseStoreRecord, RECORD_MAX_BYTES, RecordError, type StoreRecord } from './store-record.js';

/** Each request's own bound, a JSON answer's size, and the listing entries read (docs/artifacts.md, "Sources"). */
const REQUEST_TIMEOUT_MS = 10_000;
const JSON_MAX_BYTES = 1024 * 1024;
const MAX_LISTED = 1000;
/** The newest versions whose records a listing reads: a record is a hint for choosing a version. */
const RECORDS_READ = 10;

const JSON_ACCEPT = 'application/vnd.github+json';
const RAW_ACCEPT = 'application/vnd.github.raw+json';

/**
 * A scope's GitHub source, read through GitHub's REST API (docs/artifacts.md, "Sources"): its owner's id, a version
 * listing, and the raw record and archive of one version. Every answer is untrusted: read within its bound, no redirect
 * followed, a failure worded without the address.
 */
export class GithubSource implements Place {
  readonly label: `github:${string}`;

  constructor(
    private readonly repo: { owner: string; repo: string },
    private readonly apiUrl: string,
    private readonly signal?: AbortSignal,
  ) {
    this.label = `github:${repo.owner}/${repo.repo}`;
  }

  private url(path: string): string {
    return `${this.apiUrl.replace(/\/+$/, '')}/repos/${encodeURIComponent(this.repo.owner)}/${encodeURIComponent(this.repo.repo)}${path}`;
  }

  /** One GET, its body read to at most `max` bytes; null for a 404; anything but 200 or 404 is a place that cannot be read. */
  private async get(path: string, accept: string, max: number): Promise<Buffer | null> {
    const what = path === '' ? 'the repository' : path.replace(/^\/contents\//, '');
    try {
      return await boundedRequest(
        async (signal) => {
          const response = await fetch(this.url(path), {
            headers: { accept, 'user-agent': 'murmur-door', 'x-github-api-version': '2022-11-28' },
            redirect: 'manual',
            signal,
          });
          if (response.status === 404) {
            await response.body?.cancel();
            return null;
          }
          if (response.status !== 200) {
            await response.body?.cancel();
            throw new PlaceUnreadable(`${this.label} answered ${response.status} for ${what}`);
          }
          const declared = Number(response.headers.get('content-length') ?? '0');
          if (declared > max) {
            await response.body?.cancel();
            throw new PlaceUnreadable(`${this.label}'s answer for ${what} is larger than ${max} bytes`);
          }
          const chunks: Buffer[] = [];
          let size = 0;
          for await (const chunk of response.body ?? []) {
            size += chunk.length;
            if (size > max) throw new PlaceUnreadable(`${this.label}'s answer for ${what} is larger than ${max} bytes`);
            chunks.push(Buffer.from(chunk));
          }
          return Buffer.concat(chunks);
        },
        { timeoutMs: REQUEST_TIMEOUT_MS, signal: this.signal },
      );
    } catch (error) {
      if (error instanceof PlaceUnreadable) throw error;
      if (this.signal?.aborted) throw error;
      throw new PlaceUnreadable(`${this.label} could not be read: ${failureInWords(error)}`);
    }
  }

  private async json(path: string): Promise<unknown> {
    const body = await this.get(path, JSON_ACCEPT, JSON_MAX_BYTES);
    if (body === null) return null;
    try {
      return JSON.parse(body.toString('utf8'));
    } catch {
      throw new PlaceUnreadable(`${this.label} answered something that is not JSON`);
    }
  }

  /** The repository's owner id, as GitHub numbers accounts (`owner.id`): what murmur.lock pins per scope. */
  async ownerId(): Promise<string> {
    const repository = await this.json('');
    const id = (repository as { owner?: { id?: unknown } } | null)?.owner?.id;
    if (repository === null) throw new PlaceUnreadable(`${this.label} does not exist`);
    if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0) throw new PlaceUnreadable(`${this.label} answered no owner id`);
    return String(id);
  }

  async record(fullName: string, version: string): Promise<StoreRecord | null> {
    const body = await this.get(`/contents/${fullName}/${version}.yaml`, RAW_ACCEPT, RECORD_MAX_BYTES);
    if (body === null) return null;
    try {
      const record = parseStoreRecord(body.toString('utf8'), `${this.label} ${fullName}/${version}.yaml`);
      return record.artifact === fullName && record.version === version ? record : null;
    } catch (error) {
      if (error instanceof RecordError) return null;
      throw error;
    }
  }

  async held(fullName: string): Promise<HeldArtifact | null> {
    const listing = await this.json(`/contents/${fullName}`);
    if (listing === null) return null;
    if (!Array.isArray(listing)) throw new PlaceUnreadable(`${this.label} answered no listing for ${fullName}`);
    const versions = listing
      .slice(0, MAX_LISTED)
      .map((entry: unknown) => (entry as { name?: unknown; type?: unknown }) ?? {})
      .filter((entry) => entry.type === 'file' && typeof entry.name === 'string' && entry.name.endsWith('.tgz'))
      .map((entry) => (entry.name as string).slice(0, -'.tgz'.length))
      .filter((v) => semver.valid(v) === v)
      .sort(semver.rcompare);
    if (versions.length === 0) return null;
    return {
      fullName,
      versions: await Promise.all(versions.map(async (version, i) => ({ version, record: i < RECORDS_READ ? await this.record(fullName, version) : null }))),
    };
  }

  async archive(fullName: string, version: string): Promise<Readable> {
    const body = await this.get(`/contents/${fullName}/${version}.tgz`, RAW_ACCEPT, ARCHIVE_BOUNDS.archiveBytes);
    if (body === null) throw new PlaceUnreadable(`${this.label} no longer holds ${fullName} ${version}`);
    return Readable.from([body]);
  }
}
