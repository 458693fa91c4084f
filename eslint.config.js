import js from "@eslint/js";
import tseslint from "typescript-eslint";
import reactHooks from "eslint-plugin-react-hooks";
import pluginQuery from "@tanstack/eslint-plugin-query";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { layerImportRules } from "./scripts/layers.mjs";

const NODE_BUILTINS = { group: ["node:*", "fs", "path", "os", "child_process", "zlib", "crypto"], message: "browser-safe module: no Node built-ins" };
/** server/ and web/ reach shared/ through a folder's entry (`index.js`, `browser.js`) or a top-level module, never a module inside a folder. */
const THROUGH_ENTRIES = { regex: "^(\\.\\./)+shared/([^/]+/)+(?!(index|browser)\\.js$)[^/]+$", message: "import shared/ through the folder's entry (its index.js), not a module path (docs/architecture.md)" };
const isBrowserSafe = (file) =>
  (/^(web\/|shared\/(session|viewer|remote)\/)/.test(file) || file === "shared/browser.ts") && !/\.node\.ts$/.test(file) && file !== "shared/remote/index.ts";

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "fixtures/security/**", "fixtures/wink/**", "bench/.work/**", "test-results/**", "playwright-report/**", ".test-results/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: "readonly", console: "readonly", Buffer: "readonly", setTimeout: "readonly", clearTimeout: "readonly",
        setInterval: "readonly", clearInterval: "readonly", setImmediate: "readonly", URL: "readonly", TextDecoder: "readonly",
        TextEncoder: "readonly", AbortController: "readonly", queueMicrotask: "readonly", structuredClone: "readonly",
      },
    },
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
      "@typescript-eslint/consistent-type-imports": "error",
      "no-control-regex": "off",
      eqeqeq: ["error", "smart"],
      "prefer-const": "error",
    },
  },
  {
    // The SPA: hooks called in a fixed order with complete dependency lists, and TanStack Query used
    // the way its cache expects (query keys hold every input, stable query clients, no rest-spread of results).
    files: ["web/**/*.{ts,tsx}"],
    plugins: { "react-hooks": reactHooks, "@tanstack/query": pluginQuery },
    rules: {
      ...pluginQuery.configs["flat/recommended"][0].rules,
      "@tanstack/query/prefer-query-options": "error",
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "error",
    },
  },
  // The layers of docs/architecture.md: an import from a layer above fails (scripts/layers.mjs).
  // Code the browser also runs (web/, shared/session, shared/viewer, shared/remote, the browser
  // entry; not *.node.ts) must not reach for Node built-ins either: one set of options per rule
  // and file, so both restrictions go into the same blocks.
  ...layerImportRules(path.dirname(fileURLToPath(import.meta.url)), (file) => [...(isBrowserSafe(file) ? [NODE_BUILTINS] : []), ...(/^(server|web)\//.test(file) ? [THROUGH_ENTRIES] : [])]),
);
