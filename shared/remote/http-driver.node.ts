/**
 * An HTTP(S) server as a source: objects are the files below a root URL, read by `Range`
 * requests; listings come from nginx's JSON directory listings (`autoindex on;
 * autoindex_format json;`) or, for servers without them, an index file at the root
 * (`wink-index.json`, see `index-file.ts`).
 *
 * Freshness: every ranged read after the first carries `If-Range` with the validator the
 * caller holds, so a changed file is answered with 200 and the whole new file instead of a
 * range of it; we cancel that transfer at once and report `E_SOURCE_CHANGED`. A weak ETag
 * cannot be sent in `If-Range`; with one, the answer's ETag is compared instead. Servers
 * without ETag get their `Last-Modified` date as the validator.
 *
 * Credentials in the URL (`https://user:pass@host/runs/`) become an Authorization header
 * and are dropped from every URL we show; extra headers (a bearer token) never appear in
 * messages either. Redirects are followed within the same origin only.
 */
import * as http from "node:http";
import * as https from "node:https";
import { SourceError } from "../errors.js";
import type { ByteRange, DriverBody, DriverListOptions, ListPage, ObjectInfo, DriverReadOptions, SourceDriver, DriverStatOptions } from "./driver.js";
import { connectionError, statusError } from "./http-status.js";
import { INDEX_FILE_NAME, parseIndexFile } from "./index-file.js";
import { type Folder, type FolderEntry, listByWalking, listFromObjects } from "./listing.js";
import { answersRange, clampRange, noChunks, parseContentRange, parseUnsatisfiedRange, rangeHeader, unsatisfiable } from "./ranges.js";

/** How listings are made: nginx JSON directory listings, an index file, or whichever the server has. */
export type HttpListing = "auto" | "autoindex" | "index-file";

export interface HttpDriverOptions {
  /** The root: an http(s) URL of a folder ("https://host/runs/"), optionally with user:password. */
  readonly url: string;
  /** Extra request headers (for example an Authorization bearer token); never shown. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly listing?: HttpListing;
  /** Largest directory listing or index file we read (default 64 MiB). */
  readonly maxListingBytes?: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;
const DEFAULT_MAX_LISTING_BYTES = 64 * 1024 * 1024;
/** How long the pages after a first page may reuse its folder reads. */
const FOLDER_REUSE_MS = 30_000;
const MAX_REUSED_FOLDERS = 256;

interface ParsedRoot {
  readonly base: URL;
  readonly authorization: string | null;
}

function parseRoot(input: string): ParsedRoot {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new SourceError("E_SOURCE_INVALID", `Not a URL: ${redactUrl(input)}`, { reason: "url" });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new SourceError("E_SOURCE_INVALID", `Not an http(s) URL: ${redactUrl(input)}`, { reason: "url" });
  }
  if (url.search !== "" || url.hash !== "") {
    throw new SourceError("E_SOURCE_INVALID", `The root URL must not have a query or fragment: ${redactUrl(input)}`, { reason: "url" });
  }
  let authorization: string | null = null;
  if (url.username !== "" || url.password !== "") {
    const user = decodeURIComponent(url.username);
    const password = decodeURIComponent(url.password);
    authorization = `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
    url.username = "";
    url.password = "";
  }
  if (!url.pathname.endsWith("/")) url.pathname += "/";
  return { base: url, authorization };
}

/** A URL as shown to people: without user:password, query or fragment. */
export function redactUrl(input: string): string {
  try {
    const url = new URL(input);
    url.username = "";
    url.password = "";
    url.search = "";
    url.hash = "";
    return url.href;
  } catch {
    return "(invalid URL)";
  }
}

/** A validator from response headers: the ETag, else the Last-Modified date. */
function validatorOf(headers: http.IncomingHttpHeaders): string | null {
  if (typeof headers.etag === "string" && headers.etag !== "") return headers.etag;
  const modified = headers["last-modified"];
  return typeof modified === "string" && modified !== "" ? `last-modified: ${modified}` : null;
}

function isWeak(etag: string): boolean {
  return etag.startsWith("W/");
}

/** Conditional headers that make the server check `validator` (`If-Range` for reads, `If-None-Match` for revalidation). */
function conditionalHeaders(validator: string, kind: "range" | "none-match"): Record<string, string> {
  if (validator.startsWith("last-modified: ")) {
    const date = validator.slice("last-modified: ".length);
    return kind === "range" ? { "if-range": date } : { "if-modified-since": date };
  }
  if (kind === "range") return isWeak(validator) ? {} : { "if-range": validator };
  return { "if-none-match": validator };
}

function mtimeOf(headers: http.IncomingHttpHeaders): number | null {
  const modified = headers["last-modified"];
  const ms = typeof modified === "string" ? Date.parse(modified) : Number.NaN;
  return Number.isNaN(ms) ? null : ms;
}

function contentLength(headers: http.IncomingHttpHeaders): number | null {
  const value = headers["content-length"];
  const length = value === undefined ? Number.NaN : Number(value);
  return Number.isSafeInteger(length) && length >= 0 ? length : null;
}

/** Stops a response and frees its socket (a small body is drained so the connection is reused). */
function discard(response: http.IncomingMessage): void {
  const length = contentLength(response.headers);
  if (length !== null && length <= 64 * 1024) response.resume();
  else response.destroy();
}

interface NginxEntry {
  readonly name: string;
  readonly type: string;
  readonly mtime?: string;
  readonly size?: number;
}

function isNginxListing(value: unknown): value is NginxEntry[] {
  return Array.isArray(value) && value.every((entry) => typeof entry === "object" && entry !== null && typeof (entry as NginxEntry).name === "string" && typeof (entry as NginxEntry).type === "string");
}

export class HttpDriver implements SourceDriver {
  readonly name = "http";
  readonly capabilities = { recursiveList: true, listEtags: false };
  readonly location: string;
  private readonly base: URL;
  private readonly headers: Record<string, string>;
  private readonly authenticated: boolean;
  private readonly agent: http.Agent;
  private readonly maxListingBytes: number;
  private listingMode: Promise<"autoindex" | "index-file"> | null = null;
  private indexCache: { etag: string; objects: ObjectInfo[] } | null = null;
  /** Folder listings of the paging sequence under way (see `list`). */
  private folderCache = new Map<string, { readonly at: number; readonly folder: Folder | null }>();

  constructor(options: HttpDriverOptions) {
    const { base, authorization } = parseRoot(options.url);
    this.base = base;
    this.location = base.href;
    this.headers = { ...(options.headers ?? {}), ...(authorization === null ? {} : { authorization }) };
    this.authenticated = Object.keys(this.headers).some((name) => name.toLowerCase() === "authorization");
    // No cap on sockets: with one, a few objects whose server never answers hold every
    // socket and every other request (listings included) queues behind them until their
    // deadline. What runs at once is bounded by the callers (background indexing, views).
    this.agent = base.protocol === "https:" ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
    this.maxListingBytes = options.maxListingBytes ?? DEFAULT_MAX_LISTING_BYTES;
    if (options.listing !== undefined && options.listing !== "auto") this.listingMode = Promise.resolve(options.listing);
  }

  describe(key: string): string {
    return this.urlOf(key).href;
  }

  private urlOf(key: string): URL {
    return new URL(key.split("/").map(encodeURIComponent).join("/"), this.base);
  }

  async close(): Promise<void> {
    this.agent.destroy();
  }

  /** One request; same-origin redirects are followed when `follow` is set. */
  private async send(method: "GET" | "HEAD", url: URL, headers: Record<string, string>, signal: AbortSignal | undefined, key: string | undefined, follow = true): Promise<http.IncomingMessage> {
    for (let hop = 0; ; hop++) {
      const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
        const module = url.protocol === "https:" ? https : http;
        const request = module.request(url, { method, headers: { ...this.headers, ...headers }, agent: this.agent, signal }, resolve);
        request.on("error", (error) => reject(connectionError(error, redactUrl(url.href), key) ?? error));
        request.end();
      });
      const location = response.headers.location;
      if (!follow || !REDIRECTS.has(response.statusCode ?? 0) || location === undefined) return response;
      discard(response);
      const next = new URL(location, url);
      if (next.origin !== url.origin) {
        throw new SourceError("E_SOURCE_FAILED", `${redactUrl(url.href)} redirects to another host (${redactUrl(next.href)}); not followed`, {
          url: redactUrl(url.href),
          ...(key === undefined ? {} : { key }),
          status: response.statusCode,
          reason: "redirect-off-host",
        });
      }
      if (hop >= MAX_REDIRECTS) throw new SourceError("E_SOURCE_FAILED", `Too many redirects for ${redactUrl(url.href)}`, { url: redactUrl(url.href) });
      url = next;
    }
  }

  private failure(response: http.IncomingMessage, url: string, key?: string): SourceError {
    discard(response);
    return statusError({ url, ...(key === undefined ? {} : { key }), status: response.statusCode ?? 0, retryAfter: response.headers["retry-after"] ?? null, authenticated: this.authenticated });
  }

  async stat(key: string, options: DriverStatOptions = {}): Promise<ObjectInfo | null> {
    const url = this.urlOf(key);
    const conditional = options.ifNoneMatch === undefined ? {} : conditionalHeaders(options.ifNoneMatch, "none-match");
    const response = await this.send("HEAD", url, conditional, options.signal, key, false);
    const status = response.statusCode ?? 0;
    response.resume();
    if (status === 304) return null;
    if (REDIRECTS.has(status) && response.headers.location !== undefined && new URL(response.headers.location, url).href === `${url.href}/`) {
      throw new SourceError("E_SOURCE_NOT_FOUND", `Not found: ${url.href} (a folder, not an object)`, { url: url.href, key, reason: "folder" });
    }
    if (status !== 200) throw this.failure(response, url.href, key);
    const size = contentLength(response.headers);
    if (size === null) throw new SourceError("E_SOURCE_FAILED", `${url.href} answered HEAD without a Content-Length`, { url: url.href, key });
    return { key, size, etag: validatorOf(response.headers), mtimeMs: mtimeOf(response.headers) };
  }

  async read(key: string, range: ByteRange, options: DriverReadOptions = {}): Promise<DriverBody> {
    const url = this.urlOf(key);
    const shown = url.href;
    const expected = options.etag ?? null;
    const headers: Record<string, string> = { range: rangeHeader(range), ...(expected === null ? {} : conditionalHeaders(expected, "range")) };
    const response = await this.send("GET", url, headers, options.signal, key);
    const status = response.statusCode ?? 0;
    const etag = validatorOf(response.headers);
    const changed = (): SourceError => {
      response.destroy();
      return new SourceError("E_SOURCE_CHANGED", `${shown} changed since it was opened (ETag ${etag ?? "none"}, expected ${expected}); reopen it`, {
        url: shown,
        key,
        expected,
        actual: etag,
      });
    };
    const body = (offset: number, length: number, size: number): DriverBody => ({
      offset,
      length,
      size,
      etag,
      mtimeMs: mtimeOf(response.headers),
      chunks: response,
      cancel: () => response.destroy(),
    });
    if (status === 206) {
      if (expected !== null && etag !== expected) throw changed();
      const got = parseContentRange(response.headers["content-range"]);
      if (got === null || !answersRange(range, got)) {
        response.destroy();
        throw new SourceError("E_SOURCE_FAILED", `${shown} answered ${rangeHeader(range)} with Content-Range ${response.headers["content-range"] ?? "(none)"}`, { url: shown, key });
      }
      return body(got.offset, got.length, got.size);
    }
    if (status === 200) {
      // With If-Range, a 200 means "changed: here is all of the new version" — never read it.
      if (expected !== null && etag !== expected) throw changed();
      const size = contentLength(response.headers);
      const wanted = size === null ? null : clampRange(range, size);
      if (size !== null && wanted !== null && wanted.offset === 0 && wanted.length === size) return body(0, size, size);
      response.destroy();
      if (size !== null && wanted === null) throw unsatisfiable(shown, key, range, size);
      throw new SourceError("E_SOURCE_FAILED", `${shown} does not answer range requests (HTTP 200 for ${rangeHeader(range)})`, { url: shown, key, reason: "no-ranges" });
    }
    if (status === 416) {
      const size = parseUnsatisfiedRange(response.headers["content-range"]);
      discard(response);
      if (size === 0 && "suffix" in range) {
        const info = await this.stat(key, { ...(options.signal === undefined ? {} : { signal: options.signal }) });
        if (info !== null && info.size === 0) {
          if (expected !== null && info.etag !== expected) throw changed();
          return { offset: 0, length: 0, size: 0, etag: info.etag, mtimeMs: info.mtimeMs, chunks: noChunks(), cancel: () => undefined };
        }
      }
      throw unsatisfiable(shown, key, range, size);
    }
    throw this.failure(response, shown, key);
  }

  async list(prefix: string, options: DriverListOptions): Promise<ListPage> {
    this.listingMode ??= this.detectListing(options.signal);
    const mode = await this.listingMode.catch((error: unknown) => {
      this.listingMode = null; // a failed detection (server down) is tried again next time
      throw error;
    });
    if (mode === "index-file") return listFromObjects(await this.indexObjects(options.signal), prefix, options);
    // A first page reads every folder afresh; the pages that continue it reuse those reads
    // (nginx sends a whole directory at once, so page 5 of 5,000 runs would otherwise fetch
    // and parse all 5,000 names a fifth time). Like an S3 continuation token, a paging
    // sequence sees the store as it was when it began, for a bounded time.
    const now = Date.now();
    if (options.cursor === undefined) this.folderCache.clear();
    for (const [folder, cached] of this.folderCache) if (now - cached.at > FOLDER_REUSE_MS) this.folderCache.delete(folder);
    return listByWalking(
      async (folder) => {
        const cached = this.folderCache.get(folder);
        if (cached !== undefined) return cached.folder;
        const read = await this.readFolder(folder, options.signal);
        this.folderCache.set(folder, { at: Date.now(), folder: read });
        if (this.folderCache.size > MAX_REUSED_FOLDERS) this.folderCache.delete(this.folderCache.keys().next().value as string);
        return read;
      },
      prefix,
      options,
    );
  }

  /** Autoindex when the root answers with a JSON listing, else the index file. */
  private async detectListing(signal: AbortSignal | undefined): Promise<"autoindex" | "index-file"> {
    const root = await this.fetchJson(this.base, signal, "");
    if (root.kind === "json" && isNginxListing(root.value)) return "autoindex";
    const index = await this.send("HEAD", this.urlOf(INDEX_FILE_NAME), {}, signal, INDEX_FILE_NAME);
    index.resume();
    if (index.statusCode === 200) return "index-file";
    // The index file is refused too (401, 403): the store refuses us, it does not lack a listing
    // (nginx answers a folder without autoindex with 403, but its files with 200 or 404).
    const refused = index.statusCode ?? 0;
    if (refused === 401 || refused === 403) throw statusError({ url: this.location, status: refused, authenticated: this.authenticated });
    // Neither the folder nor an index file exists: a wrong URL, not a server without listings.
    if (root.status === 404 && refused === 404) throw statusError({ url: this.location, status: 404, authenticated: this.authenticated });
    throw new SourceError(
      "E_SOURCE_FAILED",
      `${this.location} offers no listing: serve JSON directory listings (nginx: autoindex on; autoindex_format json;) or publish ${INDEX_FILE_NAME} at the root`,
      { url: this.location, reason: "no-listing", status: root.status },
    );
  }

  private async readFolder(folder: string, signal: AbortSignal | undefined): Promise<Folder | null> {
    const url = folder === "" ? this.base : new URL(folder.slice(0, -1).split("/").map(encodeURIComponent).join("/") + "/", this.base);
    let answer;
    try {
      answer = await this.fetchJson(url, signal, folder);
    } catch (error) {
      // A subfolder sent elsewhere (another host: not followed, it could be anyone's) is left
      // out of the listing, not the end of it; the root sent elsewhere still fails.
      if (folder !== "" && error instanceof SourceError && error.data.reason === "redirect-off-host") return { entries: [], skipped: error.message };
      throw error;
    }
    if (answer.kind === "missing") return null;
    if (answer.kind !== "json" || !isNginxListing(answer.value)) {
      throw new SourceError("E_SOURCE_FAILED", `${url.href} did not answer with a JSON directory listing`, { url: url.href, reason: "listing" });
    }
    const entries: FolderEntry[] = [];
    for (const entry of answer.value) {
      if (entry.type === "directory") entries.push({ name: entry.name, kind: "directory" });
      else if (entry.type !== "file" || typeof entry.size !== "number") entries.push({ name: entry.name, kind: "other" });
      else {
        const mtimeMs = entry.mtime === undefined ? Number.NaN : Date.parse(entry.mtime);
        entries.push({ name: entry.name, kind: "file", info: { key: `${folder}${entry.name}`, size: entry.size, etag: null, mtimeMs: Number.isNaN(mtimeMs) ? null : mtimeMs } });
      }
    }
    return { entries };
  }

  /** The index file's objects, revalidated with If-None-Match on every listing. */
  private async indexObjects(signal: AbortSignal | undefined): Promise<ObjectInfo[]> {
    const url = this.urlOf(INDEX_FILE_NAME);
    const cached = this.indexCache;
    const conditional = cached === null ? {} : conditionalHeaders(cached.etag, "none-match");
    const answer = await this.fetchJson(url, signal, INDEX_FILE_NAME, conditional, true);
    if (answer.kind === "not-modified" && cached !== null) return cached.objects;
    if (answer.kind !== "json") throw new SourceError("E_SOURCE_NOT_FOUND", `Not found: ${url.href} (the index file)`, { url: url.href, key: INDEX_FILE_NAME });
    const objects = parseIndexFile(answer.value, url.href);
    this.indexCache = answer.etag === null ? null : { etag: answer.etag, objects };
    return objects;
  }

  private async fetchJson(
    url: URL,
    signal: AbortSignal | undefined,
    key: string,
    headers: Record<string, string> = {},
    anyType = false,
  ): Promise<{ kind: "json"; value: unknown; etag: string | null; status: number } | { kind: "missing" | "not-modified" | "other"; status: number }> {
    const response = await this.send("GET", url, { accept: "application/json", ...headers }, signal, key);
    const status = response.statusCode ?? 0;
    if (status === 404) {
      discard(response);
      return { kind: "missing", status };
    }
    if (status === 304) {
      discard(response);
      return { kind: "not-modified", status };
    }
    if (status !== 200) {
      if (key === "" && (status === 403 || status === 401)) {
        // The root refuses a listing (autoindex off): the caller may still find an index file.
        discard(response);
        return { kind: "other", status };
      }
      throw this.failure(response, url.href, key === "" ? undefined : key);
    }
    const declared = contentLength(response.headers);
    if (declared !== null && declared > this.maxListingBytes) {
      response.destroy();
      throw new SourceError("E_SOURCE_LIMIT", `The listing ${url.href} has ${declared} bytes, more than the limit of ${this.maxListingBytes}`, { url: url.href, limit: this.maxListingBytes });
    }
    const parts: Buffer[] = [];
    let received = 0;
    try {
      for await (const chunk of response as AsyncIterable<Buffer>) {
        received += chunk.length;
        if (received > this.maxListingBytes) {
          response.destroy();
          throw new SourceError("E_SOURCE_LIMIT", `The listing ${url.href} exceeds the limit of ${this.maxListingBytes} bytes`, { url: url.href, limit: this.maxListingBytes });
        }
        parts.push(chunk);
      }
    } catch (error) {
      if (error instanceof SourceError) throw error;
      throw new SourceError("E_SOURCE_TRUNCATED", `The listing ${url.href} was cut off after ${received} bytes`, { url: url.href, received, retryable: true });
    }
    const text = Buffer.concat(parts).toString("utf8");
    const type = String(response.headers["content-type"] ?? "");
    if (!anyType && !type.includes("json")) return { kind: "other", status };
    try {
      return { kind: "json", value: JSON.parse(text) as unknown, etag: validatorOf(response.headers), status };
    } catch {
      throw new SourceError("E_SOURCE_FAILED", `The listing ${url.href} is not valid JSON`, { url: url.href, reason: "listing" });
    }
  }
}

export function createHttpDriver(options: HttpDriverOptions): HttpDriver {
  return new HttpDriver(options);
}
