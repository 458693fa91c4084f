import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

// The web app lives in web/ and is built into dist/web, which the server serves.
// `vite dev` proxies API calls to a running `wink-debug` (default port 8000).
export default defineConfig({
  root: "web",
  base: "./",
  plugins: [react()],
  build: {
    outDir: "../dist/web",
    emptyOutDir: true,
    sourcemap: true,
    chunkSizeWarningLimit: 600,
  },
  server: {
    proxy: {
      "/api": { target: process.env.WINK_DEBUG_URL ?? "http://127.0.0.1:8000", changeOrigin: false },
    },
  },
});
