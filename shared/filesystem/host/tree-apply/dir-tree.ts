import path from "node:path";
import { InvalidArgumentError } from "../../../errors.js";
import { displayPath } from "../../paths.js";
import { type DirHandle, type Name, openBaseSync, openChildDirSync, removeEntrySync } from "../io/confined.js";
import { type RootInfo } from "./state.js";
import { MAX_HELD_DIRS, YIELD_EVERY } from "./types.js";

/** Segments of a relative path (validated: no "", ".", ".." segments, no NUL). */
export function segmentsOf(rel: string, what: string): string[] {
  if (typeof rel !== "string" || rel === "" || rel.includes("\0")) throw new InvalidArgumentError(`Invalid ${what} path: ${displayPath(String(rel))}`, { path: String(rel) });
  const segments = rel.split("/");
  for (const segment of segments) {
    if (segment === "" || segment === "." || segment === "..") throw new InvalidArgumentError(`Invalid ${what} path: ${displayPath(rel)}`, { path: rel });
  }
  return segments;
}

/** A directory reached from a base path through confined segments. */
export interface Location {
  readonly basePath: string;
  readonly segments: readonly Name[];
}

/** A segment as the bytes it names (a string segment is UTF-8), so keys never collide. */
function segmentKey(segment: Name): string {
  if (typeof segment !== "string") return segment.toString("latin1");
  return /^[\x00-\x7f]*$/.test(segment) ? segment : Buffer.from(segment, "utf8").toString("latin1");
}

export function keyOf(segments: readonly Name[]): string {
  return segments.map(segmentKey).join("/");
}

/**
 * The directories below one location, each opened once (confined, one hop at a time from
 * its parent's descriptor) and held until `close()`. `forget` drops what an operation
 * moved or removed, so a held descriptor always names what is at its path as far as
 * this apply knows.
 */
export class DirTree {
  private readonly held = new Map<string, DirHandle>();

  constructor(private readonly location: Location) {}

  /** The directory `extra` below the location; `createMode` creates missing ones. */
  open(extra: readonly Name[], fullPath: string, createMode?: number): DirHandle {
    if (this.held.size >= MAX_HELD_DIRS) this.close();
    let key = "";
    let dir = this.held.get(key);
    if (dir === undefined) {
      dir = openBaseSync(this.location.basePath);
      try {
        for (const segment of this.location.segments) {
          const next = openChildDirSync(dir, segment, fullPath, createMode);
          dir.closeSync();
          dir = next;
        }
      } catch (error) {
        dir.closeSync();
        throw error;
      }
      this.held.set(key, dir);
    }
    for (const segment of extra) {
      key = key === "" ? segmentKey(segment) : `${key}/${segmentKey(segment)}`;
      let next = this.held.get(key);
      if (next === undefined) {
        next = openChildDirSync(dir, segment, fullPath, createMode);
        this.held.set(key, next);
      }
      dir = next;
    }
    return dir;
  }

  /** Drop the descriptors of `segments` and everything below it. */
  forget(segments: readonly Name[]): void {
    const key = keyOf(segments);
    for (const [held, handle] of this.held) {
      if (key === "" || held === key || held.startsWith(`${key}/`)) {
        handle.closeSync();
        this.held.delete(held);
      }
    }
  }

  close(): void {
    for (const handle of this.held.values()) handle.closeSync();
    this.held.clear();
  }
}

/** Run `fn` on one directory of `location`, opened for the call only. */
export function atLocation<T>(location: Location, extra: readonly Name[], fullPath: string, fn: (dir: DirHandle) => T, createMode?: number): T {
  const tree = new DirTree(location);
  try {
    return fn(tree.open(extra, fullPath, createMode));
  } finally {
    tree.close();
  }
}

/** Counts operations and gives the event loop a turn every `YIELD_EVERY` of them. */
export function breather(): () => Promise<void> {
  let count = 0;
  return async () => {
    if (++count % YIELD_EVERY === 0) await new Promise<void>((resolve) => setImmediate(resolve));
  };
}


export function removeStagingArea(info: RootInfo, location: Location, insideRoot: boolean): void {
  if (insideRoot) {
    atLocation({ basePath: info.real, segments: [] }, [], "", (root) => removeEntrySync(root, location.segments[0] as Name, String(location.segments[0])));
  } else {
    const parent = path.dirname(location.basePath);
    atLocation({ basePath: parent, segments: [] }, [], "", (dir) => removeEntrySync(dir, path.basename(location.basePath), path.basename(location.basePath)));
  }
}
