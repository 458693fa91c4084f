import * as fs from "node:fs";
import { randomBytes } from "node:crypto";
import { StorageIOError } from "../../../errors.js";
import { CREATE_FLAGS, type Name, fsyncDirSync, openBaseSync, writeAllSync } from "../io/confined.js";
import { errnoCode } from "../../errno.js";
import { mapFsError } from "../io/host-errors.js";
import { type RootInfo, busyError, journalPath, unlinkQuietly } from "./state.js";
import { JOURNAL_VERSION } from "./types.js";

export type JournalOp =
  | { op: "delete"; path: string; raw?: string; trash: string }
  | { op: "mkdir"; path: string; mode?: number }
  | { op: "put"; path: string; raw?: string; source: string; sourceRaw?: string }
  | { op: "chmod"; path: string; mode: number };

export interface Journal {
  version: number;
  root: string;
  rootDev: number;
  rootIno: number;
  pid: number;
  createdAt: string;
  staging: { basePath: string; segments: string[]; insideRoot: boolean };
  durable: boolean;
  ops: JournalOp[];
  /** Set once phase 1 (deletions into the trash) is complete: it must not run again after puts began. */
  deletesDone?: boolean;
}

/** Segments of a journal path, using the raw bytes when the name is not valid UTF-8. */
export function journalSegments(text: string, raw: string | undefined): Name[] {
  if (raw === undefined) return text.split("/");
  const bytes = Buffer.from(raw, "base64");
  const segments: Buffer[] = [];
  let start = 0;
  for (let i = 0; i <= bytes.length; i++) {
    if (i === bytes.length || bytes[i] === 0x2f) {
      segments.push(bytes.subarray(start, i));
      start = i + 1;
    }
  }
  return segments;
}

/** Write `journal` to a new temp file next to the journal; returns its path. */
function journalTemp(info: RootInfo, journal: Journal): string {
  const temp = `${journalPath(info)}.tmp-${process.pid}-${randomBytes(6).toString("hex")}`;
  const fd = fs.openSync(temp, CREATE_FLAGS, 0o600);
  try {
    writeAllSync(fd, Buffer.from(JSON.stringify(journal)), 0);
    if (journal.durable) fs.fsyncSync(fd);
  } catch (error) {
    unlinkQuietly(temp);
    throw error;
  } finally {
    fs.closeSync(fd);
  }
  return temp;
}

/** Commit: the journal appears atomically, or the apply is refused when another holds it. */
export function writeJournal(info: RootInfo, journal: Journal): void {
  const target = journalPath(info);
  const temp = journalTemp(info, journal);
  try {
    // link() is the commit: atomic, and it fails if another apply holds the journal.
    fs.linkSync(temp, target);
  } catch (error) {
    if (errnoCode(error) === "EEXIST") {
      let other: Journal | null = null;
      try {
        other = readJournal(info);
      } catch {
        // unreadable: still busy
      }
      throw busyError(info, other?.pid ?? -1);
    }
    throw error;
  } finally {
    unlinkQuietly(temp);
  }
  if (journal.durable) syncDirectory(info.stateDir);
}

/** Replace the committed journal atomically (after a phase is complete). */
export function rewriteJournal(info: RootInfo, journal: Journal): void {
  const temp = journalTemp(info, journal);
  try {
    fs.renameSync(temp, journalPath(info));
  } catch (error) {
    unlinkQuietly(temp);
    throw error;
  }
  if (journal.durable) syncDirectory(info.stateDir);
}

export function syncDirectory(dirPath: string): void {
  const dir = openBaseSync(dirPath);
  try {
    fsyncDirSync(dir);
  } finally {
    dir.closeSync();
  }
}

export function readJournal(info: RootInfo): Journal | null {
  let text: string;
  try {
    text = fs.readFileSync(journalPath(info), "utf8");
  } catch (error) {
    if (errnoCode(error) === "ENOENT") return null;
    throw mapFsError(error, "", "read the tree-change journal of");
  }
  const journal = JSON.parse(text) as Journal;
  if (journal.version !== JOURNAL_VERSION || !Array.isArray(journal.ops)) {
    throw new StorageIOError(undefined, `Unreadable tree-change journal ${journalPath(info)}`, { journal: journalPath(info) });
  }
  return journal;
}
