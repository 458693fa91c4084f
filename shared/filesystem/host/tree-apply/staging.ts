import * as fs from "node:fs";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { FileExistsError, StorageIOError } from "../../../errors.js";
import type { FileSink } from "../../driver.js";
import { displayPath } from "../../paths.js";
import { CREATE_FLAGS, openBaseSync, writeAllSync } from "../io/confined.js";
import { errnoCode } from "../../errno.js";
import { mapFsError } from "../io/host-errors.js";
import { DirTree, type Location, atLocation, removeStagingArea, segmentsOf } from "./dir-tree.js";
import { recoverWithInfo } from "./recover.js";
import { type RootInfo, liveStagings, rootInfo, unlinkQuietly } from "./state.js";
import { PERMISSION_BITS, STAGING_PREFIX, type TreeApplyOptions } from "./types.js";

/**
 * A staging area for one apply: build new content in `treeDir` (with the methods below, or
 * with any tool, e.g. `git --work-tree=<treeDir> checkout`), then hand it to
 * `replaceTreeContents` or `applyStagedChanges`. `discard()` drops it.
 */
export class TreeStaging {
  /** Directory of the whole staging area (absolute). */
  readonly dir: string;
  /** Where the new content goes: paths of `put` sources are relative to it. */
  readonly treeDir: string;
  private finished = false;

  /** @internal use `createTreeStaging`. */
  constructor(
    /** The root as given. */
    readonly root: string,
    /** @internal */ readonly info: RootInfo,
    /** @internal */ readonly location: Location,
    /** True when staging had to live inside the root (hidden, reserved name). */
    readonly insideRoot: boolean,
    readonly options: TreeApplyOptions,
  ) {
    this.dir = insideRoot ? path.join(info.real, String(location.segments[0])) : location.basePath;
    this.treeDir = path.join(this.dir, "tree");
    liveStagings.add(path.basename(this.dir));
  }

  /** @internal */
  get tree(): Location {
    return { basePath: this.location.basePath, segments: [...this.location.segments, "tree"] };
  }

  /** @internal */
  get trash(): Location {
    return { basePath: this.location.basePath, segments: [...this.location.segments, "trash"] };
  }

  private checkOpen(): void {
    if (this.finished) throw new StorageIOError(undefined, "Tree staging already committed or discarded");
  }

  private treeDirs: DirTree | null = null;

  /** The staging tree's directories, held while the staging is being filled. */
  private dirs(): DirTree {
    this.treeDirs ??= new DirTree(this.tree);
    return this.treeDirs;
  }

  private releaseDirs(): void {
    this.treeDirs?.close();
    this.treeDirs = null;
  }

  /** Create a directory in the staging tree (parents included); `mode` sets its permission bits. */
  async mkdir(rel: string, mode?: number): Promise<void> {
    this.checkOpen();
    const dir = this.dirs().open(segmentsOf(rel, "staged"), rel, 0o755);
    if (mode === undefined) return;
    try {
      fs.fchmodSync(dir.fd, mode & PERMISSION_BITS);
    } catch (error) {
      throw mapFsError(error, rel, "set the mode of");
    }
  }

  /** Create a file in the staging tree (parents included) and return a sink for its bytes. */
  async createFile(rel: string, mode?: number): Promise<FileSink> {
    this.checkOpen();
    const segments = segmentsOf(rel, "staged");
    const name = segments.pop() as string;
    const dir = this.dirs().open(segments, rel, 0o755);
    let fd: number;
    try {
      fd = fs.openSync(dir.at(name), CREATE_FLAGS, 0o600);
    } catch (error) {
      if (errnoCode(error) === "EEXIST") throw new FileExistsError(rel, `Duplicate entry in the new tree: ${displayPath(rel)}`);
      throw mapFsError(error, rel, "stage");
    }
    const durable = this.options.durable ?? true;
    let position = 0;
    let closed = false;
    const closeQuietly = (): void => {
      try {
        fs.closeSync(fd);
      } catch {
        // nothing left to release
      }
    };
    return {
      write: async (chunk: Uint8Array): Promise<void> => {
        if (closed) throw new StorageIOError(rel, `Write after close: ${displayPath(rel)}`);
        try {
          writeAllSync(fd, chunk, position);
        } catch (error) {
          closed = true;
          closeQuietly();
          throw mapFsError(error, rel, "stage");
        }
        position += chunk.byteLength;
      },
      close: async (): Promise<void> => {
        if (closed) return;
        closed = true;
        try {
          fs.fchmodSync(fd, (mode ?? 0o644) & PERMISSION_BITS);
          if (durable) fs.fsyncSync(fd);
        } catch (error) {
          throw mapFsError(error, rel, "stage");
        } finally {
          closeQuietly();
        }
      },
    };
  }

  /** Stage a whole file. */
  async writeFile(rel: string, data: Uint8Array | AsyncIterable<Uint8Array>, mode?: number): Promise<void> {
    const sink = await this.createFile(rel, mode);
    try {
      if (data instanceof Uint8Array) await sink.write(data);
      else for await (const chunk of data) await sink.write(chunk);
    } finally {
      await sink.close();
    }
  }

  /** Stage a symbolic link (it is moved into place as a link; never followed). */
  async symlink(rel: string, target: string): Promise<void> {
    this.checkOpen();
    const segments = segmentsOf(rel, "staged");
    const name = segments.pop() as string;
    const dir = this.dirs().open(segments, rel, 0o755);
    try {
      fs.symlinkSync(target, dir.at(name));
    } catch (error) {
      throw mapFsError(error, rel, "stage");
    }
  }

  /** Remove the staging area; the workspace is untouched. Idempotent. */
  async discard(): Promise<void> {
    this.finished = true;
    this.releaseDirs();
    try {
      removeStagingArea(this.info, this.location, this.insideRoot);
    } finally {
      liveStagings.delete(path.basename(this.dir));
    }
  }

  /** @internal */
  markFinished(): void {
    this.checkOpen();
    this.finished = true;
    this.releaseDirs();
  }
}

/** Can entries be renamed from `stagingDir` into the root (same mount, not just same device)? */
function renameWorks(info: RootInfo, stagingDir: string): boolean {
  const probe = `${STAGING_PREFIX}${process.pid}-probe-${randomBytes(6).toString("hex")}`;
  const source = path.join(stagingDir, "probe");
  fs.writeFileSync(source, "");
  const root = openBaseSync(info.real);
  try {
    try {
      fs.renameSync(source, root.at(probe));
    } catch (error) {
      unlinkQuietly(source);
      if (errnoCode(error) === "EXDEV") return false;
      throw mapFsError(error, "", "write into");
    }
    unlinkQuietly(root.at(probe));
    return true;
  } finally {
    root.closeSync();
  }
}


/**
 * Start an apply on `root`: recovers an earlier interrupted apply first, then creates a
 * staging area on the root's filesystem.
 */
export async function createTreeStaging(root: string, options: TreeApplyOptions = {}): Promise<TreeStaging> {
  const info = rootInfo(root, options);
  fs.mkdirSync(info.stateDir, { recursive: true, mode: 0o700 });
  await recoverWithInfo(info, options);
  const unique = `${process.pid}-${randomBytes(6).toString("hex")}`;

  const outside = path.join(info.stateDir, `staging-${info.key}-${unique}`);
  fs.mkdirSync(outside, { mode: 0o700 });
  let usable: boolean;
  try {
    usable = fs.statSync(outside).dev === info.dev && renameWorks(info, outside);
  } catch (error) {
    fs.rmSync(outside, { recursive: true, force: true });
    throw error;
  }
  let staging: TreeStaging;
  if (usable) {
    staging = new TreeStaging(root, info, { basePath: outside, segments: [] }, false, options);
  } else {
    fs.rmSync(outside, { recursive: true, force: true });
    const name = `${STAGING_PREFIX}${unique}`;
    atLocation({ basePath: info.real, segments: [] }, [], "", (dir) => {
      try {
        fs.mkdirSync(dir.at(name), 0o700);
      } catch (error) {
        throw mapFsError(error, "", "create a staging directory in");
      }
    });
    staging = new TreeStaging(root, info, { basePath: info.real, segments: [name] }, true, options);
  }
  try {
    atLocation(staging.location, [], "", (dir) => {
      for (const sub of ["tree", "trash"]) fs.mkdirSync(dir.at(sub), 0o700);
    });
  } catch (error) {
    await staging.discard();
    throw mapFsError(error, "", "prepare staging for");
  }
  return staging;
}
