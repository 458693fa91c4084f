import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { processAlive } from "./process-alive.js";

describe("processAlive", () => {
  it("takes this process and a running child for alive", async () => {
    expect(processAlive(process.pid)).toBe(true);
    const child = spawn("sleep", ["30"], { stdio: "ignore" });
    try {
      expect(processAlive(child.pid as number)).toBe(true);
    } finally {
      child.kill("SIGKILL");
    }
  });

  it("takes a process that has exited and been reaped for gone", () => {
    const done = spawnSync("true");
    expect(processAlive(done.pid)).toBe(false);
  });

  it("takes a zombie (exited, not yet reaped by its parent) for gone", async () => {
    const parent = spawn(
      "python3",
      ["-c", "import os, time\npid = os.fork()\nif pid == 0: os._exit(0)\nprint(pid, flush=True)\ntime.sleep(30)"],
      { stdio: ["ignore", "pipe", "ignore"] },
    );
    try {
      const zombie = Number(await new Promise<string>((resolve) => parent.stdout.once("data", (data: Buffer) => resolve(data.toString().trim()))));
      for (let tries = 0; !readFileSync(`/proc/${zombie}/stat`, "latin1").includes(") Z "); tries++) {
        if (tries > 100) throw new Error(`process ${zombie} never became a zombie`);
        await sleep(20);
      }
      expect(processAlive(zombie)).toBe(false);
      expect(processAlive(parent.pid as number)).toBe(true);
    } finally {
      parent.kill("SIGKILL");
    }
  });
});
