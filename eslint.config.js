import js from "@eslint/js";
import tseslint from "typescript-eslint";
import reactHooks from "eslint-plugin-react-hooks";
import pluginQuery from "@tanstack/eslint-plugin-query";

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
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "error",
    },
  },
  {
    // Code the browser also runs must not reach for Node built-ins.
    files: ["web/**/*.{ts,tsx}", "shared/session/**/*.ts", "shared/viewer/**/*.ts", "shared/remote/**/*.ts", "shared/browser.ts"],
    ignores: ["**/*.node.ts", "**/*.test.ts", "**/*.test-support.ts", "shared/remote/index.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ group: ["node:*", "fs", "path", "os", "child_process", "zlib", "crypto"], message: "browser-safe module: no Node built-ins" }] }],
    },
  },
);
