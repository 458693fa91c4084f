/**
 * Test support: what a caller can observe of a filesystem through the public protocol,
 * as a plain value that tests compare with `toEqual`.
 */
import type { Filesystem } from "../protocol.js";

export type FileState = { readonly base64: string; readonly mode: number | null };
/** What a caller can observe: every file with its bytes and mode, and every directory. */
export interface Observed {
  readonly files: ReadonlyMap<string, FileState>;
  readonly directories: readonly string[];
}

export async function observe(fs: Filesystem): Promise<Observed> {
  const files = new Map<string, FileState>();
  const directories: string[] = [];
  const pending = ["."];
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    for (const entry of await fs.list(dir)) {
      if (entry.isDirectory) {
        directories.push(entry.path);
        pending.push(entry.path);
      } else {
        const content = (await fs.readBytes(entry.path)).content;
        files.set(entry.path, { base64: Buffer.from(content).toString("base64"), mode: (await fs.stat(entry.path)).mode });
      }
    }
  }
  return { files: new Map([...files].sort(([a], [b]) => (a < b ? -1 : 1))), directories: directories.sort() };
}

