/**
 * Which of the two `.fs.zip` layouts an archive uses, and which of its entries are the
 * workspace. Browser-safe: the server's reader and the in-browser reader decide alike.
 *
 * - "root-metadata" (WINK's PR layout): a root `_wink_metadata.json` file decides. Every
 *   other entry is a workspace file, a root `manifest.json` included (a browser extension or
 *   a PWA has one of its own).
 * - "files": `manifest.json` + `files/<path>`; root entries other than the manifest are
 *   ignored, with a warning.
 * - Neither file: "files" when every entry starts with `files/`, else "root-metadata",
 *   without a manifest.
 */
import { FILES_PREFIX } from "./entry-names.js";
import type { EntryLookup } from "./entry-set.js";
import { MANIFEST_NAME, WINK_METADATA_NAME, type ManifestSource } from "./manifest.js";

/** "files": `manifest.json` + `files/…`; "root-metadata": root entries + `_wink_metadata.json`. */
export type ArchiveVariant = "files" | "root-metadata";

interface LayoutEntry {
  readonly name: string;
  readonly path: string;
  readonly isDirectory: boolean;
}

/** The entries of an archive sorted into what its layout makes of them. */
export interface Layout<T extends LayoutEntry> {
  readonly variant: ArchiveVariant;
  /** The file the variant takes its manifest from. */
  readonly manifestName: ManifestSource;
  /** That file's entry, or null when the archive has none. */
  readonly manifestEntry: T | null;
  readonly files: T[];
  readonly directoryEntries: T[];
  /** Workspace paths of the directory entries (without the prefix). */
  readonly directories: string[];
  /** Entries outside the layout (root entries of the "files" variant). */
  readonly ignored: string[];
  /** What entry names add in front of workspace paths. */
  readonly prefix: string;
}

/** Sorts `entries` (validated, duplicate-free; `byPath` finds one by path) into their layout. */
export function pickLayout<T extends LayoutEntry>(entries: readonly T[], byPath: EntryLookup<T>): Layout<T> {
  const asFile = (name: string): T | null => {
    const entry = byPath(name);
    return entry !== undefined && !entry.isDirectory ? entry : null;
  };
  const metadata = asFile(WINK_METADATA_NAME);
  const manifest = metadata === null ? asFile(MANIFEST_NAME) : null;
  const filesPrefixed = entries.length > 0 && entries.every((e) => e.name.startsWith(FILES_PREFIX));
  const rootVariant = metadata !== null || (manifest === null && !filesPrefixed && entries.length > 0);
  const variant: ArchiveVariant = rootVariant ? "root-metadata" : "files";
  const manifestEntry = rootVariant ? metadata : manifest;
  const prefix = rootVariant ? "" : FILES_PREFIX;
  const layout: Layout<T> = {
    variant,
    manifestName: rootVariant ? WINK_METADATA_NAME : MANIFEST_NAME,
    manifestEntry,
    files: [],
    directoryEntries: [],
    directories: [],
    ignored: [],
    prefix,
  };
  for (const entry of entries) {
    if (entry === manifestEntry) continue;
    if (!rootVariant && !entry.name.startsWith(FILES_PREFIX)) {
      layout.ignored.push(entry.name);
      continue;
    }
    if (entry.isDirectory) {
      layout.directoryEntries.push(entry);
      const path = entry.path.slice(prefix.length);
      if (path !== "") layout.directories.push(path);
    } else layout.files.push(entry);
  }
  return layout;
}
