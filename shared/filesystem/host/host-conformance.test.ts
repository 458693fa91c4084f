/** The shared Filesystem conformance suite, run against HostFilesystem on a fresh temp directory per test. */
import * as fs from "node:fs";
import path from "node:path";
import { describeFilesystemConformance } from "../conformance/suite.js";
import type { Filesystem } from "../protocol.js";
import { HostFilesystem } from "./host-filesystem.js";
import { makeTempDir } from "./host.test-support.js";

describeFilesystemConformance({
  name: "host",
  capabilities: { fileModes: true, timestamps: true, snapshots: true },
  expectedRoot: (filesystem: Filesystem) => filesystem.root,
  async create(options = {}) {
    const base = await makeTempDir("wink-host-conformance-");
    const root = path.join(base, "workspace");
    await fs.promises.mkdir(root);
    const stateDir = path.join(base, "state");
    const seeder = new HostFilesystem({ root, stateDir, durable: false, allowGitMetadataWrites: true });
    for (const [rel, content] of Object.entries(options.seed ?? {})) {
      if (rel.endsWith("/")) await seeder.mkdir(rel);
      else if (typeof content === "string") await seeder.write(rel, content);
      else await seeder.writeBytes(rel, content);
    }
    const filesystem = new HostFilesystem({
      root,
      stateDir,
      durable: false,
      readOnly: options.readOnly ?? false,
      mountPoint: options.mountPoint ?? null,
      snapshots: { gitDir: path.join(base, "git") },
      ...(options.limits ? { limits: options.limits } : {}),
    });
    return { fs: filesystem, cleanup: () => fs.promises.rm(base, { recursive: true, force: true }) };
  },
});
