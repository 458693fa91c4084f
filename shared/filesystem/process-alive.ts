/**
 * Whether a process id still names a live process: the one answer used by every lock and
 * journal that records its writer's pid (host tree applies, git fast-import ref locks,
 * Podman resources owned by a process).
 */
import { existsSync, readFileSync } from "node:fs";
import { errnoCode } from "./errno.js";

const PROC_STAT_WORKS = existsSync("/proc/self/stat");

/** The process's state letter from /proc (R, S, Z…), "" when it does not exist, null when /proc cannot tell. */
function procState(pid: number): string | null {
  if (!PROC_STAT_WORKS) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return stat.charAt(stat.lastIndexOf(")") + 2);
  } catch (error) {
    return errnoCode(error) === "ENOENT" ? "" : null;
  }
}

/**
 * Whether `pid` is running. A killed process can linger as a zombie until its parent reaps it;
 * it holds nothing, so a zombie counts as gone. Without /proc, `kill(pid, 0)` decides
 * (EPERM: it exists under another user, so it is alive).
 */
export function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  const state = procState(pid);
  if (state !== null) return state !== "" && state !== "Z" && state !== "X";
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errnoCode(error) === "EPERM";
  }
}
