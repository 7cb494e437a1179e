/**
 * A door's exported files (docs/planes.md, "In the console"): the listing of one folder, a preview of one file (the
 * first 256 KiB of text, or an image), and downloads. Read through mur console's proxy with the door token; the
 * plane's own answers decide what is shown (content type, sizes, times), never the file's bytes.
 */
import type { FilesListing, FilesListingEntry } from '@murmur/protocol';
import { describeError, isAbort, type Problem } from './errors.js';
import { type Fetch, PREVIEW_IMAGE_BYTES, PREVIEW_TEXT_BYTES, planeRequest, planeUrl, previewKind } from './files-plane.js';

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
  fetch?: Fetch;
  /** A refusal worth the door's attention (a 401 opens its token prompt). */
  onProblem?: (problem: Problem) => void;
  /** Object URLs (image previews, downloads): injectable for tests. */
  objectUrls?: { createObjectURL(blob: Blob): string; revokeObjectURL(url: string): void };
}

export class FileBrowser {
  #segments = $state.raw<readonly string[]>([]);
  #listing = $state.raw<FilesListing | null>(null);
  #loading = $state(false);
  #problem = $state.raw<Problem | null>(null);
  #preview = $state.raw<FilePreview | null>(null);
  #previewing = $state<string | null>(null);
  readonly #options: FileBrowserOptions;
  #listAbort: AbortController | null = null;
  #previewAbort: AbortController | null = null;
  readonly #urls = new Set<string>();

  constructor(options: FileBrowserOptions) {
    this.#options = options;
  }

  /** The folder shown, as segments under the root. */
  get segments(): readonly string[] {
    return this.#segments;
  }
  get listing(): FilesListing | null {
    return this.#listing;
  }
  get loading(): boolean {
    return this.#loading;
  }
  get problem(): Problem | null {
    return this.#problem;
  }
  get preview(): FilePreview | null {
    return this.#preview;
  }
  /** The name of the file whose preview is loading. */
  get previewing(): string | null {
    return this.#previewing;
  }

  /** Lists a folder (segments under the root); the preview of the previous folder is closed. */
  async open(segments: readonly string[]): Promise<void> {
    this.#listAbort?.abort();
    const abort = new AbortController();
    this.#listAbort = abort;
    this.#segments = segments;
    this.closePreview();
    this.#loading = true;
    try {
      const response = await this.#request(planeUrl(this.#options.base, segments, 'folder'), { signal: abort.signal });
      const listing = (await response.json()) as FilesListing;
      if (abort.signal.aborted) return;
      this.#listing = listing;
      this.#problem = null;
    } catch (error) {
      if (abort.signal.aborted || isAbort(error)) return;
      this.#listing = null;
      this.#fail(error);
    } finally {
      if (this.#listAbort === abort) this.#loading = false;
    }
  }

  /** Reads the listing again. */
  reload(): Promise<void> {
    return this.open(this.#segments);
  }

  /** Previews a file of the folder shown: its type decides (HEAD first), so a large or binary file is not read. */
  async show(entry: FilesListingEntry): Promise<void> {
    this.closePreview();
    const abort = new AbortController();
    this.#previewAbort = abort;
    this.#previewing = entry.name;
    const url = planeUrl(this.#options.base, [...this.#segments, entry.name], 'file');
    try {
      const head = await this.#request(url, { method: 'HEAD', signal: abort.signal });
      const contentType = head.headers.get('content-type') ?? 'application/octet-stream';
      const kind = previewKind(contentType);
      let preview: FilePreview;
      if (kind === 'text') {
        const range = entry.size > PREVIEW_TEXT_BYTES ? `bytes=0-${PREVIEW_TEXT_BYTES - 1}` : undefined;
        const body = await this.#request(url, { signal: abort.signal, range });
        preview = { kind, name: entry.name, contentType, text: await body.text(), truncated: entry.size > PREVIEW_TEXT_BYTES };
      } else if (kind === 'image' && entry.size <= PREVIEW_IMAGE_BYTES) {
        const body = await this.#request(url, { signal: abort.signal });
        preview = { kind, name: entry.name, contentType, url: this.#objectUrl(await body.blob()) };
      } else {
        const reason = kind === 'image' ? 'The image is over 16 MiB: download it.' : `No preview for ${contentType.split(';')[0]}: download it.`;
        preview = { kind: 'none', name: entry.name, contentType, reason };
      }
      if (!abort.signal.aborted) this.#preview = preview;
    } catch (error) {
      if (!abort.signal.aborted && !isAbort(error)) this.#fail(error);
    } finally {
      if (this.#previewAbort === abort) this.#previewing = null;
    }
  }

  closePreview(): void {
    this.#previewAbort?.abort();
    this.#previewAbort = null;
    this.#previewing = null;
    const shown = this.#preview;
    if (shown?.kind === 'image') this.#revoke(shown.url);
    this.#preview = null;
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
      this.#fail(error);
      throw error;
    }
  }

  /** Frees a download's object URL (a no-op for a plane URL). */
  release(url: string): void {
    if (this.#urls.has(url)) this.#revoke(url);
  }

  dispose(): void {
    this.#listAbort?.abort();
    this.closePreview();
    for (const url of this.#urls) this.#revoke(url);
  }

  #request(url: string, init: { method?: 'GET' | 'HEAD'; range?: string; signal?: AbortSignal }): Promise<Response> {
    return planeRequest(url, { ...init, token: this.#options.token(), fetch: this.#options.fetch });
  }

  #fail(error: unknown): void {
    const problem = describeError(error, { door: this.#options.door });
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
