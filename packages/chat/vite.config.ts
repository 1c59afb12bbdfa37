import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// Served by the server under /chat/, so asset URLs are relative to that prefix.
export default defineConfig({
  base: "/chat/",
  plugins: [react()],
  build: { outDir: "dist", emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 1200 },
});
