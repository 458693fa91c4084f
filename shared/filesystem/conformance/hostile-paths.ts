/**
 * Every hostile path of the security corpus against every path-taking method.
 *
 * The corpus marks some cases "policy"; our decisions (docs/filesystem.md) are pinned here:
 * - "" / "." / "/" name the root: listing works, writing and deleting are refused.
 * - Absolute paths are root-relative ("/etc/passwd" is <root>/etc/passwd, never the host's);
 *   a double leading slash is refused like a UNC path.
 * - Backslashes, control characters (newline, CR, DEL, C1), bidi overrides, NUL and lone
 *   surrogates are refused (EINVAL); escapes are refused (EACCES); percent-escapes, fullwidth
 *   and look-alike characters, shell and glob metacharacters are literal names.
 * - A trailing slash names a directory: writing a file there is refused.
 * - ".git" segments, in any letter case, and its NTFS 8.3 alias "GIT~1" may be read but not
 *   created (EACCES); the other disguises (trailing dots, ignorable code points) are pinned in
 *   the conformance suite's own git-metadata test.
 * OS limits (255-byte segments, 4,096-byte paths) are tested with the protocol's own
 * creation limits raised to match, since the defaults (16 segments of 80) are stricter.
 */
import { describe, expect, it } from "vitest";
import { ERROR_CODES } from "../../errors.js";
import type { Filesystem } from "../protocol.js";
import type { ConformanceCreateOptions } from "./types.js";
import { HOSTILE_PATH_CASES } from "./hostile-paths.data.js";

type Outcome =
  | { kind: "root" }
  | { kind: "refused"; code: "EINVAL" | "EACCES" }
  | { kind: "inside"; target: string; directoryOnly?: boolean }
  | { kind: "read-only-name"; target: string };

const INVALID_CHARACTER = /[\u0000-\u001f\u007f-\u009f\\\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function outcomeFor(path: string): Outcome {
  if (path === "" || path === "." || path === "**/..") return { kind: "root" };
  if (INVALID_CHARACTER.test(path) || /^(?:[A-Za-z]:|\/\/)/.test(path)) return { kind: "refused", code: "EINVAL" };
  const segments: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (segments.length === 0) return { kind: "refused", code: "EACCES" };
      segments.pop();
    } else segments.push(segment);
  }
  const target = segments.join("/");
  const bytes = (s: string): number => new TextEncoder().encode(s).length;
  if (segments.some((s) => bytes(s) > 255) || bytes(target) > 4096) return { kind: "refused", code: "EINVAL" };
  if (segments.some((s) => s.toLowerCase() === ".git" || s.toLowerCase() === "git~1")) return { kind: "read-only-name", target };
  return { kind: "inside", target, directoryOnly: path.endsWith("/") };
}

function isWinkError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code in ERROR_CODES;
}

async function outcomeOf(call: () => Promise<unknown>): Promise<{ ok: true; value: unknown } | { ok: false; code: string }> {
  try {
    return { ok: true, value: await call() };
  } catch (error) {
    // Every failure must be one of ours: never a raw Node error (ERR_INVALID_ARG_VALUE, ENAMETOOLONG…).
    expect(isWinkError(error), `not a WinkError: ${String(error)}`).toBe(true);
    return { ok: false, code: (error as { code: string }).code };
  }
}

async function clearRoot(fs: Filesystem): Promise<void> {
  for (const entry of await fs.list()) await fs.delete(entry.path, { recursive: true });
}

export function describeHostilePaths(_current: () => Filesystem, make: (options?: ConformanceCreateOptions) => Promise<Filesystem>): void {
  describe("hostile paths (security/hostile-paths.jsonl)", () => {
    it("refuses, confines or takes literally every case, on every path-taking method", async () => {
      const fs = await make({ limits: { maxSegmentLength: 255, maxPathDepth: 4096 } });
      expect(HOSTILE_PATH_CASES.length).toBeGreaterThan(60);
      for (const testCase of HOSTILE_PATH_CASES) {
        const { path } = testCase;
        const outcome = outcomeFor(path);
        const label = `${JSON.stringify(path).slice(0, 60)} (${testCase.why})`;
        const calls: Record<string, () => Promise<unknown>> = {
          read: () => fs.read(path),
          readBytes: () => fs.readBytes(path),
          stat: () => fs.stat(path),
          list: () => fs.list(path),
          glob: () => fs.glob("**", { path }),
          grep: () => fs.grep("x", { path }),
          openRead: () => fs.openRead(path),
          openText: () => fs.openText(path),
          write: () => fs.write(path, "x"),
          writeBytes: () => fs.writeBytes(path, new Uint8Array([1])),
          openWrite: () => fs.openWrite(path),
          mkdir: () => fs.mkdir(path),
          delete: () => fs.delete(path, { recursive: true }),
        };
        if (outcome.kind === "refused") {
          expect(await fs.exists(path), label).toBe(false);
          for (const [method, call] of Object.entries(calls)) {
            const result = await outcomeOf(call);
            expect(result, `${method} ${label}`).toEqual({ ok: false, code: outcome.code });
          }
        } else if (outcome.kind === "root") {
          expect(await fs.exists(path), label).toBe(true);
          expect((await outcomeOf(calls.list as () => Promise<unknown>)).ok, label).toBe(true);
          expect(await outcomeOf(() => fs.write(path, "x")), label).toEqual({ ok: false, code: "EINVAL" });
          expect(await outcomeOf(() => fs.delete(path, { recursive: true })), label).toEqual({ ok: false, code: "EACCES" });
          expect(await outcomeOf(() => fs.read(path)), label).toEqual({ ok: false, code: "EISDIR" });
        } else {
          // Nothing exists yet: a read must not find a host file of that name.
          expect(await outcomeOf(() => fs.read(path)), label).toEqual({ ok: false, code: "ENOENT" });
          expect(await fs.exists(path), label).toBe(false);
          if (outcome.kind === "read-only-name") {
            expect(await outcomeOf(() => fs.write(path, "x")), label).toEqual({ ok: false, code: "EACCES" });
            expect(await outcomeOf(() => fs.mkdir(path)), label).toEqual({ ok: false, code: "EACCES" });
          } else if (outcome.directoryOnly) {
            expect((await outcomeOf(() => fs.write(path, "x"))).ok, label).toBe(false);
            await fs.mkdir(path);
            expect((await fs.stat(outcome.target)).isDirectory, label).toBe(true);
          } else {
            await fs.write(path, "payload");
            expect((await fs.read(outcome.target)).content, label).toBe("payload");
            expect((await fs.stat(path)).path, label).toBe(outcome.target);
            const top = outcome.target.split("/")[0];
            expect((await fs.list()).map((e) => e.name), label).toEqual([top]);
            await fs.delete(path);
            expect(await fs.exists(outcome.target), label).toBe(false);
          }
          await clearRoot(fs);
        }
      }
    });
  });
}
