#!/usr/bin/env node
// The `interlude` command. A committed file rather than dist/ itself, so that npm links the
// command at install time, before the package is built.
await import("../dist/cli/main.js");
