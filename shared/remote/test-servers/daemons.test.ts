import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { expect, it, onTestFinished } from "vitest";

function alive(pid: number): boolean {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, "utf8").split(" ")[2];
    return state !== "Z";
  } catch {
    return false;
  }
}

it("cleans up a test server whose test process was killed (SIGKILL: no exit handlers run)", async () => {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "orphan-parent.test-support.ts")], { stdio: ["ignore", "pipe", "inherit"] });
  const line = await new Promise<string>((resolve, reject) => {
    let text = "";
    child.stdout.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes("\n")) resolve(text.split("\n")[0] as string);
    });
    child.on("exit", (code) => reject(new Error(`child exited early (${code})`)));
  });
  const { dir, url, root } = JSON.parse(line) as { dir: string; url: string; root: string };
  onTestFinished(() => rmSync(root, { recursive: true, force: true }));
  const pids = readFileSync(path.join(dir, "pids"), "utf8").trim().split("\n").map(Number);
  expect(pids.length).toBe(1);
  expect(alive(pids[0] as number)).toBe(true);
  expect((await fetch(`${url}gone/`)).status).toBe(404);
  child.kill("SIGKILL");
  const deadline = Date.now() + 15_000;
  while ((alive(pids[0] as number) || existsSync(dir)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
  expect(alive(pids[0] as number)).toBe(false);
  expect(existsSync(dir)).toBe(false);
  await expect(fetch(`${url}gone/`)).rejects.toThrow();
});
