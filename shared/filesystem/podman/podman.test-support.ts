/**
 * Test support: the two container variants as conformance-suite targets (used by
 * `conformance/backends.test.ts`) and helpers the podman tests share. Real containers only.
 *
 * - "podman sandbox (overlay)": a `PodmanSandbox` per instance, container started; its
 *   filesystem is the host backend over the bind-mounted overlay. Read-only instances are
 *   seeded through host mounts (hydration).
 * - "podman exec": one shared container (tmpfs workspace) for the whole file; each instance
 *   is a `PodmanFilesystem` on its own directory in it, reached only through `podman exec`.
 */
import type { ConformanceCreateOptions } from "../conformance/suite.js";
import { randomBytes } from "node:crypto";
import { promises as fsp } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Filesystem } from "../protocol.js";
import { PodmanContainer } from "./container.js";
import { PodmanFilesystem } from "./podman-filesystem.js";
import { PodmanSandbox } from "../../workspace/podman-sandbox.js";

type Seed = Readonly<Record<string, string | Uint8Array>>;

type CreateOptions = ConformanceCreateOptions;

interface Target {
  readonly name: string;
  readonly capabilities: { readonly fileModes: boolean; readonly timestamps: boolean; readonly snapshots: boolean };
  readonly timeoutMs: number;
  readonly expectedRoot: (fs: Filesystem) => string;
  create(options?: CreateOptions): Promise<{ fs: Filesystem; cleanup: () => Promise<void> }>;
}

/** Write a conformance seed into a host directory (keys ending in "/" are directories). */
export async function writeSeedToHost(dir: string, seed: Seed): Promise<void> {
  for (const [path, content] of Object.entries(seed)) {
    const target = join(dir, path);
    if (path.endsWith("/")) {
      await fsp.mkdir(target, { recursive: true });
      continue;
    }
    await fsp.mkdir(dirname(target), { recursive: true });
    await fsp.writeFile(target, content);
  }
}

/** The overlay variant: one sandbox (and container) per instance. */
export function podmanSandboxTarget(seedInto: (fs: Filesystem, seed: Seed | undefined) => Promise<void>): Target {
  const roots = new WeakMap<Filesystem, string>();
  return {
    name: "podman sandbox (overlay)",
    capabilities: { fileModes: true, timestamps: true, snapshots: true },
    timeoutMs: 120_000,
    expectedRoot: (fs) => roots.get(fs) ?? "(unknown instance)",
    async create(options = {}) {
      const seedDir = options.readOnly && options.seed ? await fsp.mkdtemp(join(tmpdir(), "wink-seed-")) : null;
      try {
        if (seedDir !== null) await writeSeedToHost(seedDir, options.seed ?? {});
        const sandbox = await PodmanSandbox.create({
          mounts: seedDir === null ? [] : [{ hostPath: seedDir }],
          allowedHostRoots: seedDir === null ? [] : [seedDir],
          filesystem: {
            mountPoint: options.mountPoint ?? null,
            durable: false,
            ...(options.readOnly ? { readOnly: true } : {}),
            ...(options.limits ? { limits: options.limits } : {}),
          },
        });
        if (!options.readOnly) await seedInto(sandbox.filesystem, options.seed);
        roots.set(sandbox.filesystem, join(sandbox.directory, "workspace"));
        return { fs: sandbox.filesystem, cleanup: () => sandbox.close() };
      } finally {
        if (seedDir !== null) await fsp.rm(seedDir, { recursive: true, force: true });
      }
    },
  };
}

let sharedExec: Promise<{ container: PodmanContainer; admin: PodmanFilesystem }> | null = null;

/** The exec variant: instances are directories of one shared container. */
export function podmanExecTarget(seedInto: (fs: Filesystem, seed: Seed | undefined) => Promise<void>): Target {
  const roots = new WeakMap<Filesystem, string>();
  return {
    name: "podman exec",
    capabilities: { fileModes: true, timestamps: true, snapshots: true },
    timeoutMs: 180_000,
    expectedRoot: (fs) => roots.get(fs) ?? "(unknown instance)",
    async create(options = {}) {
      sharedExec ??= (async () => {
        const container = await PodmanContainer.create({ workspace: { kind: "tmpfs", sizeBytes: 512 * 1024 * 1024 } });
        return { container, admin: new PodmanFilesystem({ container }) };
      })();
      const { container, admin } = await sharedExec;
      const dir = `c-${randomBytes(6).toString("hex")}`;
      await admin.mkdir(dir);
      const common = {
        container,
        workdir: `/workspace/${dir}`,
        mountPoint: options.mountPoint ?? null,
        ...(options.limits ? { limits: options.limits } : {}),
      };
      const writable = new PodmanFilesystem(common);
      await seedInto(writable, options.seed);
      const fs = options.readOnly ? new PodmanFilesystem({ ...common, readOnly: true }) : writable;
      roots.set(fs, `/workspace/${dir}`);
      return {
        fs,
        cleanup: async () => {
          await writable.close();
          if (fs !== writable) await (fs as PodmanFilesystem).close();
          await admin.delete(dir, { recursive: true });
        },
      };
    },
  };
}

/** Remove what the exec target shares across tests (call in `afterAll`). */
export async function releasePodmanTargets(): Promise<void> {
  const pending = sharedExec;
  sharedExec = null;
  if (pending === null) return;
  const { container, admin } = await pending;
  await admin.close();
  await container.remove();
}
