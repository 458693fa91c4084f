/**
 * Listings for stores that have folders rather than a flat key space (a local folder, an
 * HTTP server's directory listings) or a whole-listing file: S3's ListObjectsV2 semantics
 * (prefix, "/" delimiter, pages that resume after a cursor, keys in byte order) built from
 * folder reads, so every driver answers a listing the same way.
 */
import type { DriverListOptions, ListPage, ObjectInfo, SkippedFolder } from "./driver.js";
import { compareKeys, keyProblem, splitPrefix } from "./keys.js";

/** One name in a folder; a file carries its info (key, size, validator, mtime) when the listing had it. */
export type FolderEntry =
  | { readonly name: string; readonly kind: "file"; readonly info?: ObjectInfo }
  | { readonly name: string; readonly kind: "directory" | "other" };

export interface Folder {
  readonly entries: readonly FolderEntry[];
  /**
   * Info of files listed without one, asked only for those that land on the page (a local
   * folder stats the 1,000 files of a page, not the 5,000 in the folder). Null for a file
   * that is gone, or is no longer a regular file.
   */
  infos?(names: readonly string[]): Promise<(ObjectInfo | null)[]>;
  /** Set when the folder cannot be listed but the rest of the store can (it is then left out, with this reason). */
  readonly skipped?: string;
}

/** Files whose info is asked for at once while filling a page. */
const INFO_BATCH = 256;

/** Reads one folder ("" or "runs/"); null when it does not exist. Only names starting with `namePrefix` are needed. */
export type ReadFolder = (folder: string, namePrefix: string) => Promise<Folder | null>;

/**
 * One page of a listing by walking folders depth-first in key order (a folder sorts as
 * "name/", which is where its keys fall among its siblings'), so a page stops at the limit
 * and the next one skips every folder that lies wholly before its cursor without reading it.
 */
export async function listByWalking(readFolder: ReadFolder, prefix: string, options: DriverListOptions): Promise<ListPage> {
  const { folder, namePrefix } = splitPrefix(prefix);
  const page = new PageBuilder(options);
  await visit(readFolder, folder, namePrefix, page, options.delimiter === "/");
  return page.result();
}

async function visit(readFolder: ReadFolder, folder: string, namePrefix: string, page: PageBuilder, delimited: boolean): Promise<void> {
  page.options.signal?.throwIfAborted();
  const listed = await readFolder(folder, namePrefix);
  if (listed === null) return;
  if (listed.skipped !== undefined) {
    page.skippedFolders.push({ prefix: folder, reason: listed.skipped });
    return;
  }
  const sorted = listed.entries
    .filter((entry) => entry.name.startsWith(namePrefix))
    .map((entry) => ({ entry, sortKey: `${folder}${entry.name}${entry.kind === "directory" ? "/" : ""}` }))
    .sort((a, b) => compareKeys(a.sortKey, b.sortKey));
  // Files waiting for their info, in order; resolved together before anything after them is added.
  let pending: { name: string; info?: ObjectInfo }[] = [];
  const flush = async (): Promise<void> => {
    const batch = pending;
    pending = [];
    const missing = batch.filter((file) => file.info === undefined).map((file) => file.name);
    const found = missing.length === 0 || listed.infos === undefined ? [] : await listed.infos(missing);
    let next = 0;
    for (const file of batch) {
      const info = file.info ?? found[next++] ?? null;
      if (info !== null) page.addObject(info);
    }
  };
  for (const { entry, sortKey } of sorted) {
    if (!page.wants(sortKey, entry.kind === "directory" && !delimited)) continue;
    if (page.count + pending.length >= page.options.limit) {
      await flush();
      if (page.full) {
        page.more = true;
        return;
      }
    }
    const problem = keyProblem(entry.kind === "directory" ? sortKey.slice(0, -1) : sortKey);
    if (entry.kind === "other" || problem !== null) {
      page.skipped++;
      continue;
    }
    if (entry.kind === "file") {
      pending.push(entry);
      if (pending.length >= INFO_BATCH) await flush();
      continue;
    }
    await flush();
    if (delimited) {
      page.addPrefix(sortKey);
    } else {
      await visit(readFolder, sortKey, "", page, false);
      if (page.more) return;
    }
  }
  await flush();
}

/** One page of a listing from every object at once (an index file), sorted or not. */
export function listFromObjects(objects: readonly ObjectInfo[], prefix: string, options: DriverListOptions): ListPage {
  const page = new PageBuilder(options);
  const seenPrefixes = new Set<string>();
  const matching = objects.filter((object) => object.key.startsWith(prefix)).sort((a, b) => compareKeys(a.key, b.key));
  for (const object of matching) {
    let key = object.key;
    let isPrefix = false;
    if (options.delimiter === "/") {
      const slash = key.indexOf("/", prefix.length);
      if (slash !== -1) {
        key = key.slice(0, slash + 1);
        isPrefix = true;
        if (seenPrefixes.has(key)) continue;
        seenPrefixes.add(key);
      }
    }
    if (!page.wants(key, false)) continue;
    if (page.full) {
      page.more = true;
      break;
    }
    if (keyProblem(isPrefix ? key.slice(0, -1) : key) !== null) page.skipped++;
    else if (isPrefix) page.addPrefix(key);
    else page.addObject(object);
  }
  return page.result();
}

/** Collects one page in key order: skips what the cursor already covered, stops at the limit. */
class PageBuilder {
  private readonly objects: ObjectInfo[] = [];
  private readonly prefixes: string[] = [];
  private last: string | null = null;
  skipped = 0;
  readonly skippedFolders: SkippedFolder[] = [];
  more = false;

  constructor(readonly options: DriverListOptions) {}

  get count(): number {
    return this.objects.length + this.prefixes.length;
  }

  get full(): boolean {
    return this.count >= this.options.limit;
  }

  /** Whether an entry (or, for a folder being descended, anything below it) comes after the cursor. */
  wants(sortKey: string, descends: boolean): boolean {
    const cursor = this.options.cursor;
    if (cursor === undefined) return true;
    if (descends && cursor.startsWith(sortKey)) return true;
    return compareKeys(sortKey, cursor) > 0;
  }

  addObject(info: ObjectInfo): void {
    this.objects.push(info);
    this.last = info.key;
  }

  addPrefix(prefix: string): void {
    this.prefixes.push(prefix);
    this.last = prefix;
  }

  result(): ListPage {
    return { objects: this.objects, prefixes: this.prefixes, cursor: this.more ? this.last : null, skipped: this.skipped, ...(this.skippedFolders.length === 0 ? {} : { skippedFolders: this.skippedFolders }) };
  }
}
