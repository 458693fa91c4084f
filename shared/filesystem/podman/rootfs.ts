/**
 * A minimal root filesystem for sandbox containers, built from Debian's static busybox, so
 * that containers run without any image registry: `podman run --rootfs <dir>`.
 *
 * Cached under the system temp directory, keyed by busybox's version and a hash of the
 * binary. The build is idempotent and safe to run from parallel processes: each builds in
 * its own temp directory, writes a completion marker, then renames it into place; a loser
 * of that race discards its copy and uses the winner's. Every mount point podman and runc
 * need (/proc, /dev, /etc/hosts, /run/.containerenv…) exists in advance, so running a
 * container never writes into the shared directory.
 */
import { createHash } from "node:crypto";
import { promises as fsp, type Stats } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { BackendUnavailableError } from "../../errors.js";
import { defaultPodman, type Podman } from "./podman-cli.js";
import { runProcess } from "./process.js";
import { errnoCode } from "../errno.js";

export interface BusyboxRootfsOptions {
  /** Where rootfs directories are cached (default `<tmpdir>/wink-podman-rootfs-<uid>`). */
  readonly cacheDir?: string;
  /** A statically linked busybox (default /bin/busybox or /usr/bin/busybox). */
  readonly busyboxPath?: string;
}

export interface BusyboxRootfs {
  /** The rootfs directory, for `podman run --rootfs`. */
  readonly path: string;
  /** Busybox version, e.g. "1.35.0". */
  readonly version: string;
  /** Cache key: version plus a hash of the binary. */
  readonly key: string;
}

const MARKER = ".wink-rootfs.json";
const BUSYBOX_CANDIDATES = ["/bin/busybox", "/usr/bin/busybox"];
const PASSWD = "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n";
const GROUP = "root:x:0:\nnogroup:x:65534:\n";
/** Directories of the rootfs and their modes (mount points included). */
const DIRECTORIES: readonly (readonly [string, number])[] = [
  ["bin", 0o755], ["sbin", 0o755], ["usr", 0o755], ["usr/bin", 0o755], ["usr/sbin", 0o755], ["etc", 0o755],
  ["dev", 0o755], ["proc", 0o755], ["sys", 0o755], ["run", 0o755], ["root", 0o700], ["home", 0o755],
  ["tmp", 0o1777], ["var", 0o755], ["var/tmp", 0o1777], ["workspace", 0o755],
];
/** Empty files podman bind-mounts over (it would create them in the rootfs otherwise). */
const MOUNT_FILES = ["etc/hosts", "etc/hostname", "etc/resolv.conf", "run/.containerenv"];

const memo = new Map<string, Promise<BusyboxRootfs>>();

function uidSuffix(): string {
  return typeof process.getuid === "function" ? String(process.getuid()) : "user";
}

/** Whether an ELF executable asks for a dynamic loader (PT_INTERP); static busybox does not. */
export function isDynamicElf(binary: Uint8Array): boolean {
  const view = new DataView(binary.buffer, binary.byteOffset, binary.byteLength);
  if (binary.length < 64 || view.getUint32(0) !== 0x7f454c46) return false;
  const is64 = binary[4] === 2;
  const little = binary[5] === 1;
  const phoff = is64 ? Number(view.getBigUint64(32, little)) : view.getUint32(28, little);
  const phentsize = view.getUint16(is64 ? 54 : 42, little);
  const phnum = view.getUint16(is64 ? 56 : 44, little);
  for (let i = 0; i < phnum; i++) {
    const at = phoff + i * phentsize;
    if (at + 4 > binary.length) break;
    if (view.getUint32(at, little) === 3) return true; // PT_INTERP
  }
  return false;
}

async function findBusybox(explicit: string | undefined): Promise<string> {
  const candidates = explicit === undefined ? BUSYBOX_CANDIDATES : [explicit];
  for (const candidate of candidates) {
    try {
      if ((await fsp.stat(candidate)).isFile()) return candidate;
    } catch {
      // try the next one
    }
  }
  throw new BackendUnavailableError(`No busybox found (looked at ${candidates.join(", ")}): install Debian's busybox-static`, { candidates });
}

/** A directory under a shared temp dir must be ours alone: the temp dir is writable by everyone. */
export async function ensurePrivateDirectory(path: string): Promise<void> {
  await fsp.mkdir(path, { recursive: true, mode: 0o700 });
  const stats: Stats = await fsp.lstat(path);
  const uid = typeof process.getuid === "function" ? process.getuid() : stats.uid;
  if (!stats.isDirectory() || stats.uid !== uid || (stats.mode & 0o022) !== 0) {
    throw new BackendUnavailableError(`Refusing to use ${path}: it must be a directory owned by uid ${uid} and writable by nobody else`, { path });
  }
}

async function readMarker(dir: string): Promise<BusyboxRootfs | null> {
  try {
    const parsed = JSON.parse(await fsp.readFile(join(dir, MARKER), "utf8")) as Partial<BusyboxRootfs>;
    if (typeof parsed.version !== "string" || typeof parsed.key !== "string") return null;
    return { path: dir, version: parsed.version, key: parsed.key };
  } catch {
    return null;
  }
}

async function populate(target: string, busybox: string, binary: Uint8Array, meta: { version: string; key: string }): Promise<void> {
  for (const [dir, mode] of DIRECTORIES) {
    await fsp.mkdir(join(target, dir), { recursive: true });
    await fsp.chmod(join(target, dir), mode);
  }
  await fsp.writeFile(join(target, "bin/busybox"), binary, { mode: 0o755 });
  const list = await runProcess(busybox, ["--list-full"]);
  if (list.exitCode !== 0) throw new BackendUnavailableError(`${busybox} --list-full failed`, { busybox });
  for (const applet of list.stdout.toString("utf8").split("\n")) {
    const name = applet.trim();
    if (name === "" || name === "bin/busybox" || name.includes("..") || name.startsWith("/")) continue;
    const link = join(target, name);
    await fsp.mkdir(dirname(link), { recursive: true });
    await fsp.symlink(relative(dirname(link), join(target, "bin/busybox")), link).catch((error: unknown) => {
      if (errnoCode(error) !== "EEXIST") throw error;
    });
  }
  await fsp.writeFile(join(target, "etc/passwd"), PASSWD, { mode: 0o644 });
  await fsp.writeFile(join(target, "etc/group"), GROUP, { mode: 0o644 });
  for (const file of MOUNT_FILES) await fsp.writeFile(join(target, file), "", { mode: 0o644 });
  await fsp.symlink("/proc/mounts", join(target, "etc/mtab"));
  await fsp.writeFile(join(target, MARKER), `${JSON.stringify({ ...meta, builtAt: new Date().toISOString() })}\n`, { mode: 0o644 });
  await fsp.chmod(target, 0o755);
}

async function build(options: BusyboxRootfsOptions): Promise<BusyboxRootfs> {
  const busybox = await findBusybox(options.busyboxPath);
  const binary = new Uint8Array(await fsp.readFile(busybox));
  if (isDynamicElf(binary)) {
    throw new BackendUnavailableError(`${busybox} is dynamically linked and cannot run in an empty rootfs: install Debian's busybox-static`, { busybox });
  }
  const help = await runProcess(busybox, ["--help"]);
  const version = /BusyBox v(\d+(?:\.\d+)+)/.exec(help.stdout.toString("utf8") + help.stderr.toString("utf8"))?.[1] ?? "unknown";
  const key = `busybox-${version}-${createHash("sha256").update(binary).digest("hex").slice(0, 12)}`;
  const cacheDir = options.cacheDir ?? join(tmpdir(), `wink-podman-rootfs-${uidSuffix()}`);
  await ensurePrivateDirectory(cacheDir);
  const final = join(cacheDir, key);
  const existing = await readMarker(final);
  if (existing !== null) return existing;

  const staging = await fsp.mkdtemp(join(cacheDir, `.build-${key}-`));
  try {
    await populate(staging, busybox, binary, { version, key });
    try {
      await fsp.rename(staging, final);
    } catch (error) {
      const code = errnoCode(error);
      if (code !== "EEXIST" && code !== "ENOTEMPTY") throw error;
      // Another process finished first; its copy is as good as ours.
    }
  } finally {
    await fsp.rm(staging, { recursive: true, force: true });
  }
  const done = await readMarker(final);
  if (done === null) throw new BackendUnavailableError(`Rootfs cache ${final} exists but is incomplete: remove it and retry`, { path: final });
  return done;
}

/** Build (once) and return the cached busybox rootfs. */
export function ensureBusyboxRootfs(options: BusyboxRootfsOptions = {}): Promise<BusyboxRootfs> {
  const memoKey = `${options.cacheDir ?? ""}\u0000${options.busyboxPath ?? ""}`;
  let pending = memo.get(memoKey);
  if (pending === undefined) {
    pending = build(options);
    memo.set(memoKey, pending);
    pending.catch(() => memo.delete(memoKey));
  }
  return pending;
}

/**
 * The busybox rootfs imported as a local image (`localhost/wink-busybox:<key>`), for
 * containers that `podman commit` must work on — commit refuses `--rootfs` containers.
 * No registry is involved: the image comes from `podman import` of the cached rootfs.
 */
export async function ensureBusyboxImage(options: BusyboxRootfsOptions & { podman?: Podman } = {}): Promise<string> {
  const podman = options.podman ?? defaultPodman();
  const rootfs = await ensureBusyboxRootfs(options);
  const ref = `localhost/wink-busybox:${rootfs.key}`;
  const exists = await podman.run(["image", "exists", ref]);
  if (exists.exitCode === 0) return ref;
  const tarball = join(await fsp.mkdtemp(join(tmpdir(), "wink-rootfs-tar-")), "rootfs.tar");
  try {
    const tar = await runProcess("tar", ["-C", rootfs.path, "--exclude", `./${MARKER}`, "-cf", tarball, "."]);
    if (tar.exitCode !== 0) throw new BackendUnavailableError(`Cannot archive ${rootfs.path} for podman import: ${tar.stderr.toString("utf8")}`, { path: rootfs.path });
    await podman.check(["import", "--quiet", tarball, ref], `import the busybox rootfs as ${ref}`);
  } finally {
    await fsp.rm(dirname(tarball), { recursive: true, force: true });
  }
  return ref;
}
