import preact from "@preact/preset-vite";
import { defineConfig } from "vite";

// Served by `interlude serve` under /inbox/, so asset URLs are relative to that prefix.
export default defineConfig({
  base: "/inbox/",
  plugins: [preact()],
  build: { outDir: "dist", emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 400 },
});
