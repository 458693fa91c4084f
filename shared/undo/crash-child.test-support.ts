/**
 * Child process for the crash-safety tests, killed with SIGKILL at a random moment:
 *   node --import tsx crash-child.test-support.ts <workspace> <stateDir> <seed>
 *     captures tool calls on a host workspace into an undo store as fast as it can;
 *   node --import tsx crash-child.test-support.ts --atomic-file <path> <bytes>
 *     rewrites one big file with writeFileAtomic in a loop, each time filled with a new byte.
 */
import { dirname } from "node:path";
import { HostFilesystem } from "../filesystem/host/host-filesystem.js";
import { writeFileAtomic } from "./body-store.node.js";
import { CapturingFilesystem } from "./capturing-filesystem.js";
import { UndoStore } from "./undo-store.node.js";

if (process.argv[2] === "--atomic-file") {
  const [path, sizeText] = process.argv.slice(3);
  if (path === undefined) throw new Error("usage: crash-child.test-support.ts --atomic-file <path> <bytes>");
  process.stdout.write("ready\n");
  for (let round = 1; ; round++) await writeFileAtomic(path, new Uint8Array(Number(sizeText)).fill(round % 256), false, dirname(path));
}

const [workspace, stateDir, seedText] = process.argv.slice(2);
if (workspace === undefined || stateDir === undefined) throw new Error("usage: crash-child.test-support.ts <workspace> <stateDir> <seed>");
let seed = Number(seedText ?? "1");
const random = (): number => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
};

const fs = new HostFilesystem({ root: workspace, durable: false });
// A small cap keeps eviction (snapshot removal) in the crash window too.
const store = await UndoStore.create({ workspace: fs, stateDir, sessionByteCap: 3 * 1024 * 1024 });
const wrapped = new CapturingFilesystem(store, { sessionId: "crash" });
process.stdout.write("ready\n");
for (let call = 0; ; call++) {
  const id = `tc_${process.pid}_${call}`;
  const target = wrapped.bind(id);
  const name = `dir${Math.floor(random() * 4)}/file${Math.floor(random() * 6)}.bin`;
  const size = 1024 * (16 + Math.floor(random() * 240));
  const bytes = new Uint8Array(size).fill(Math.floor(random() * 256));
  if (random() < 0.15) await target.delete(name.split("/")[0] as string, { recursive: true }).catch(() => undefined);
  else await target.writeBytes(name, bytes);
  if (random() < 0.5) await store.close("crash", id);
}
