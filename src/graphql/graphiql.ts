// GraphiQL as a small page plus cacheable, compressed assets. @graphql-yoga/render-graphiql inlines
// ~9 MB of script, styles and Monaco workers into every page; served that way (and no-store, as
// every /graphql answer must be) each visit downloaded 9 MB. Here the page (a few kB, still
// no-store: it is an answer of /graphql) names the assets by the installed package's version,
// `graphql/assets/<version>/<name>`, and the assets are immutable for that version: cached for a
// year (RFC 8246), with an ETag for revalidation, gzip-compressed once on first request. The
// assets are read from the installed package on first use, so an idle server does not hold them.
// Everything still comes from this origin (no CDN): the page works on machines without internet.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { readFileSync } from "node:fs";
import { gzip } from "node:zlib";
import { promisify } from "node:util";
import type { Request, Response } from "express";

const require = createRequire(import.meta.url);
const PACKAGE_DIR = join(dirname(require.resolve("@graphql-yoga/render-graphiql")), "..");
const VERSION: string = JSON.parse(readFileSync(join(PACKAGE_DIR, "package.json"), "utf8")).version;

/** Relative to the page's URL (…/graphql), so the page also works behind a path prefix. */
export const GRAPHIQL_ASSETS_PATH = "/assets";
const assetUrl = (name: string) => `graphql${GRAPHIQL_ASSETS_PATH}/${VERSION}/${name}`;

interface RawAssets {
  css: string;
  js: string;
  favicon: string;
  editorWorkerService: string;
  jsonWorker: string;
  graphqlWorker: string;
}

const ASSETS: Record<string, { type: string; pick: (a: RawAssets) => string }> = {
  "graphiql.css": { type: "text/css; charset=utf-8", pick: (a) => a.css },
  "graphiql.js": { type: "text/javascript; charset=utf-8", pick: (a) => a.js },
  "editor.worker.js": { type: "text/javascript; charset=utf-8", pick: (a) => a.editorWorkerService },
  "json.worker.js": { type: "text/javascript; charset=utf-8", pick: (a) => a.jsonWorker },
  "graphql.worker.js": { type: "text/javascript; charset=utf-8", pick: (a) => a.graphqlWorker },
};

const compressed = new Map<string, Promise<{ plain: Buffer; gzipped: Buffer }>>();

function load(name: string): Promise<{ plain: Buffer; gzipped: Buffer }> {
  let entry = compressed.get(name);
  if (!entry) {
    // The package exports only its page renderer; its asset module sits next to the entry.
    const raw = require(join(PACKAGE_DIR, "cjs/graphiql.js")) as RawAssets;
    const plain = Buffer.from(ASSETS[name]!.pick(raw), "utf8");
    entry = promisify(gzip)(plain, { level: 9 }).then((gzipped) => ({ plain, gzipped }));
    compressed.set(name, entry);
  }
  return entry;
}

/** Serves `…/assets/<version>/<name>`; resolves false for any other path (the caller continues). */
export async function serveGraphiQLAsset(req: Request, res: Response): Promise<boolean> {
  const m = /^\/assets\/([^/]+)\/([^/]+)$/.exec(req.path);
  if (!m || (req.method !== "GET" && req.method !== "HEAD")) return false;
  const [, version, name] = m;
  const asset = ASSETS[name!];
  if (!asset || version !== VERSION) {
    res.status(404).json({ error: "not found" });
    return true;
  }
  const etag = `"${VERSION}-${name}"`;
  res.set({ "Cache-Control": "public, max-age=31536000, immutable", ETag: etag, "Content-Type": asset.type, Vary: "Accept-Encoding", "X-Content-Type-Options": "nosniff" });
  if (req.headers["if-none-match"]?.split(",").some((t) => t.trim().replace(/^W\//, "") === etag)) {
    res.status(304).end();
    return true;
  }
  const { plain, gzipped } = await load(name!);
  const gz = /\bgzip\b/.test(String(req.headers["accept-encoding"] ?? ""));
  if (gz) res.set("Content-Encoding", "gzip");
  const body = gz ? gzipped : plain;
  res.set("Content-Length", String(body.length));
  res.status(200).end(req.method === "HEAD" ? undefined : body);
  return true;
}

interface PageOptions {
  title?: string;
  [key: string]: unknown;
}

/** What yoga calls with its GraphiQL options (endpoint, headers, default query...): the small page. */
export function renderGraphiQLPage(opts: PageOptions): string {
  const json = JSON.stringify(opts ?? {}).replace(/</g, "\\u003c");
  const title = String(opts?.title ?? "GraphiQL").replace(/[<>&"]/g, "");
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>${title}</title>
    <link rel="stylesheet" href="${assetUrl("graphiql.css")}" />
  </head>
  <body id="body" class="no-focus-outline">
    <noscript>You need to enable JavaScript to run this app.</noscript>
    <div id="root"></div>
    <script>
      const workers = {
        editorWorkerService: new URL(${JSON.stringify(assetUrl("editor.worker.js"))}, location.href).href,
        json: new URL(${JSON.stringify(assetUrl("json.worker.js"))}, location.href).href,
        graphql: new URL(${JSON.stringify(assetUrl("graphql.worker.js"))}, location.href).href,
      };
      self["MonacoEnvironment"] = { globalAPI: false, getWorkerUrl: (_moduleId, label) => workers[label] };
    </script>
    <script src="${assetUrl("graphiql.js")}"></script>
    <script>
      YogaGraphiQL.renderYogaGraphiQL(window.document.querySelector("#root"), ${json});
    </script>
  </body>
</html>
`;
}
