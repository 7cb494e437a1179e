/**
 * A door's exported files (docs/planes.md, "In the console"): the listing of one folder, a preview of one file (the
 * first 256 KiB of text, or an image), and downloads. Read through mur console's proxy with the door token; the
 * plane's own answers decide what is shown (content type, sizes, times), never the file's bytes.
 */
import type { FilesListing, FilesListingEntry } from '@murmur/protocol';
import { describeError, type Problem } from '../io/errors.js';
import { PREVIEW_IMAGE_BYTES, PREVIEW_TEXT_BYTES, planeRequest, planeUrl, previewKind } from './files-plane.js';
import { Loader } from '../io/loader.svelte.js';

export type FilePreview =
  | { kind: 'text'; name: string; contentType: string; text: string; truncated: boolean }
  | { kind: 'image'; name: string; contentType: string; url: string }
  | { kind: 'none'; name: string; contentType: string; reason: string };

export interface FileBrowserOptions {
  /** The door's base URL through the proxy (`<origin>/api/door/<host:port>`). */
  base: string;
  /** The door token now (it can change while the page is open). */
  token: () => string | null;
  door: string;
  /** A refusal worth the door's attention (a 401 opens its token prompt). */
  onProblem?: (problem: Problem) => void;
  /** Object URLs (image previews, downloads): injectable for tests. */
  objectUrls?: { createObjectURL(blob: Blob): string; revokeObjectURL(url: string): void };
}

export class FileBrowser {
  #segments = $state.raw<readonly string[]>([]);
  /** The folder's listing; a failed read shows none. */
  readonly #listing: Loader<FilesListing>;
  readonly #preview: Loader<FilePreview>;
  /** The name of the file whose preview is read. */
  #previewName = $state<string | null>(null);
  /** The latest failure of a listing, a preview or a download, until a listing is read. */
  #problem = $state.raw<Problem | null>(null);
  readonly #options: FileBrowserOptions;
  readonly #urls = new Set<string>();

  constructor(options: FileBrowserOptions) {
    this.#options = options;
    const context = { door: options.door };
    this.#listing = new Loader<FilesListing>({
      context,
      onProblem: (problem) => {
        this.#listing.set(null);
        this.#fail(problem);
      },
    });
    this.#preview = new Loader<FilePreview>({ context, onProblem: (problem) => this.#fail(problem) });
  }

  /** The folder shown, as segments under the root. */
  get segments(): readonly string[] {
    return this.#segments;
  }
  get listing(): FilesListing | null {
    return this.#listing.value;
  }
  get loading(): boolean {
    return this.#listing.loading;
  }
  get problem(): Problem | null {
    return this.#problem;
  }
  get preview(): FilePreview | null {
    return this.#preview.value;
  }
  /** The name of the file whose preview is loading. */
  get previewing(): string | null {
    return this.#preview.loading ? this.#previewName : null;
  }

  /** Lists a folder (segments under the root); the preview of the previous folder is closed. */
  async open(segments: readonly string[]): Promise<void> {
    this.#segments = segments;
    this.closePreview();
    const url = planeUrl(this.#options.base, segments, 'folder');
    const listing = await this.#listing.load(async (signal) => (await (await this.#request(url, { signal })).json()) as FilesListing);
    if (listing) this.#problem = null;
  }

  /** Reads the listing again. */
  reload(): Promise<void> {
    return this.open(this.#segments);
  }

  /** Previews a file of the folder shown; the preview open before is closed. */
  async show(entry: FilesListingEntry): Promise<void> {
    this.closePreview();
    this.#previewName = entry.name;
    await this.#preview.load((signal) => this.#readPreview(entry, signal));
  }

  /** A file's preview: its type decides (HEAD first), so a large or binary file is not read. */
  async #readPreview(entry: FilesListingEntry, signal: AbortSignal): Promise<FilePreview> {
    const url = planeUrl(this.#options.base, [...this.#segments, entry.name], 'file');
    const head = await this.#request(url, { method: 'HEAD', signal });
    const contentType = head.headers.get('content-type') ?? 'application/octet-stream';
    const kind = previewKind(contentType);
    if (kind === 'text') {
      const range = entry.size > PREVIEW_TEXT_BYTES ? `bytes=0-${PREVIEW_TEXT_BYTES - 1}` : undefined;
      const body = await this.#request(url, { signal, range });
      return { kind, name: entry.name, contentType, text: await body.text(), truncated: entry.size > PREVIEW_TEXT_BYTES };
    }
    if (kind === 'image' && entry.size <= PREVIEW_IMAGE_BYTES) {
      const body = await this.#request(url, { signal });
      return { kind, name: entry.name, contentType, url: this.#objectUrl(await body.blob()) };
    }
    const reason = kind === 'image' ? 'The image is over 16 MiB: download it.' : `No preview for ${contentType.split(';')[0]}: download it.`;
    return { kind: 'none', name: entry.name, contentType, reason };
  }

  closePreview(): void {
    const shown = this.#preview.value;
    if (shown?.kind === 'image') this.#revoke(shown.url);
    // Its problem is the browser's (#problem), which stays.
    this.#preview.reset();
    this.#previewName = null;
  }

  /**
   * Where a file downloads. Without a token the plane's own URL (the browser streams it to disk, the plane answers
   * `content-disposition: attachment`); with one, the bytes are read with the token into a Blob first, since a link
   * cannot carry an Authorization header. The caller saves the URL and then calls `release`.
   */
  async downloadUrl(entry: FilesListingEntry): Promise<string> {
    const url = planeUrl(this.#options.base, [...this.#segments, entry.name], 'file');
    if (this.#options.token() === null) return url;
    try {
      return this.#objectUrl(await (await this.#request(url, {})).blob());
    } catch (error) {
      this.#fail(describeError(error, { door: this.#options.door }));
      throw error;
    }
  }

  /** Frees a download's object URL (a no-op for a plane URL). */
  release(url: string): void {
    if (this.#urls.has(url)) this.#revoke(url);
  }

  dispose(): void {
    this.#listing.reset();
    this.closePreview();
    for (const url of this.#urls) this.#revoke(url);
  }

  #request(url: string, init: { method?: 'GET' | 'HEAD'; range?: string; signal?: AbortSignal }): Promise<Response> {
    return planeRequest(url, { ...init, token: this.#options.token() });
  }

  #fail(problem: Problem): void {
    this.#problem = problem;
    this.#options.onProblem?.(problem);
  }

  #objectUrl(blob: Blob): string {
    const url = (this.#options.objectUrls ?? URL).createObjectURL(blob);
    this.#urls.add(url);
    return url;
  }

  #revoke(url: string): void {
    this.#urls.delete(url);
    (this.#options.objectUrls ?? URL).revokeObjectURL(url);
  }
}
