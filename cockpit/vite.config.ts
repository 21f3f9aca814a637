// The cockpit's Vite build (docs/cockpit.md): served by Toolgate at /cockpit/, assets under
// /cockpit/assets/ with content-hashed names (the server caches them for a year). Run by
// scripts/build-cockpit.mjs at `npm install` and `npm run build`; no dev server is needed.
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

const here = import.meta.dirname;

export default defineConfig({
  root: here,
  base: "/cockpit/",
  plugins: [react()],
  // Nothing is read from the environment: the page learns everything from the API it talks to.
  envPrefix: "COCKPIT_NONE_",
  build: {
    outDir: `${here}/../dist/cockpit`,
    emptyOutDir: true,
    target: "es2022",
    // The polyfill would be one more script; every browser the cockpit supports preloads modules.
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
    // Every asset is a file (a `data:` URI would need a looser CSP for fonts and styles).
    assetsInlineLimit: 0,
  },
});
