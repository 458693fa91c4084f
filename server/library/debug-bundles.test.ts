// Sniffing a `.zip` of the served folder for a debug bundle opens it as every served file is
// opened (issue 14): a FIFO swapped in is never waited on, and the directory's checked opener
// refuses a symlink, so a bundle outside the folder is never looked into through one.
import { execFileSync } from "node:child_process";
import { copyFile, realpath, symlink } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { winkBundleFixture } from "../../fixtures/paths.js";
import { openRegularFile } from "../../shared/filesystem/open-regular.node.js";
import { cleanUp, tempDir } from "../test-support.js";
import { sniffDebugBundle } from "./debug-bundles.js";

afterEach(cleanUp);

const BUNDLE = winkBundleFixture("01-small-success/c958872d-4e41-4429-9f5f-48b054b977ea_20261126_054533.zip");

describe("sniffDebugBundle", () => {
  it("knows a real bundle, and answers false at once for a FIFO (no writer ever comes)", async () => {
    const dir = await realpath(await tempDir());
    await copyFile(BUNDLE, path.join(dir, "run.zip"));
    execFileSync("mkfifo", [path.join(dir, "fifo.zip")]);
    const checked = (file: string) => openRegularFile(file, { root: dir });
    expect(await sniffDebugBundle(path.join(dir, "run.zip"), checked)).toBe(true);
    const started = Date.now();
    // Both openers open without blocking: the default one (a path the caller named) and the directory's.
    expect(await sniffDebugBundle(path.join(dir, "fifo.zip"))).toBe(false);
    expect(await sniffDebugBundle(path.join(dir, "fifo.zip"), checked)).toBe(false);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("does not look through a symlink with the served directory's opener, while a bundle named by the caller is followed", async () => {
    const outside = await realpath(await tempDir());
    const served = await realpath(await tempDir());
    await copyFile(BUNDLE, path.join(outside, "secret.zip"));
    await symlink(path.join(outside, "secret.zip"), path.join(served, "link.zip"));
    expect(await sniffDebugBundle(path.join(served, "link.zip"), (file) => openRegularFile(file, { root: served }))).toBe(false);
    expect(await sniffDebugBundle(path.join(served, "link.zip"))).toBe(true);
  });
});
