/**
 * A debug bundle's `manifest.json`, read with tolerance: WINK's reader refuses a bundle
 * without one, so do we (`E_ARCHIVE_MANIFEST`), but a field that is missing or of the wrong
 * type becomes a warning and a neutral value, never a refusal (a viewer must still show the
 * logs of a bundle whose manifest a newer WINK extended). Keys are read as own properties
 * only, and every path the manifest names is checked like an archive entry name.
 */
import { ArchiveError } from "../errors.js";
import { checkRelativePath } from "../archive/entry-names.js";
import type { JsonObject, JsonValue } from "../session/json-value.js";
import { isJsonObject, ownValue } from "../session/json-value.js";
import { parsePythonJson } from "../session/python-json-parse.js";
import { BUNDLE_MEMBERS } from "./layout.js";

/** `manifest.request.status`: WINK writes `success` or `error`; anything else is kept as written. */
export type BundleStatus = "success" | "error" | (string & {});

export interface BundleManifest {
  readonly formatVersion: string;
  readonly bundleId: string;
  readonly createdAt: string;
  readonly requestId: string;
  readonly sessionId: string | null;
  readonly status: BundleStatus;
  readonly startedAt: string | null;
  readonly endedAt: string | null;
  readonly captureMode: string;
  readonly trigger: string;
  readonly filesystemTruncated: boolean;
  readonly prompt: { readonly ns: string; readonly key: string; readonly adapter: string };
  /** Members the manifest lists (it never lists itself). */
  readonly files: readonly string[];
  readonly checksumAlgorithm: string;
  /** Member → lowercase hex digest, in the order written. */
  readonly checksums: ReadonlyMap<string, string>;
  readonly build: { readonly version: string; readonly commit: string };
  /** The manifest as written (big integers exact), for `/api/manifest`. */
  readonly raw: JsonObject;
}

export interface ParsedBundleManifest {
  readonly manifest: BundleManifest;
  /** Fields that were missing, of the wrong type, or named unsafe paths. */
  readonly warnings: readonly string[];
}

const HEX_DIGEST = /^[0-9a-f]{32,128}$/i;
const utf8 = new TextDecoder("utf-8", { fatal: true });

function refuse(message: string): never {
  throw new ArchiveError("E_ARCHIVE_MANIFEST", `Invalid ${BUNDLE_MEMBERS.manifest}: ${message}`, { entry: BUNDLE_MEMBERS.manifest });
}

class FieldReader {
  readonly warnings: string[] = [];

  object(parent: JsonObject, key: string, path: string): JsonObject {
    const value = ownValue(parent, key);
    if (isJsonObject(value)) return value;
    if (value !== undefined && value !== null) this.warnings.push(`manifest ${path} is not an object`);
    return {};
  }

  string(parent: JsonObject, key: string, path: string, fallback = ""): string {
    const value = ownValue(parent, key);
    if (typeof value === "string") return value;
    if (value !== undefined && value !== null) this.warnings.push(`manifest ${path} is not a string`);
    return fallback;
  }

  nullableString(parent: JsonObject, key: string, path: string): string | null {
    const value = ownValue(parent, key);
    if (value === undefined || value === null) return null;
    if (typeof value === "string") return value;
    this.warnings.push(`manifest ${path} is not a string`);
    return null;
  }

  /** A member path the manifest names: kept only when it is a safe relative path. */
  memberPath(value: JsonValue | undefined, path: string): string | null {
    if (typeof value !== "string") {
      this.warnings.push(`manifest ${path} is not a string`);
      return null;
    }
    try {
      checkRelativePath(value);
      return value;
    } catch (error) {
      this.warnings.push(`manifest ${path} names an unsafe path, ignored (${error instanceof Error ? error.message : String(error)})`);
      return null;
    }
  }
}

/** Parses `manifest.json`. Throws `E_ARCHIVE_MANIFEST` when it is not UTF-8 JSON holding an object. */
export function parseBundleManifest(bytes: Uint8Array): ParsedBundleManifest {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return refuse("not UTF-8");
  }
  let value: JsonValue;
  try {
    value = parsePythonJson(text);
  } catch (error) {
    return refuse(error instanceof Error ? error.message : String(error));
  }
  if (!isJsonObject(value)) return refuse("not a JSON object");
  const read = new FieldReader();
  const request = read.object(value, "request", "request");
  const capture = read.object(value, "capture", "capture");
  const limits = read.object(capture, "limits_applied", "capture.limits_applied");
  const prompt = read.object(value, "prompt", "prompt");
  const integrity = read.object(value, "integrity", "integrity");
  const build = read.object(value, "build", "build");

  const bundleId = read.string(value, "bundle_id", "bundle_id");
  if (bundleId === "") read.warnings.push("manifest has no bundle_id");
  const status = read.string(request, "status", "request.status");
  if (status === "") read.warnings.push("manifest has no request.status");

  const files: string[] = [];
  const listed = ownValue(value, "files");
  if (Array.isArray(listed)) {
    listed.forEach((item, index) => {
      const path = read.memberPath(item, `files[${index}]`);
      if (path !== null) files.push(path);
    });
  } else if (listed !== undefined) read.warnings.push("manifest files is not a list");

  const checksums = new Map<string, string>();
  const written = ownValue(integrity, "checksums");
  if (isJsonObject(written)) {
    for (const key of Object.keys(written)) {
      const path = read.memberPath(key, `integrity.checksums[${JSON.stringify(key)}]`);
      const digest = written[key];
      if (path === null) continue;
      if (typeof digest !== "string" || !HEX_DIGEST.test(digest)) {
        read.warnings.push(`manifest checksum of ${path} is not a hex digest`);
        continue;
      }
      checksums.set(path, digest.toLowerCase());
    }
  } else if (written !== undefined) read.warnings.push("manifest integrity.checksums is not an object");

  const truncated = ownValue(limits, "filesystem_truncated");
  const manifest: BundleManifest = {
    formatVersion: read.string(value, "format_version", "format_version"),
    bundleId,
    createdAt: read.string(value, "created_at", "created_at"),
    requestId: read.string(request, "request_id", "request.request_id"),
    sessionId: read.nullableString(request, "session_id", "request.session_id"),
    status,
    startedAt: read.nullableString(request, "started_at", "request.started_at"),
    endedAt: read.nullableString(request, "ended_at", "request.ended_at"),
    captureMode: read.string(capture, "mode", "capture.mode"),
    trigger: read.string(capture, "trigger", "capture.trigger"),
    filesystemTruncated: truncated === true,
    prompt: { ns: read.string(prompt, "ns", "prompt.ns"), key: read.string(prompt, "key", "prompt.key"), adapter: read.string(prompt, "adapter", "prompt.adapter") },
    files,
    checksumAlgorithm: read.string(integrity, "algorithm", "integrity.algorithm", "sha256"),
    checksums,
    build: { version: read.string(build, "version", "build.version"), commit: read.string(build, "commit", "build.commit") },
    raw: value,
  };
  return { manifest, warnings: read.warnings };
}
