/**
 * `PodmanSandbox`: a container whose `/workspace` is an overlay directory on the host,
 * bind-mounted read-write. Its `filesystem` is the host backend rooted at the overlay with
 * mount point `/workspace`, so `/workspace/src/a.ts` and `src/a.ts` name the same file and
 * what the filesystem writes, commands in the container see at once (and the other way
 * round). The filesystem works before the container starts and across container restarts.
 *
 * On the host, one sandbox is one private directory:
 *
 *   <overlayRoot>/<id>/owner.json    which process owns it (stale sandboxes are reaped)
 *   <overlayRoot>/<id>/workspace/    the overlay, mounted at /workspace
 *   <overlayRoot>/<id>/state/        crash-recovery journals and staging (outside /workspace)
 *   <overlayRoot>/<id>/snapshots/    reflink/copy snapshots, or the git repository
 *
 * Snapshots reuse the host snapshot strategies (`HostSnapshots`): "overlay" (default)
 * clones the overlay with reflinks where the filesystem supports them, else copies it
 * (each snapshot stores only what changed since the previous one); "git" keeps an external bare
 * repository. Records say `backend: "podman"` and `strategy: "overlay-<name>"`.
 * `commitContainer()` is `podman commit` (the container's own filesystem — never the
 * bind-mounted workspace); podman refuses it for `--rootfs` containers.
 *
 * `close()` removes the container, the snapshots and the overlay; so does process exit
 * (signals included). Nothing is left in `podman ps -a`.
 */
import { randomUUID } from "node:crypto";
import { promises as fsp } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { BackendUnavailableError, SnapshotIncompatibleError } from "../errors.js";
import { HostSnapshots } from "../filesystem/host/snapshots/host-snapshots.js";
import { supportsReflink } from "../filesystem/host/snapshots/detect-strategy.js";
import type { HostSnapshotStrategyName } from "../filesystem/host/snapshots/strategy.js";
import type { SnapshotRetentionPolicy } from "../filesystem/snapshot-retention.js";
import type { FilesystemDiff, FilesystemSnapshot, SnapshotOptions } from "../filesystem/snapshot-contract.js";
import type { ToolDefinition } from "../tools/types.js";
import type { FilesystemLimits } from "../filesystem/limits.js";
import { HostFilesystem } from "../filesystem/host/host-filesystem.js";
import { ownerAlive, ownerTag, trackForCleanup } from "../filesystem/podman/cleanup.js";
import { PodmanContainer, type ContainerExecOptions, type ContainerExecResult, type PodmanContainerOptions } from "../filesystem/podman/container.js";
import { hydrateOverlay, type OverlayMount, type OverlayHydration } from "../filesystem/podman/hydrate.js";
import { defaultPodman, type Podman } from "../filesystem/podman/podman-cli.js";
import { ensurePrivateDirectory } from "../filesystem/podman/rootfs.js";
import { createShellTool, type CommandRunner, type ShellToolOptions, type ShellValue } from "../tools/shell-tool.js";

/** Snapshot storage of a sandbox: "overlay" = reflink when supported, else copy. */
export type SandboxSnapshotStrategy = "overlay" | "reflink" | "copy" | "git";

export interface PodmanSandboxOptions {
  readonly podman?: Podman;
  /** Parent of sandbox directories (default `<tmpdir>/wink-podman-sandboxes-<uid>`, private to this user). */
  readonly overlayRoot?: string;
  /** Host directories or files copied into the overlay before the container starts. */
  readonly mounts?: readonly OverlayMount[];
  /** Host directories `mounts` may read from (as for a workspace's host mounts); an empty list allows nothing. */
  readonly allowedHostRoots?: readonly string[];
  /** Container settings (image or rootfs, limits, env…); the workspace mount is the overlay. */
  readonly container?: Omit<PodmanContainerOptions, "workspace" | "workdir" | "podman">;
  /** Start the container in `create()` (default true); otherwise on the first command. */
  readonly start?: boolean;
  /**
   * Options of the workspace filesystem. `mountPoint` defaults to "/workspace". `readOnly`
   * makes the filesystem (the agent's file tools) read-only; commands in the container can
   * still write to /workspace.
   */
  readonly filesystem?: {
    readonly readOnly?: boolean;
    readonly limits?: Partial<FilesystemLimits>;
    readonly mountPoint?: string | null;
    readonly allowGitMetadataWrites?: boolean;
    /** fsync writes and restores (default true). */
    readonly durable?: boolean;
  };
  readonly snapshotStrategy?: SandboxSnapshotStrategy;
  /** Snapshots kept after each new one (default: the spec's 10, tagged ones kept); null keeps every snapshot. */
  readonly snapshotRetention?: SnapshotRetentionPolicy | null;
  readonly shellTool?: ShellToolOptions;
}

const WORKDIR = "/workspace";
const OWNER_FILE = "owner.json";
let reapedSandboxes: Promise<unknown> | null = null;

function defaultOverlayRoot(): string {
  return join(tmpdir(), `wink-podman-sandboxes-${typeof process.getuid === "function" ? process.getuid() : "user"}`);
}

/** Remove sandbox directories whose owning process is gone (e.g. killed with SIGKILL). */
export async function reapOrphanedSandboxes(overlayRoot = defaultOverlayRoot()): Promise<string[]> {
  const removed: string[] = [];
  let names: string[];
  try {
    names = await fsp.readdir(overlayRoot);
  } catch {
    return removed;
  }
  for (const name of names) {
    const dir = join(overlayRoot, name);
    try {
      const owner = (JSON.parse(await fsp.readFile(join(dir, OWNER_FILE), "utf8")) as { owner?: unknown }).owner;
      if (typeof owner === "string" && !ownerAlive(owner)) {
        await fsp.rm(dir, { recursive: true, force: true });
        removed.push(dir);
      }
    } catch {
      // no owner file yet (being created) or unreadable: not ours to judge
    }
  }
  return removed;
}

function toSandboxRecord(record: FilesystemSnapshot): FilesystemSnapshot {
  return { ...record, backend: "podman", strategy: `overlay-${record.strategy}` };
}

function toHostRecord(record: FilesystemSnapshot): FilesystemSnapshot {
  if (record.backend === "podman" && record.strategy.startsWith("overlay-")) return { ...record, backend: "host", strategy: record.strategy.slice("overlay-".length) };
  if (record.backend === "podman" && record.strategy === "container-commit") {
    throw new SnapshotIncompatibleError(`Snapshot ${record.snapshotId} is a container image (${record.commitRef}): start a new sandbox from it with PodmanSandbox.create({ container: { image } })`, {
      snapshotId: record.snapshotId,
      strategy: record.strategy,
    });
  }
  throw new SnapshotIncompatibleError(`A ${record.backend}/${record.strategy} snapshot cannot be restored into a Podman sandbox`, { snapshotId: record.snapshotId, backend: record.backend });
}

/** A container with a host overlay at /workspace. */
export class PodmanSandbox implements CommandRunner {
  readonly workdir = WORKDIR;
  private containerPromise: Promise<PodmanContainer> | null = null;
  private closing: Promise<void> | null = null;
  private shell: ToolDefinition<ShellValue> | null = null;
  private current: string | null = null;

  private constructor(
    /** Unique id (also the name of the sandbox directory). */
    readonly id: string,
    /** The sandbox directory on the host (overlay, state, snapshots). */
    readonly directory: string,
    /** The workspace filesystem: the host backend rooted at the overlay. */
    readonly filesystem: HostFilesystem,
    /** What the host mounts copied in. */
    readonly hydration: OverlayHydration,
    private readonly snapshots: HostSnapshots,
    private readonly options: PodmanSandboxOptions,
    private readonly untrack: () => void,
  ) {}

  /** Create the overlay (hydrated from `mounts`) and, unless `start: false`, the container. */
  static async create(options: PodmanSandboxOptions = {}): Promise<PodmanSandbox> {
    const overlayRoot = options.overlayRoot ?? defaultOverlayRoot();
    await ensurePrivateDirectory(overlayRoot);
    reapedSandboxes ??= reapOrphanedSandboxes(overlayRoot).catch(() => []);
    await reapedSandboxes;
    const directory = await fsp.mkdtemp(join(overlayRoot, "sbx-"));
    const untrack = trackForCleanup({ kind: "path", path: directory });
    try {
      await fsp.writeFile(join(directory, OWNER_FILE), `${JSON.stringify({ owner: ownerTag(), createdAt: new Date().toISOString() })}\n`);
      const overlay = join(directory, "workspace");
      const state = join(directory, "state");
      const storage = join(directory, "snapshots");
      await fsp.mkdir(overlay, { mode: 0o755 });
      await fsp.chmod(overlay, 0o755);
      await fsp.mkdir(state, { mode: 0o700 });
      await fsp.mkdir(storage, { mode: 0o700 });
      const hydration = await hydrateOverlay(overlay, options.mounts ?? [], { allowedHostRoots: options.allowedHostRoots ?? [] });
      const fsOptions = options.filesystem ?? {};
      const durable = fsOptions.durable ?? true;
      const filesystem = new HostFilesystem({
        root: overlay,
        stateDir: state,
        durable,
        mountPoint: fsOptions.mountPoint === undefined ? WORKDIR : fsOptions.mountPoint,
        ...(fsOptions.readOnly === undefined ? {} : { readOnly: fsOptions.readOnly }),
        ...(fsOptions.limits === undefined ? {} : { limits: fsOptions.limits }),
        ...(fsOptions.allowGitMetadataWrites === undefined ? {} : { allowGitMetadataWrites: fsOptions.allowGitMetadataWrites }),
      });
      const requested = options.snapshotStrategy ?? "overlay";
      const strategy: HostSnapshotStrategyName = requested === "overlay" ? (supportsReflink(overlay, storage) ? "reflink" : "copy") : requested;
      const snapshots = new HostSnapshots(overlay, {
        strategy,
        ...(strategy === "git" ? { gitDir: join(storage, "git") } : { snapshotDir: join(storage, strategy) }),
        treeApply: { stateDir: state, durable },
        filesystem,
        ...(options.snapshotRetention === undefined ? {} : { retention: options.snapshotRetention }),
      });
      const sandbox = new PodmanSandbox(basename(directory), directory, filesystem, hydration, snapshots, options, untrack);
      if (options.start ?? true) await sandbox.container();
      return sandbox;
    } catch (error) {
      await fsp.rm(directory, { recursive: true, force: true });
      untrack();
      throw error;
    }
  }

  /** Host path of the overlay (bind-mounted at /workspace). */
  get overlayPath(): string {
    return this.filesystem.root;
  }

  get closed(): boolean {
    return this.closing !== null;
  }

  /** The container, started on first use. */
  container(): Promise<PodmanContainer> {
    if (this.closing !== null) return Promise.reject(new BackendUnavailableError(`Sandbox ${this.id} is closed`, { sandbox: this.id }));
    if (this.containerPromise === null) {
      this.containerPromise = PodmanContainer.create({
        ...this.options.container,
        podman: this.options.podman ?? defaultPodman(),
        workdir: WORKDIR,
        workspace: { kind: "bind", hostPath: this.overlayPath },
        name: this.options.container?.name ?? `wink-${this.id.replace(/[^A-Za-z0-9_.-]/g, "")}`,
      });
      this.containerPromise.catch(() => {
        this.containerPromise = null;
      });
    }
    return this.containerPromise;
  }

  /** Run argv in the container (started if needed); see `PodmanContainer.exec`. */
  async exec(argv: readonly string[], options: ContainerExecOptions = {}): Promise<ContainerExecResult> {
    return (await this.container()).exec(argv, options);
  }

  /** The shell tool bound to this sandbox. */
  get shellTool(): ToolDefinition<ShellValue> {
    this.shell ??= createShellTool(this, this.options.shellTool);
    return this.shell;
  }

  // ------------------------------------------------------------------ snapshots

  /** Id of the snapshot last taken or restored. */
  get currentSnapshotId(): string | null {
    return this.current;
  }

  /** Snapshot the workspace (the overlay directory). */
  async snapshot(options: SnapshotOptions = {}): Promise<FilesystemSnapshot> {
    const record = toSandboxRecord(await this.snapshots.snapshot(options));
    this.current = record.snapshotId;
    return record;
  }

  /** Make the workspace exactly the snapshot's state, all-or-nothing; the container sees it at once. */
  async restore(snapshot: FilesystemSnapshot): Promise<void> {
    await this.snapshots.restore(toHostRecord(snapshot));
    this.current = snapshot.snapshotId;
  }

  /** Changes from `base` to `target`, or to the current workspace. */
  diff(base: FilesystemSnapshot, target: FilesystemSnapshot | null = null): Promise<FilesystemDiff> {
    return this.snapshots.diff(toHostRecord(base), target === null ? null : toHostRecord(target));
  }

  /** Free one snapshot's storage. */
  release(snapshot: FilesystemSnapshot): Promise<void> {
    return this.snapshots.release(toHostRecord(snapshot));
  }

  /** Snapshots held in this sandbox's storage, oldest first. */
  async listSnapshots(): Promise<FilesystemSnapshot[]> {
    return (await this.snapshots.list()).map(toSandboxRecord);
  }

  /**
   * `podman commit` the container into a local image and describe it as a snapshot
   * (`strategy: "container-commit"`, `commitRef`: the image id). It captures the
   * container's own filesystem (installed tools, /etc…), not the bind-mounted workspace;
   * use `snapshot()` for that. Needs a container started from an image.
   */
  async commitContainer(options: SnapshotOptions = {}): Promise<FilesystemSnapshot> {
    const container = await this.container();
    const snapshotId = randomUUID();
    const imageRef = `localhost/wink-snapshot:${snapshotId}`;
    const imageId = await container.commit(imageRef);
    return {
      snapshotId,
      createdAt: new Date().toISOString(),
      parentId: this.current,
      tag: options.tag ?? null,
      fileCount: 0,
      totalBytes: 0,
      backend: "podman",
      strategy: "container-commit",
      commitRef: imageId,
      rootPath: WORKDIR,
      storagePath: imageRef,
    };
  }

  // ------------------------------------------------------------------ lifecycle

  /** Remove the container, the snapshots and the overlay. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const errors: unknown[] = [];
      const container = this.containerPromise === null ? null : await this.containerPromise.catch(() => null);
      if (container !== null) await container.remove().catch((error: unknown) => errors.push(error));
      await this.snapshots.cleanup().catch((error: unknown) => errors.push(error));
      await fsp.rm(this.directory, { recursive: true, force: true }).catch((error: unknown) => errors.push(error));
      this.untrack();
      if (errors.length > 0) throw errors[0];
    })();
    return this.closing;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
