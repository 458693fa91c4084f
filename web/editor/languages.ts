/**
 * Syntax highlighting per file name, each language loaded only when a file needs it (the
 * editor chunk stays small; a Python file never downloads the Rust grammar).
 */
import type { StreamParser } from "@codemirror/language";
import type { Extension } from "@codemirror/state";

type Loader = () => Promise<Extension>;

const legacy = async (load: () => Promise<StreamParser<unknown>>): Promise<Extension> => {
  const [{ StreamLanguage }, mode] = await Promise.all([import("@codemirror/language"), load()]);
  return StreamLanguage.define(mode);
};

const BY_EXTENSION: Record<string, Loader> = {
  js: () => import("@codemirror/lang-javascript").then((m) => m.javascript()),
  mjs: () => import("@codemirror/lang-javascript").then((m) => m.javascript()),
  cjs: () => import("@codemirror/lang-javascript").then((m) => m.javascript()),
  jsx: () => import("@codemirror/lang-javascript").then((m) => m.javascript({ jsx: true })),
  ts: () => import("@codemirror/lang-javascript").then((m) => m.javascript({ typescript: true })),
  mts: () => import("@codemirror/lang-javascript").then((m) => m.javascript({ typescript: true })),
  cts: () => import("@codemirror/lang-javascript").then((m) => m.javascript({ typescript: true })),
  tsx: () => import("@codemirror/lang-javascript").then((m) => m.javascript({ typescript: true, jsx: true })),
  py: () => import("@codemirror/lang-python").then((m) => m.python()),
  pyi: () => import("@codemirror/lang-python").then((m) => m.python()),
  json: () => import("@codemirror/lang-json").then((m) => m.json()),
  jsonl: () => import("@codemirror/lang-json").then((m) => m.json()),
  md: () => import("@codemirror/lang-markdown").then((m) => m.markdown()),
  markdown: () => import("@codemirror/lang-markdown").then((m) => m.markdown()),
  css: () => import("@codemirror/lang-css").then((m) => m.css()),
  html: () => import("@codemirror/lang-html").then((m) => m.html()),
  htm: () => import("@codemirror/lang-html").then((m) => m.html()),
  yml: () => import("@codemirror/lang-yaml").then((m) => m.yaml()),
  yaml: () => import("@codemirror/lang-yaml").then((m) => m.yaml()),
  rs: () => import("@codemirror/lang-rust").then((m) => m.rust()),
  go: () => import("@codemirror/lang-go").then((m) => m.go()),
  sql: () => import("@codemirror/lang-sql").then((m) => m.sql()),
  java: () => import("@codemirror/lang-java").then((m) => m.java()),
  c: () => import("@codemirror/lang-cpp").then((m) => m.cpp()),
  h: () => import("@codemirror/lang-cpp").then((m) => m.cpp()),
  cc: () => import("@codemirror/lang-cpp").then((m) => m.cpp()),
  cpp: () => import("@codemirror/lang-cpp").then((m) => m.cpp()),
  hpp: () => import("@codemirror/lang-cpp").then((m) => m.cpp()),
  sh: () => legacy(() => import("@codemirror/legacy-modes/mode/shell").then((m) => m.shell)),
  bash: () => legacy(() => import("@codemirror/legacy-modes/mode/shell").then((m) => m.shell)),
  zsh: () => legacy(() => import("@codemirror/legacy-modes/mode/shell").then((m) => m.shell)),
  toml: () => legacy(() => import("@codemirror/legacy-modes/mode/toml").then((m) => m.toml)),
  ini: () => legacy(() => import("@codemirror/legacy-modes/mode/properties").then((m) => m.properties)),
  cfg: () => legacy(() => import("@codemirror/legacy-modes/mode/properties").then((m) => m.properties)),
};

const BY_NAME: Record<string, Loader> = {
  dockerfile: () => legacy(() => import("@codemirror/legacy-modes/mode/dockerfile").then((m) => m.dockerFile)),
  makefile: () => legacy(() => import("@codemirror/legacy-modes/mode/shell").then((m) => m.shell)),
};

/** The name of the language used for `path` (for the header), or null for plain text. */
export function languageName(path: string): string | null {
  const name = path.slice(path.lastIndexOf("/") + 1).toLowerCase();
  if (BY_NAME[name] !== undefined) return name;
  const dot = name.lastIndexOf(".");
  const extension = dot <= 0 ? "" : name.slice(dot + 1);
  return BY_EXTENSION[extension] === undefined ? null : extension;
}

/** Loads the highlighting for `path`; plain text (an empty extension) when unknown or on failure. */
export async function loadLanguage(path: string): Promise<Extension> {
  const name = path.slice(path.lastIndexOf("/") + 1).toLowerCase();
  const dot = name.lastIndexOf(".");
  const loader = BY_NAME[name] ?? (dot <= 0 ? undefined : BY_EXTENSION[name.slice(dot + 1)]);
  if (loader === undefined) return [];
  try {
    return await loader();
  } catch {
    return [];
  }
}
