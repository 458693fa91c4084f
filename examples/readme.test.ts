/**
 * The README's library example, run as written (paths moved to a temp dir), so the first
 * code a reader copies keeps working.
 */
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { HostFilesystem, InMemoryFilesystem, Session, dumpSessionTree, openArchive, readSessionFile } from "../shared/index.js";

const dir = await mkdtemp(join(tmpdir(), "wink-readme-"));
afterAll(() => rm(dir, { recursive: true, force: true }));

it("runs the README's library example", async () => {
  const fs = new InMemoryFilesystem();
  await fs.write("src/config.py", "DEBUG = True\n");
  const before = await fs.snapshot({ tag: "before-refactor" });
  await fs.write("src/config.py", "DEBUG = False\n");
  expect(await fs.diff(before)).toEqual({ added: [], modified: ["src/config.py"], deleted: [], unchangedCount: 0 });
  await fs.restore(before);
  expect((await fs.read("src/config.py")).content).toBe("DEBUG = True\n");

  await fs.exportArchive(join(dir, "workspace.fs.zip"));
  const host = new HostFilesystem({ root: await mkdtemp(join(dir, "restored-")), stateDir: join(dir, "state") });
  await host.importArchive(join(dir, "workspace.fs.zip"));
  expect((await host.read("src/config.py")).content).toBe("DEBUG = True\n");

  const session = new Session({ tags: { app: "my-agent" } });
  session.append("my_agent.state:Note", { text: "restored the config" });
  const written = await dumpSessionTree(session, join(dir, "snapshots"), { filesystem: fs });
  expect(written).toBe(join(dir, "snapshots", `${session.sessionId}.jsonl`));
  expect((await readdir(join(dir, "snapshots"))).sort()).toEqual([`${session.sessionId}.fs.zip`, `${session.sessionId}.jsonl`]);
  const loaded = await readSessionFile(written as string);
  expect(loaded.errors).toEqual([]);
  expect(loaded.snapshots[0]?.tags).toMatchObject({ app: "my-agent", session_id: session.sessionId });
  const archive = await openArchive(join(dir, "snapshots", `${session.sessionId}.fs.zip`));
  expect(archive.files.map((f) => f.path)).toEqual(["src/config.py"]);
  await archive.close();
});
