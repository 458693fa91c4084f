/**
 * The data of a bundled run: a JSON block in the page (`<script type="application/json"
 * id="wink-bundle">`, never executed) with each file's path and base64 bytes, written by
 * `wink-debug bundle` (server/bundle.ts).
 */
import { ApiError } from "./api.js";
import { LocalApi } from "./local-api.js";
import type { LocalInput } from "./local-api.js";

export interface BundledRun {
  readonly format: "wink-debug-bundle";
  readonly version: 1;
  readonly label: string;
  readonly files: readonly { readonly path: string; readonly base64: string; readonly modified_at?: string }[];
}

export function decodeBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Parses the bundle block and opens its files. */
export function readBundledRun(text: string): LocalApi {
  let run: BundledRun;
  try {
    run = JSON.parse(text) as BundledRun;
  } catch {
    throw new ApiError(0, "The bundled run data is not valid JSON");
  }
  if (run.format !== "wink-debug-bundle" || !Array.isArray(run.files)) throw new ApiError(0, "The page does not carry a wink-debug bundle");
  const inputs: LocalInput[] = run.files.map((file) => ({
    path: file.path,
    bytes: decodeBase64(file.base64),
    lastModified: file.modified_at === undefined ? undefined : Date.parse(file.modified_at),
  }));
  return LocalApi.open(inputs, run.label);
}
