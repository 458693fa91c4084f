/**
 * One sandbox container: created with safe defaults, commands run in it with a deadline and
 * bounded output, removed on `remove()` or when the process exits.
 *
 * Defaults: no network, `no-new-privileges`, every capability dropped, memory/pids/CPU
 * limits, a read-only root filesystem with a writable `/workspace` (bind mount or tmpfs) and
 * `/tmp` (tmpfs). PID 1 is a busybox shell loop that reaps orphans (commands killed on
 * timeout leave none behind) and exits on SIGTERM, so stopping is instant.
 */
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { BackendUnavailableError, InvalidArgumentError, SnapshotCreationError } from "../../errors.js";
import { MANAGED_LABEL, OWNER_LABEL, ownerTag, reapOrphanedContainers, trackForCleanup } from "./cleanup.js";
import { defaultPodman, stderrExcerpt, type Podman } from "./podman-cli.js";
import { ensureBusyboxRootfs } from "./rootfs.js";

/** Where the workspace inside the container comes from. */
export type WorkspaceMount =
  /** A host directory bind-mounted read-write (the overlay of `PodmanSandbox`). */
  | { readonly kind: "bind"; readonly hostPath: string }
  /** A tmpfs private to the container (exec-only access, nothing on the host). */
  | { readonly kind: "tmpfs"; readonly sizeBytes?: number }
  /** Part of the container's own filesystem (needs a writable rootfs; survives `podman commit`). */
  | { readonly kind: "container" };

export interface PodmanContainerOptions {
  readonly podman?: Podman;
  /** Root filesystem directory (`--rootfs`); default: the cached busybox rootfs. */
  readonly rootfs?: string;
  /** An image instead of a rootfs directory (needed for `podman commit`). */
  readonly image?: string;
  /** Mount the root filesystem read-only (default true). */
  readonly readOnlyRootfs?: boolean;
  /** Default: a tmpfs. */
  readonly workspace?: WorkspaceMount;
  /** Mount point of the workspace and default working directory (default "/workspace"). */
  readonly workdir?: string;
  /** Default 512 MiB. */
  readonly memoryBytes?: number;
  /** Default 256. */
  readonly pidsLimit?: number;
  /** Default 1. */
  readonly cpus?: number;
  /** Size of the /tmp tmpfs (default 64 MiB). */
  readonly tmpSizeBytes?: number;
  /** Podman network mode (default "none": no network at all). */
  readonly network?: string;
  readonly env?: Readonly<Record<string, string>>;
  /** `--user` (default: root inside the container, with every capability dropped). */
  readonly user?: string;
  readonly name?: string;
  readonly labels?: Readonly<Record<string, string>>;
}

export interface ContainerExecOptions {
  /** Bytes (or UTF-8 text) for the command's stdin; default: none. */
  readonly stdin?: Uint8Array | string | null;
  /** Kill the command (and its process group) after this many ms (default 120 s; null: never). */
  readonly timeoutMs?: number | null;
  /** Keep at most this many bytes of stdout and of stderr each (default 1 MiB). */
  readonly maxOutputBytes?: number;
  /** Working directory inside the container (absolute; default the workdir). */
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
}

export interface ContainerExecResult {
  /** The command's exit code; 124 when it timed out (as timeout(1) reports). */
  readonly exitCode: number;
  readonly stdout: Buffer;
  readonly stderr: Buffer;
  /** Bytes the command wrote, including any beyond the cap. */
  readonly stdoutBytes: number;
  readonly stderrBytes: number;
  readonly stdoutTruncated: boolean;
  readonly stderrTruncated: boolean;
  readonly timedOut: boolean;
  readonly durationMs: number;
}

/** PID 1: reap orphans while waiting, exit at once on a stop signal. */
const INIT_SCRIPT = 'trap "exit 0" TERM INT HUP; while :; do sleep 2147483647 & wait; done';
/** Prints its pid (= its process group: podman exec makes it a session leader), then becomes the command. */
const EXEC_WRAPPER = 'printf "%s\\n" "$$"; exec "$@"';
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const DEFAULT_EXEC_TIMEOUT_MS = 120_000;
const DEFAULT_MAX_OUTPUT = 1024 * 1024;
/** How long a stopped command's pid is awaited when the stop came before the command started. */
const PID_WAIT_MS = 15_000;

let reaped: Promise<unknown> | null = null;

function containerPath(value: string, what: string): string {
  if (!value.startsWith("/") || /[\u0000-\u001f\u007f]/.test(value)) {
    throw new InvalidArgumentError(`${what} must be an absolute container path without control characters: ${JSON.stringify(value)}`, { [what]: value });
  }
  return value;
}

function checkArgv(argv: readonly string[]): void {
  if (!Array.isArray(argv) || argv.length === 0) throw new InvalidArgumentError("Command must be a non-empty argv array", {});
  for (const arg of argv) {
    if (typeof arg !== "string" || arg.includes("\u0000")) throw new InvalidArgumentError(`Command arguments must be strings without NUL bytes: ${JSON.stringify(arg)}`, {});
  }
}

function envArgs(env: Readonly<Record<string, string>> | undefined): string[] {
  const args: string[] = [];
  for (const [key, value] of Object.entries(env ?? {})) {
    if (!ENV_NAME.test(key) || typeof value !== "string" || value.includes("\u0000")) {
      throw new InvalidArgumentError(`Invalid environment variable ${JSON.stringify(key)}`, { key });
    }
    args.push("--env", `${key}=${value}`);
  }
  return args;
}

/** A running sandbox container. */
export class PodmanContainer {
  private removed = false;
  private untrack: () => void;

  private constructor(
    readonly podman: Podman,
    readonly id: string,
    readonly name: string,
    readonly workdir: string,
    /** The image it runs, or null for a `--rootfs` container. */
    readonly image: string | null,
  ) {
    this.untrack = trackForCleanup({ kind: "container", id, podman });
  }

  /** Create and start a container (see the module comment for the defaults). */
  static async create(options: PodmanContainerOptions = {}): Promise<PodmanContainer> {
    const podman = options.podman ?? defaultPodman();
    reaped ??= reapOrphanedContainers(podman).catch(() => []);
    await reaped;
    const workdir = containerPath(options.workdir ?? "/workspace", "workdir");
    const name = options.name ?? `wink-${randomBytes(6).toString("hex")}`;
    const workspace = options.workspace ?? { kind: "tmpfs" };
    const readOnly = options.readOnlyRootfs ?? true;
    if (workspace.kind === "container" && readOnly) {
      throw new InvalidArgumentError('A workspace of kind "container" needs a writable rootfs (readOnlyRootfs: false)', {});
    }
    const args = [
      "run", "--detach", "--name", name,
      "--label", `${MANAGED_LABEL}=true`, "--label", `${OWNER_LABEL}=${ownerTag()}`,
      "--network", options.network ?? "none",
      "--security-opt", "no-new-privileges",
      "--cap-drop", "ALL",
      "--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024",
      "--memory", String(options.memoryBytes ?? 512 * 1024 * 1024),
      "--pids-limit", String(options.pidsLimit ?? 256),
      "--cpus", String(options.cpus ?? 1),
      "--tmpfs", `/tmp:rw,nosuid,nodev,mode=1777,size=${options.tmpSizeBytes ?? 64 * 1024 * 1024}`,
      "--workdir", workdir,
      ...envArgs(options.env),
    ];
    for (const [key, value] of Object.entries(options.labels ?? {})) args.push("--label", `${key}=${value}`);
    if (readOnly) args.push("--read-only", "--read-only-tmpfs=false");
    if (options.user !== undefined) args.push("--user", options.user);
    if (workspace.kind === "bind") {
      if (/[:,\u0000-\u001f]/.test(workspace.hostPath) || !workspace.hostPath.startsWith("/")) {
        throw new InvalidArgumentError(`Bind-mounted host path must be absolute, without ":" "," or control characters: ${JSON.stringify(workspace.hostPath)}`, {});
      }
      args.push("--volume", `${workspace.hostPath}:${workdir}:rw`);
    } else if (workspace.kind === "tmpfs") {
      args.push("--tmpfs", `${workdir}:rw,nosuid,nodev,mode=0755,size=${workspace.sizeBytes ?? 256 * 1024 * 1024}`);
    }
    let image: string | null = null;
    if (options.image !== undefined) {
      image = options.image;
      args.push(image);
    } else {
      args.push("--rootfs", options.rootfs ?? (await ensureBusyboxRootfs()).path);
    }
    args.push("/bin/sh", "-c", INIT_SCRIPT);
    const result = await podman.run(args, { timeoutMs: 120_000 });
    const id = result.stdout.toString("utf8").trim().split("\n").pop() ?? "";
    if (result.exitCode !== 0 || !/^[0-9a-f]{12,64}$/.test(id)) {
      // A half-created container (created, then failed to start) must not linger.
      await podman.run(["rm", "--force", "--time", "0", "--ignore", name]).catch(() => undefined);
      throw new BackendUnavailableError(`podman could not start a container: ${stderrExcerpt(result.stderr) || `exit ${result.exitCode}`}`, { stderr: stderrExcerpt(result.stderr, 2000) });
    }
    return new PodmanContainer(podman, id, name, workdir, image);
  }

  get isRemoved(): boolean {
    return this.removed;
  }

  /**
   * Run `argv` in the container (never through a host shell). On timeout or abort the
   * command's whole process group is killed inside the container, then the client.
   */
  async exec(argv: readonly string[], options: ContainerExecOptions = {}): Promise<ContainerExecResult> {
    checkArgv(argv);
    const args = ["exec"];
    const stdin = typeof options.stdin === "string" ? Buffer.from(options.stdin, "utf8") : (options.stdin ?? null);
    if (stdin !== null) args.push("--interactive");
    if (options.cwd !== undefined) args.push("--workdir", containerPath(options.cwd, "cwd"));
    args.push(...envArgs(options.env), this.id, "/bin/sh", "-c", EXEC_WRAPPER, "wink-exec", ...argv);

    let pid: number | null = null;
    let pidArrived: (pid: number | null) => void = () => undefined;
    const pidKnown = new Promise<number | null>((resolve) => (pidArrived = resolve));
    let preamble: Buffer | null = Buffer.alloc(0);
    const stripPid = (chunk: Buffer): Buffer => {
      if (preamble === null) return chunk;
      const joined = Buffer.concat([preamble, chunk]);
      const newline = joined.indexOf(0x0a);
      if (newline === -1) {
        preamble = joined;
        return Buffer.alloc(0);
      }
      const parsed = Number(joined.subarray(0, newline).toString("latin1"));
      pid = Number.isInteger(parsed) && parsed > 1 ? parsed : null;
      pidArrived(pid);
      preamble = null;
      return joined.subarray(newline + 1);
    };
    const timeoutMs = options.timeoutMs === undefined ? DEFAULT_EXEC_TIMEOUT_MS : options.timeoutMs;
    const result = await this.podman.run(args, {
      stdin,
      timeoutMs,
      maxOutputBytes: options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT,
      transformStdout: stripPid,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      onTimeout: async () => {
        // A deadline (or abort) can come before the command has started: `podman exec` alone
        // can take seconds on a loaded machine. Killing only the client then would leave the
        // command to start and run on in the container, so wait (bounded) for its pid first.
        const target = pid ?? (await Promise.race([pidKnown, sleep(PID_WAIT_MS, null, { ref: false })]));
        // The shell's own `kill` (images need not ship a kill binary); the pid is an argument.
        if (target !== null) await this.podman.run(["exec", this.id, "/bin/sh", "-c", 'kill -KILL -- "-$1" 2>/dev/null || kill -KILL "-$1"', "wink-kill", String(target)], { timeoutMs: 10_000 });
      },
    });
    const cap = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
    const stopped = result.timedOut || result.aborted;
    return {
      exitCode: stopped ? 124 : (result.exitCode ?? 128 + 9),
      stdout: result.stdout,
      stderr: result.stderr,
      stdoutBytes: result.stdoutBytes,
      stderrBytes: result.stderrBytes,
      stdoutTruncated: result.stdoutBytes > cap,
      stderrTruncated: result.stderrBytes > cap,
      timedOut: stopped,
      durationMs: result.durationMs,
    };
  }

  /** Whether the container is still running. */
  async running(): Promise<boolean> {
    if (this.removed) return false;
    const result = await this.podman.run(["inspect", "--format", "{{.State.Running}}", this.id]);
    return result.exitCode === 0 && result.stdout.toString("utf8").trim() === "true";
  }

  /**
   * `podman commit` the container to `imageRef`; returns the image id. Podman refuses this
   * for `--rootfs` containers ("cannot commit a container that uses an exploded rootfs"):
   * create the container from an image (`ensureBusyboxImage()`) to use it.
   */
  async commit(imageRef: string): Promise<string> {
    if (this.image === null) {
      throw new SnapshotCreationError("podman commit does not support containers started with --rootfs; create the container from an image (ensureBusyboxImage()) to use commit snapshots", {
        container: this.name,
        strategy: "container-commit",
      });
    }
    const result = await this.podman.run(["commit", "--quiet", this.id, imageRef], { timeoutMs: 300_000 });
    const imageId = result.stdout.toString("utf8").trim();
    if (result.exitCode !== 0 || imageId === "") {
      throw new SnapshotCreationError(`podman commit failed: ${stderrExcerpt(result.stderr)}`, { container: this.name, strategy: "container-commit" });
    }
    return imageId;
  }

  /** Stop and remove the container. Idempotent. */
  async remove(): Promise<void> {
    if (this.removed) return;
    this.removed = true;
    const result = await this.podman.run(["rm", "--force", "--time", "0", "--ignore", this.id], { timeoutMs: 60_000 });
    this.untrack();
    if (result.exitCode !== 0) {
      throw new BackendUnavailableError(`podman could not remove container ${this.name}: ${stderrExcerpt(result.stderr)}`, { container: this.name });
    }
  }
}
