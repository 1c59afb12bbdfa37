import { defineConfig } from "vite";
import preact from "@preact/preset-vite";

// Served by `interlude serve` under /inbox/, so asset URLs are relative to that prefix.
export default defineConfig({
  base: "/inbox/",
  plugins: [preact()],
  build: { outDir: "dist", emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 400 },
});
