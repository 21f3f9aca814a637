// Loaded with `node --import` before the MCP conformance suite (@modelcontextprotocol/conformance):
// its bundle imports `globSync` from "fs", which Node 20 lacks (added in Node 22), so the import
// fails at link time. The hooks below hand the suite's modules an "fs" with a small globSync added
// (only what the suite asks of it: relative patterns with * and **). Node's own fs is untouched.
import { register } from "node:module";

register("./fs-glob-hooks.mjs", import.meta.url);
