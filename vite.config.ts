import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

// The web app lives in web/ and is built into dist/web, which the server serves.
// `vite dev` proxies API calls to a running `wink-debug` (default port 8000).
//
// `vite build --mode standalone` builds the same app as one script and one stylesheet with
// no lazy chunks (dist/web-standalone), which `wink-debug bundle` inlines into a single
// HTML file that opens from file:// (where separate chunks cannot be fetched).
//
// `vite build --ssr entry-server.tsx` builds the landing page's server renderer
// (web/entry-server.tsx) into dist/web-ssr: CommonJS with React and every other dependency
// inside (the published package does not depend on React), which the server requires at run
// time (server/plugins/server-render.ts; the CLI runs as a script, where import() is not
// available). The views the landing page does not draw stay in chunks that are never loaded.
export default defineConfig(({ mode, isSsrBuild }) => {
  const standalone = mode === "standalone";
  if (isSsrBuild === true) {
    return {
      root: "web",
      plugins: [react()],
      // React's production build: the server's environment does not say NODE_ENV=production.
      define: { "process.env.NODE_ENV": JSON.stringify("production") },
      ssr: { noExternal: true },
      build: { outDir: "../dist/web-ssr", emptyOutDir: true, sourcemap: false, minify: true, rollupOptions: { output: { format: "cjs", entryFileNames: "entry-server.cjs", chunkFileNames: "assets/[name]-[hash].cjs" } } },
    };
  }
  return {
    root: "web",
    // Relative asset URLs, so the app works under any base path (`--public-url`): the server
    // makes index.html's own URLs absolute under its base path (it also answers deep page
    // paths with it, where "./" would resolve wrongly), and chunks load relative to each other.
    base: "./",
    plugins: [react()],
    build: {
      outDir: standalone ? "../dist/web-standalone" : "../dist/web",
      emptyOutDir: true,
      sourcemap: !standalone,
      // The budget is checked by bench/web-size.ts (docs/benchmarks.md); this only warns.
      chunkSizeWarningLimit: standalone ? 4000 : 600,
      modulePreload: standalone ? false : { polyfill: false },
      rollupOptions: standalone ? { output: { codeSplitting: false } } : {},
    },
    server: {
      proxy: {
        // The server's routes, but not the app's own modules in web/api/ (`/api/http-api.ts`); the app
        // asks for files with `?path=`, never by a path ending in .ts.
        "^/api/(?!.*\\.tsx?(?:\\?.*)?$)": { target: process.env.WINK_DEBUG_URL ?? "http://127.0.0.1:8000", changeOrigin: false },
      },
    },
  };
});
