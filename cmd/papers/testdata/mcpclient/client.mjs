// Drives `papers mcp` from the official TypeScript MCP client, as an
// assistant would: list the tools, call each, check shapes and content,
// cancel a long ingest. Run by cmd/papers/mcp_e2e_test.go, which starts the
// fake arXiv and passes in the environment:
//   PAPERS_MCP_CONFIG  what `papers mcp --print-config claude` printed: the
//                      server's command (absolute), args and env (the
//                      library, empty), which the client starts as given
//   PAPERS_ARXIV_*     the fake arXiv
// It exits non-zero with a message on the first check that fails, and
// prints one JSON line of what it saw at the end.
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { getEncoding } from "js-tiktoken";

const config = JSON.parse(process.env.PAPERS_MCP_CONFIG).mcpServers.papers;
assert.ok(config.command.startsWith("/"), `command ${config.command} is not an absolute path`);
const transport = new StdioClientTransport({
  command: config.command,
  args: config.args,
  env: { ...process.env, ...config.env },
  stderr: "inherit",
});
const client = new Client({ name: "papers-e2e", version: "1.0.0" });
// stdout must carry only the protocol: a line that is no JSON-RPC message
// (a log, a progress bar) reaches onerror, which is checked at the end
const protocolErrors = [];
// One exception: a progress notification the server sent while our
// cancellation of that call was on its way arrives for a token the client
// has already dropped (the spec allows for it), and only after an abort.
let aborted = false;
client.onerror = (e) => {
  const s = String(e);
  if (aborted && s.includes("progress notification for an unknown token")) return;
  protocolErrors.push(s);
};
await client.connect(transport);
const seen = { server: client.getServerVersion() };

// tools/list: every tool, with a description and an input schema, and
// all of it within 2,500 tokens of an assistant's context (o200k_base,
// GPT-4o's tokenizer; 9,021 before issue 30)
const listed = await client.listTools();
const { tools } = listed;
const names = tools.map((t) => t.name).sort();
assert.deepEqual(names, ["ask", "digest", "export_bibtex", "get_paper", "ingest", "list_papers",
  "list_topics", "momentum", "read_paper", "related", "review", "search", "update"]);
for (const t of tools) {
  assert.ok(t.description.length > 60, `${t.name}: description`);
  assert.equal(t.inputSchema.type, "object", `${t.name}: inputSchema`);
}
seen.tools = names;
seen.toolsListTokens = getEncoding("o200k_base").encode(JSON.stringify(listed)).length;
assert.ok(seen.toolsListTokens <= 2500, `tools/list is ${seen.toolsListTokens} tokens, want at most 2,500`);

// a call: structured content and the same JSON as text, within the
// call's budget (max_chars, default 6000 characters)
async function call(name, args, options) {
  const res = await client.callTool({ name, arguments: args }, undefined, options);
  if (res.isError) return res;
  assert.ok(res.structuredContent, `${name}: structuredContent`);
  assert.equal(res.content[0].type, "text");
  assert.deepEqual(JSON.parse(res.content[0].text), res.structuredContent, `${name}: text content`);
  if (name !== "ingest" && name !== "update") {
    const budget = args.max_chars ?? (name === "read_paper" ? 8000 : 6000);
    const chars = [...res.content[0].text].length;
    assert.ok(chars <= budget, `${name}: ${chars} characters, over its budget of ${budget}`);
  }
  return res;
}
function failed(res, ...words) {
  assert.equal(res.isError, true, `want a tool error, got ${JSON.stringify(res).slice(0, 300)}`);
  const text = res.content.map((c) => c.text).join("");
  for (const w of words) assert.ok(text.includes(w), `the error ${JSON.stringify(text)} does not say ${w}`);
  return text;
}

// before any paper: the message papers would print
failed(await call("search", { query: "tools" }), "no papers in the library", "hint:");

// ingest a real paper, with progress on our token
const progress = [];
let res = await call("ingest", { ids: ["2302.04761"] }, { onprogress: (p) => progress.push(p) });
assert.ok(!res.isError, JSON.stringify(res));
assert.deepEqual(res.structuredContent.added, ["2302.04761"]);
assert.ok(res.structuredContent.pages >= 17);
assert.ok(progress.length >= 2, `progress: ${JSON.stringify(progress)}`);
for (let i = 1; i < progress.length; i++) assert.ok(progress[i].progress > progress[i - 1].progress);
assert.ok(progress.some((p) => p.message.startsWith("added 2302.04761")), JSON.stringify(progress));
seen.progress = progress.length;

res = await call("search", { query: "teach themselves to use tools via API calls", k: 3 });
const ps = res.structuredContent.passages;
assert.equal(ps.length, 3);
assert.equal(ps[0].id, "2302.04761");
assert.equal(ps[0].version, 1);
for (const p of ps) for (const f of ["id", "version", "title", "pages", "text"]) assert.ok(f in p, f);
assert.ok(!("score" in ps[0]) && !("chunk" in ps[0]), "search rows are compact by default");
seen.search = ps.map((p) => `${p.id}v${p.version} p.${p.pages}`);

res = await call("ask", { question: "Which tools does Toolformer use?", mode: "extractive" });
const a = res.structuredContent;
assert.equal(a.abstained, false);
assert.ok(a.citations.length > 0 && a.citations[0].id === "2302.04761" && a.citations[0].passage.length > 0);
seen.ask = a.citations.map((c) => `[${c.n}] ${c.id}v${c.version} p.${c.pages}`);

res = await call("get_paper", { id: "https://arxiv.org/abs/2302.04761v1" });
assert.equal(res.structuredContent.pages, 17);
assert.ok(res.structuredContent.sections.length > 2);

let cursor, reads = 0, text = "";
for (;;) {
  res = await call("read_paper", { id: "2302.04761", max_chars: 20000, ...(cursor ? { cursor } : {}) });
  const r = res.structuredContent;
  text += r.text;
  reads++;
  if (!r.next_cursor) break;
  cursor = r.next_cursor;
}
assert.ok(reads >= 3 && text.includes("[page 17]"), `${reads} reads`);
seen.read = reads;
// a page is exactly its own
res = await call("read_paper", { id: "2302.04761", page_start: 6 });
assert.ok(res.structuredContent.text.startsWith("[page 6]") && !res.structuredContent.text.includes("[page 7]"), res.structuredContent.text.slice(0, 200));
assert.equal(res.structuredContent.page_start, 6);
assert.equal(res.structuredContent.page_end, 6);

res = await call("list_papers", { limit: 10 });
assert.equal(res.structuredContent.papers.length, 1);
assert.equal(res.structuredContent.next_cursor, undefined);
res = await call("related", { id: "2302.04761v1" });
assert.equal(res.structuredContent.id, "2302.04761");
assert.deepEqual(res.structuredContent.related, []); // the only paper
assert.ok(res.structuredContent.note.includes("no other paper"), res.structuredContent.note);
res = await call("list_topics", {});
assert.deepEqual(res.structuredContent.topics, []);
failed(await call("momentum", {}), "no topics are followed yet", "hint:");
failed(await call("update", {}), "no topics are followed yet");
failed(await call("digest", { topic: "agents" }), 'no topic "agents"');
res = await call("export_bibtex", { answer: a });
const bib = res.structuredContent.text;
assert.ok(bib.startsWith("@misc{") && bib.includes("Toolformer") && /eprint\s*=\s*\{2302\.04761v1\}/.test(bib), bib);
assert.deepEqual(res.structuredContent.papers, ["2302.04761"]);
failed(await call("get_paper", { id: "2210.03629" }), "2210.03629 is not in the library", "hint:");
failed(await call("search", { query: "x", since: "yesterday-ish" }), "invalid date");
failed(await call("read_paper", { id: 42 }), "id");

const { resources } = await client.listResources();
assert.deepEqual(resources.map((r) => r.uri), ["papers://2302.04761"]);
const rr = await client.readResource({ uri: "papers://2302.04761" });
assert.ok(rr.contents[0].text.startsWith("# Toolformer"));
const pr = await client.getPrompt({ name: "literature_review", arguments: { question: "How do language models learn to use tools?" } });
assert.ok(pr.messages[0].content.text.includes("2302.04761v1"));

// a long ingest, cancelled: notifications/cancelled with our request
const ctl = new AbortController();
const longProgress = [];
const long = client.callTool({ name: "ingest", arguments: { query: "all:testing", max: 60 } }, undefined, {
  signal: ctl.signal,
  onprogress: (p) => {
    longProgress.push(p);
    if (longProgress.length === 3) {
      aborted = true;
      ctl.abort("enough");
    }
  },
  timeout: 120000,
});
await assert.rejects(long, (e) => String(e).includes("enough") || e.name === "AbortError" || String(e).includes("abort"));
seen.cancelledAfter = longProgress.length;

// the server lives on after the cancellation
res = await call("list_papers", { limit: 500 });
seen.papersAfterCancel = res.structuredContent.papers.length;
assert.ok(seen.papersAfterCancel < 61, `${seen.papersAfterCancel} papers: the ingest ran to the end`);

await client.close();
assert.deepEqual(protocolErrors, [], "papers mcp wrote to stdout what is not the protocol");
console.log(JSON.stringify(seen));
