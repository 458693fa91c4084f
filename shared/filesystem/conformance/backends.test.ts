/**
 * The one place where the conformance suite runs against every backend. A new backend adds
 * one `describeFilesystemConformance` call here and declares what it lacks in `capabilities`.
 */
import { afterAll } from "vitest";
import { DriverFilesystem } from "../driver-backed/driver-filesystem.js";
import { InMemoryFilesystem } from "../memory/in-memory-filesystem.js";
import { MemoryDriver } from "../memory/memory-driver.js";
import { podmanExecTarget, podmanSandboxTarget, releasePodmanTargets } from "../podman/podman.test-support.js";
import type { Filesystem } from "../protocol.js";
import { describeFilesystemConformance, type ConformanceCreateOptions } from "./suite.js";

async function seedInto(fs: Filesystem, seed: ConformanceCreateOptions["seed"]): Promise<void> {
  for (const [path, content] of Object.entries(seed ?? {})) {
    if (path.endsWith("/")) await fs.mkdir(path);
    else if (typeof content === "string") await fs.write(path, content);
    else await fs.writeBytes(path, content);
  }
}

describeFilesystemConformance({
  name: "memory",
  expectedRoot: "/",
  capabilities: { fileModes: true, timestamps: true, snapshots: true },
  async create(options = {}) {
    const common = {
      mountPoint: options.mountPoint ?? null,
      ...(options.limits ? { limits: options.limits } : {}),
    };
    if (!options.readOnly) {
      const fs = new InMemoryFilesystem(common);
      await seedInto(fs, options.seed);
      return { fs };
    }
    // A read-only view over a driver seeded through a writable one: the public way to hand
    // an agent a fixed workspace.
    const driver = new MemoryDriver();
    await seedInto(new DriverFilesystem(driver), options.seed);
    return { fs: new DriverFilesystem(driver, { ...common, readOnly: true }) };
  },
});

// Containers for real (podman + runc + busybox rootfs; `npm test` installs them). The overlay
// variant is the host backend over a bind-mounted directory; the exec variant reaches its
// files only through `podman exec`.
describeFilesystemConformance(podmanSandboxTarget(seedInto));
describeFilesystemConformance(podmanExecTarget(seedInto));
afterAll(releasePodmanTargets);
