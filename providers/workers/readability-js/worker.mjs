// lexbench worker: jsdom as a headless engine (--output=html) and Mozilla's Readability on jsdom
// (--output=readability). One page per process; prints one JSON object on stdout.
//
//   node worker.mjs --version
//   node worker.mjs --output=html|readability --proxy=http://127.0.0.1:PORT [--selector=CSS] [--min-count=N]
//                   [--delay-ms=MS] [--timeout-ms=MS] [--allow-host=IP] URL
//
// --proxy is lexbench's guarding proxy for this call (lexbench/providers/guard_proxy.py): the page, every
// subresource and XHR go through it (jsdom's own proxy agents), and every other socket this process would
// open is refused before it connects (a WebSocket, anything a library opens), so the network guard
// decides every request. Schemes other than http, https and data (file: above all) are never loaded.
// --allow-host (replay mode) refuses every request, page or subresource, to any other host, the
// counterpart of Chromium's --host-resolver-rules. Output fields: status, final_url, redirects,
// content_type, title, completion {met, detail}, blocked (what was refused here), and html (html) or
// article (readability); a failed fetch prints {error: {type, message}}. The Python adapter enforces the
// deadline by killing this process.
import http from "node:http";
import https from "node:https";
import { createRequire } from "node:module";
import net from "node:net";
import zlib from "node:zlib";
import { JSDOM, ResourceLoader, VirtualConsole } from "jsdom";
import { Readability } from "@mozilla/readability";

const require = createRequire(import.meta.url);
// The proxy agents jsdom itself uses for its `proxy` option, from jsdom's own dependencies.
const jsdomRequire = createRequire(require.resolve("jsdom"));
const { HttpProxyAgent } = jsdomRequire("http-proxy-agent");
const { HttpsProxyAgent } = jsdomRequire("https-proxy-agent");
const MAX_REDIRECTS = 10;
const USER_AGENT = "lexbench-jsdom/0.1";
const blocked = []; // what this process refused, reported in the output

function parseArgs(argv) {
  const options = { output: "html", minCount: 1, delayMs: 0, timeoutMs: null, selector: null, allowHost: null, proxy: null };
  const rest = [];
  for (const arg of argv) {
    const [key, ...value] = arg.split("=");
    const text = value.join("=");
    if (key === "--version") options.version = true;
    else if (key === "--output") options.output = text;
    else if (key === "--selector") options.selector = text;
    else if (key === "--min-count") options.minCount = Number(text);
    else if (key === "--delay-ms") options.delayMs = Number(text);
    else if (key === "--timeout-ms") options.timeoutMs = Number(text);
    else if (key === "--allow-host") options.allowHost = text;
    else if (key === "--proxy") options.proxy = text;
    else if (arg.startsWith("--")) throw new Error(`unknown option ${arg}`);
    else rest.push(arg);
  }
  options.url = rest[0];
  return options;
}

function emit(object) {
  process.stdout.write(JSON.stringify(object) + "\n", () => process.exit(0));
}

function hostAllowed(url, allowHost) {
  if (!allowHost) return true;
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, "") === allowHost;
  } catch {
    return false;
  }
}

function classify(error) {
  const code = error?.cause?.code || error?.code || "";
  if (code === "LEXBENCH_BLOCKED") return "blocked_network";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "dns";
  if (code === "ECONNREFUSED" || code === "ECONNRESET" || code === "EHOSTUNREACH") return "connect";
  if (String(code).includes("CERT") || String(code).includes("TLS")) return "tls";
  return "connect";
}

// Every socket of this process goes to the guarding proxy, or nowhere: a connection elsewhere (a page's
// WebSocket, which jsdom opens without an agent) fails before any lookup or packet.
function confineSockets(proxyUrl) {
  const proxy = new URL(proxyUrl);
  const connect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function (...args) {
    let target = Array.isArray(args[0]) ? args[0][0] : args[0];
    if (typeof target !== "object" || target === null) target = { port: args[0], host: typeof args[1] === "string" ? args[1] : undefined };
    const host = target.host ?? "localhost";
    if (target.path !== undefined || host !== proxy.hostname || Number(target.port) !== Number(proxy.port)) {
      const where = target.path !== undefined ? `unix socket ${target.path}` : `${host}:${target.port}`;
      blocked.push(`${where}: refused: this worker connects to lexbench's guarding proxy only`);
      const error = Object.assign(new Error(`blocked: ${where} is not the guarding proxy`), { code: "LEXBENCH_BLOCKED" });
      process.nextTick(() => this.destroy(error));
      return this;
    }
    return connect.apply(this, args);
  };
}

function decoded(response) {
  const coding = (response.headers["content-encoding"] || "").trim().toLowerCase();
  if (coding === "gzip" || coding === "x-gzip") return response.pipe(zlib.createGunzip());
  if (coding === "deflate") return response.pipe(zlib.createInflate());
  if (coding === "br") return response.pipe(zlib.createBrotliDecompress());
  return response;
}

function get(url, proxy) {
  const target = new URL(url);
  const secure = target.protocol === "https:";
  const agent = secure ? new HttpsProxyAgent(proxy) : new HttpProxyAgent(proxy);
  return new Promise((resolve, reject) => {
    const request = (secure ? https : http).get(target, {
      agent, headers: { "user-agent": USER_AGENT, "accept-encoding": "gzip, deflate, br" },
    }, (response) => {
      const chunks = [];
      const body = decoded(response);
      body.on("data", (chunk) => chunks.push(chunk));
      body.on("end", () => resolve({ status: response.statusCode, headers: response.headers, body: Buffer.concat(chunks) }));
      body.on("error", reject);
    });
    request.on("error", reject);
  });
}

async function fetchPage(url, options) {
  const redirects = [];
  let current = url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    if (!hostAllowed(current, options.allowHost)) {
      return { error: { type: "blocked_network", message: `refused ${current}: replay mode allows only ${options.allowHost}` } };
    }
    const protocol = new URL(current).protocol;
    if (protocol !== "http:" && protocol !== "https:") {
      return { error: { type: "blocked_network", message: `refused ${current}: only http and https pages are fetched` } };
    }
    let response;
    try {
      response = await get(current, options.proxy);
    } catch (error) {
      return { error: { type: classify(error), message: `cannot fetch ${current}: ${error.cause?.message || error.message}` } };
    }
    const refused = response.headers["x-lexbench-blocked"];
    if (refused) return { error: { type: "blocked_network", message: `${current}: ${refused}` } };
    const failed = response.headers["x-lexbench-error"];
    if (failed) return { error: { type: failed === "dns" ? "dns" : "connect", message: `${current}: ${response.body.toString("utf-8").slice(0, 500)}` } };
    const location = response.headers.location;
    if (response.status >= 300 && response.status < 400 && location) {
      current = new URL(location, current).href;
      redirects.push(current);
      continue;
    }
    const contentType = response.headers["content-type"] ?? null;
    return { status: response.status, finalUrl: current, redirects, contentType, body: response.body };
  }
  return { error: { type: "too_many_redirects", message: `more than ${MAX_REDIRECTS} redirects from ${url}` } };
}

class GuardedLoader extends ResourceLoader {
  constructor(allowHost, proxy) {
    super({ userAgent: USER_AGENT, proxy }); // subresources and XHR (sync XHR too) through the guarding proxy
    this.allowHost = allowHost;
  }

  fetch(url, options) {
    const protocol = url.slice(0, url.indexOf(":") + 1).toLowerCase();
    if (protocol !== "http:" && protocol !== "https:" && protocol !== "data:") {
      blocked.push(`${url.slice(0, 300)}: refused: only http, https and data resources are loaded`);
      return null; // jsdom treats null as "not loaded"; file: URLs above all never are
    }
    if (!hostAllowed(url, this.allowHost)) return null;
    return super.fetch(url, options);
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function complete(window, options, started) {
  const left = () => (options.timeoutMs === null ? Infinity : options.timeoutMs - (Date.now() - started));
  if (window.document.readyState !== "complete") {
    const loaded = new Promise((resolve) => window.addEventListener("load", resolve, { once: true }));
    const limit = left();
    const outcome = await Promise.race([loaded.then(() => true), limit === Infinity ? loaded.then(() => true) : sleep(limit).then(() => false)]);
    if (!outcome) return { met: false, detail: `no load event within ${options.timeoutMs} ms` };
  }
  if (options.selector) {
    const enough = () => window.document.querySelectorAll(options.selector).length >= options.minCount;
    while (!enough()) {
      if (left() <= 0) {
        const found = window.document.querySelectorAll(options.selector).length;
        return { met: false, detail: `${found} of ${options.minCount} '${options.selector}' within ${options.timeoutMs} ms` };
      }
      await sleep(Math.min(50, Math.max(1, left())));
    }
  }
  if (options.delayMs > 0) await sleep(options.delayMs);
  return { met: true, detail: "complete" };
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  if (options.version) {
    const jsdom = require("jsdom/package.json").version;
    const readability = require("@mozilla/readability/package.json").version;
    process.stdout.write(`jsdom ${jsdom} readability ${readability} node ${process.versions.node}\n`);
    return;
  }
  if (!options.url) throw new Error("no URL given");
  if (!options.proxy) throw new Error("no --proxy given: pages are fetched through lexbench's guarding proxy only");
  confineSockets(options.proxy);
  const started = Date.now();
  const page = await fetchPage(options.url, options);
  if (page.error) return emit({ ...page, blocked });
  const type = (page.contentType || "text/html").toLowerCase();
  const result = { status: page.status, final_url: page.finalUrl, redirects: page.redirects, content_type: page.contentType };
  if (!type.includes("html") && !type.includes("xml")) {
    return emit({ ...result, error: { type: "unsupported_content", message: `not an HTML page (${page.contentType})` } });
  }
  const dom = new JSDOM(page.body, {
    url: page.finalUrl,
    contentType: type.includes("xhtml") ? page.contentType : "text/html" + (type.match(/;\s*charset=[^;]+/)?.[0] ?? ""),
    runScripts: "dangerously",
    resources: new GuardedLoader(options.allowHost, options.proxy),
    pretendToBeVisual: true,
    virtualConsole: new VirtualConsole(), // page console output is noise here
  });
  const completion = await complete(dom.window, options, started);
  const document = dom.window.document;
  result.title = document.title || null;
  result.completion = completion;
  if (options.output === "readability") {
    const article = new Readability(document.cloneNode(true)).parse();
    result.article = article && { title: article.title, content: article.content, byline: article.byline, excerpt: article.excerpt };
  } else {
    result.html = dom.serialize();
  }
  dom.window.close(); // stop page timers so the process can end
  result.blocked = blocked;
  emit(result);
}

main().catch((error) => {
  process.stderr.write(`${error.stack || error}\n`);
  process.exit(2);
});
