/**
 * Nothing a sandbox creates outlives its process: containers and overlay directories are
 * tracked here and removed on `close()`, on normal exit, and on SIGINT/SIGTERM/SIGHUP.
 *
 * Signals: when no one else listens for the signal, we clean up and re-raise it so the
 * process still dies of it; when the application has its own handler, that handler owns
 * shutdown and our `exit` hook cleans up when the process actually exits. A process killed
 * with SIGKILL cannot clean up: its containers carry an owner label (boot id and pid), and
 * the next process that creates a container reaps those whose owner is gone.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { processAlive } from "../process-alive.js";
import type { Podman } from "./podman-cli.js";

type Resource = { readonly kind: "container"; readonly id: string; readonly podman: Podman } | { readonly kind: "path"; readonly path: string };

const live = new Map<symbol, Resource>();
const SIGNALS: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
let installed = false;

/** Label every managed container carries; the owner label says which process owns it. */
export const MANAGED_LABEL = "wink-debug.managed";
export const OWNER_LABEL = "wink-debug.owner";

let bootId: string | null = null;

/** `<boot id>:<pid>` of this process: unique across reboots, checkable by other processes. */
export function ownerTag(pid = process.pid): string {
  if (bootId === null) {
    try {
      bootId = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    } catch {
      bootId = "unknown-boot";
    }
  }
  return `${bootId}:${pid}`;
}

/** Whether the process named by an owner tag may still be running (unknown → assumed alive). */
export function ownerAlive(tag: string): boolean {
  const colon = tag.lastIndexOf(":");
  const pid = Number(tag.slice(colon + 1));
  if (colon <= 0 || !Number.isInteger(pid) || pid <= 0) return true;
  if (tag.slice(0, colon) !== ownerTag().slice(0, ownerTag().lastIndexOf(":"))) return false; // another boot
  return processAlive(pid);
}

function cleanupAllSync(): void {
  const byPodman = new Map<Podman, string[]>();
  for (const resource of live.values()) {
    if (resource.kind === "container") byPodman.set(resource.podman, [...(byPodman.get(resource.podman) ?? []), resource.id]);
  }
  for (const [podman, ids] of byPodman) {
    spawnSync(podman.binary, podman.argv(["rm", "--force", "--time", "0", "--ignore", ...ids]), { stdio: "ignore", timeout: 60_000 });
  }
  for (const resource of live.values()) {
    if (resource.kind === "path") rmSync(resource.path, { recursive: true, force: true });
  }
  live.clear();
}

function onSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return;
  cleanupAllSync();
  for (const s of SIGNALS) process.removeListener(s, onSignal);
  process.kill(process.pid, signal);
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on("exit", cleanupAllSync);
  for (const signal of SIGNALS) process.on(signal, onSignal);
}

/** Track a container or path for removal at exit; returns the function that stops tracking it. */
export function trackForCleanup(resource: Resource): () => void {
  install();
  const key = Symbol(resource.kind === "container" ? resource.id : resource.path);
  live.set(key, resource);
  return () => {
    live.delete(key);
  };
}

/** Number of tracked resources (for tests and diagnostics). */
export function trackedResourceCount(): number {
  return live.size;
}

/**
 * Remove managed containers whose owning process is gone (killed with SIGKILL, crashed
 * before its exit hook). Returns the removed container ids.
 */
export async function reapOrphanedContainers(podman: Podman): Promise<string[]> {
  const listed = await podman.run(["ps", "--all", "--filter", `label=${MANAGED_LABEL}=true`, "--format", `{{.ID}} {{index .Labels "${OWNER_LABEL}"}}`]);
  if (listed.exitCode !== 0) return [];
  const orphans: string[] = [];
  for (const line of listed.stdout.toString("utf8").split("\n")) {
    const [id, owner] = line.trim().split(" ");
    if (id && owner && !ownerAlive(owner)) orphans.push(id);
  }
  if (orphans.length > 0) await podman.run(["rm", "--force", "--time", "0", "--ignore", ...orphans]);
  return orphans;
}
