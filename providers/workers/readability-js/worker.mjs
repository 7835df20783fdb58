// lexbench worker: jsdom as a headless engine (--output=html) and Mozilla's Readability on jsdom
// (--output=readability). One page per process; prints one JSON object on stdout.
//
//   node worker.mjs --version
//   node worker.mjs --output=html|readability [--selector=CSS] [--min-count=N] [--delay-ms=MS]
//                   [--timeout-ms=MS] [--allow-host=IP] URL
//
// --allow-host (replay mode) refuses every request, page or subresource, to any other host, the
// counterpart of Chromium's --host-resolver-rules. Output fields: status, final_url, redirects,
// content_type, title, completion {met, detail}, and html (html) or article (readability); a failed
// fetch prints {error: {type, message}}. The Python adapter enforces the deadline by killing this process.
import { createRequire } from "node:module";
import { JSDOM, ResourceLoader, VirtualConsole } from "jsdom";
import { Readability } from "@mozilla/readability";

const require = createRequire(import.meta.url);
const MAX_REDIRECTS = 10;

function parseArgs(argv) {
  const options = { output: "html", minCount: 1, delayMs: 0, timeoutMs: null, selector: null, allowHost: null };
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
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "dns";
  if (code === "ECONNREFUSED" || code === "ECONNRESET" || code === "EHOSTUNREACH") return "connect";
  if (String(code).includes("CERT") || String(code).includes("TLS")) return "tls";
  return "connect";
}

async function fetchPage(url, allowHost) {
  const redirects = [];
  let current = url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    if (!hostAllowed(current, allowHost)) {
      return { error: { type: "blocked_network", message: `refused ${current}: replay mode allows only ${allowHost}` } };
    }
    let response;
    try {
      response = await fetch(current, { redirect: "manual", headers: { "user-agent": "lexbench-jsdom/0.1" } });
    } catch (error) {
      return { error: { type: classify(error), message: `cannot fetch ${current}: ${error.cause?.message || error.message}` } };
    }
    const location = response.headers.get("location");
    if (response.status >= 300 && response.status < 400 && location) {
      current = new URL(location, current).href;
      redirects.push(current);
      continue;
    }
    const body = Buffer.from(await response.arrayBuffer());
    return { status: response.status, finalUrl: current, redirects, contentType: response.headers.get("content-type"), body };
  }
  return { error: { type: "too_many_redirects", message: `more than ${MAX_REDIRECTS} redirects from ${url}` } };
}

class GuardedLoader extends ResourceLoader {
  constructor(allowHost) {
    super({ userAgent: "lexbench-jsdom/0.1" });
    this.allowHost = allowHost;
  }

  fetch(url, options) {
    if (!hostAllowed(url, this.allowHost)) return null; // jsdom treats null as "not loaded"
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
  const started = Date.now();
  const page = await fetchPage(options.url, options.allowHost);
  if (page.error) return emit(page);
  const type = (page.contentType || "text/html").toLowerCase();
  const result = { status: page.status, final_url: page.finalUrl, redirects: page.redirects, content_type: page.contentType };
  if (!type.includes("html") && !type.includes("xml")) {
    return emit({ ...result, error: { type: "unsupported_content", message: `not an HTML page (${page.contentType})` } });
  }
  const dom = new JSDOM(page.body, {
    url: page.finalUrl,
    contentType: type.includes("xhtml") ? page.contentType : "text/html" + (type.match(/;\s*charset=[^;]+/)?.[0] ?? ""),
    runScripts: "dangerously",
    resources: new GuardedLoader(options.allowHost),
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
  emit(result);
}

main().catch((error) => {
  process.stderr.write(`${error.stack || error}\n`);
  process.exit(2);
});
