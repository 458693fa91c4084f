/**
 * `/api/environment`: the bundle's `environment/` capture in the shape WINK's viewer sends —
 * the known fields of each JSON file (null when a file or field is missing), env vars as an
 * object, the text files as strings, and the container only when the run was containerised.
 */
import type { JsonValue } from "../session/json-value.js";
import type { JsonObject } from "../session/json-value.js";
import { isJsonObject, ownValue, setOwnValue } from "../session/json-value.js";
import { ENVIRONMENT_PREFIX } from "./layout.js";
import type { EnvironmentView } from "./types.js";

const FIELDS = {
  system: ["os_name", "os_release", "kernel_version", "architecture", "processor", "cpu_count", "memory_total_bytes", "hostname"],
  python: ["version", "version_info", "implementation", "executable", "prefix", "base_prefix", "is_virtualenv"],
  git: ["repo_root", "commit_sha", "commit_short", "branch", "is_dirty", "remotes", "tags"],
  container: ["runtime", "container_id", "image", "image_digest", "cgroup_path", "is_containerized"],
} as const;

/** Environment members, relative to the bundle root. */
export const ENVIRONMENT_MEMBERS = {
  system: `${ENVIRONMENT_PREFIX}system.json`,
  python: `${ENVIRONMENT_PREFIX}python.json`,
  git: `${ENVIRONMENT_PREFIX}git.json`,
  container: `${ENVIRONMENT_PREFIX}container.json`,
  envVars: `${ENVIRONMENT_PREFIX}env_vars.json`,
  packages: `${ENVIRONMENT_PREFIX}packages.txt`,
  command: `${ENVIRONMENT_PREFIX}command.txt`,
  gitDiff: `${ENVIRONMENT_PREFIX}git.diff`,
} as const;

function pick(value: JsonValue | null, fields: readonly string[]): Record<string, unknown> | null {
  if (!isJsonObject(value)) return null;
  const picked: Record<string, unknown> = {};
  for (const field of fields) picked[field] = ownValue(value, field) ?? null;
  return picked;
}

export interface EnvironmentInputs {
  readonly json: (member: string) => Promise<JsonValue | null>;
  readonly text: (member: string) => Promise<string | null>;
}

/** Builds the environment view from the bundle's members (absent ones read as null). */
export async function environmentView(read: EnvironmentInputs): Promise<EnvironmentView> {
  const [system, python, git, container, envVars, packages, command, gitDiff] = await Promise.all([
    read.json(ENVIRONMENT_MEMBERS.system),
    read.json(ENVIRONMENT_MEMBERS.python),
    read.json(ENVIRONMENT_MEMBERS.git),
    read.json(ENVIRONMENT_MEMBERS.container),
    read.json(ENVIRONMENT_MEMBERS.envVars),
    read.text(ENVIRONMENT_MEMBERS.packages),
    read.text(ENVIRONMENT_MEMBERS.command),
    read.text(ENVIRONMENT_MEMBERS.gitDiff),
  ]);
  const containerView = pick(container, FIELDS.container);
  const variables: JsonObject = {};
  if (isJsonObject(envVars)) for (const name of Object.keys(envVars).sort()) setOwnValue(variables, name, envVars[name] ?? null);
  return {
    system: pick(system, FIELDS.system),
    python: pick(python, FIELDS.python),
    git: pick(git, FIELDS.git),
    container: containerView !== null && containerView.is_containerized === true ? containerView : null,
    env_vars: variables,
    packages,
    command,
    git_diff: gitDiff,
  };
}
