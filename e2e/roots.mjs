// MCP roots with the real npm client: the server is started without
// --workspace in / (as an editor may start it); the client offers roots,
// and each session runs in the first one, the new one after
// roots/list_changed. Run by roots_test.go:
//
//   node roots.mjs --bin PATH --first DIR --second DIR
//
// Exit 0: the server ran where the roots said. Anything else: details on
// stderr.

import assert from "node:assert/strict";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const opts = {};
for (let i = 2; i < process.argv.length; i += 2) opts[process.argv[i].replace(/^--/, "")] = process.argv[i + 1];

let roots = [{ uri: pathToFileURL(opts.first).href, name: "first" }];
const client = new Client({ name: "shellguard-roots", version: "1.0.0" }, { capabilities: { roots: { listChanged: true } } });
client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots }));
const transport = new StdioClientTransport({ command: opts.bin, args: ["mcp"], cwd: "/", stderr: "inherit" });
await client.connect(transport);

async function pwd() {
  const res = await client.callTool({ name: "bash", arguments: { command: "pwd" } });
  const text = res.content.map((c) => c.text).join("");
  assert.ok(!res.isError, `pwd is a tool error: ${text}`);
  return res.structuredContent.stdout;
}

try {
  assert.equal(await pwd(), opts.first + "\n", "the session runs in the first root");
  roots = [{ uri: pathToFileURL(opts.second).href, name: "second" }];
  await client.sendRootsListChanged();
  let got = "";
  for (let i = 0; i < 50 && got !== opts.second + "\n"; i++) {
    got = await pwd();
    if (got !== opts.second + "\n") await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(got, opts.second + "\n", "after roots/list_changed the session runs in the new first root");
  roots = [{ uri: "file:///", name: "root" }];
  await client.sendRootsListChanged();
  let res;
  for (let i = 0; i < 50; i++) {
    res = await client.callTool({ name: "bash", arguments: { command: "pwd" } });
    if (res.isError) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const text = res.content.map((c) => c.text).join("");
  assert.ok(res.isError && /file system's root/.test(text), `a root of / is refused: ${text}`);
} finally {
  await client.close();
}
