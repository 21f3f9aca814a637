// Permissive CORS for the public OAuth documents and endpoints that browser-based MCP clients (the
// Inspector, web apps) call: any origin, never credentials (nothing here reads cookies), and a
// preflight answered at once (notes: MCP R12, RFC 7591 registration from a browser).
import type { RequestHandler } from "express";

export function publicCors(methods: string, headers: string): RequestHandler {
  return (req, res, next) => {
    res.set("Access-Control-Allow-Origin", "*");
    if (req.method === "OPTIONS") {
      res.set("Access-Control-Allow-Methods", methods).set("Access-Control-Allow-Headers", headers).set("Access-Control-Max-Age", "86400");
      res.status(204).end();
      return;
    }
    next();
  };
}
