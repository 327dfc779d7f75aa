// The README's MCP quick start, as a client would follow it: start the
// server from the command line a client configuration holds, list the
// tools, and call `bash` with `echo hi`. Run by quickstart_test.go:
//
//   node quickstart.mjs --command CMD --args JSON-ARRAY --cwd DIR
//
// CMD is looked up on PATH as a client does. Exit 0: the server answered
// as the quick start says. Anything else: details on stderr.

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const opts = {};
for (let i = 2; i < process.argv.length; i += 2) opts[process.argv[i].replace(/^--/, "")] = process.argv[i + 1];

const client = new Client({ name: "shellguard-quickstart", version: "1.0.0" });
const transport = new StdioClientTransport({
  command: opts.command,
  args: JSON.parse(opts.args),
  cwd: opts.cwd,
  stderr: "inherit",
});
await client.connect(transport);
try {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), ["bash"], "the server lists one tool, bash");
  const res = await client.callTool({ name: "bash", arguments: { command: "echo hi" } });
  const text = res.content.map((c) => c.text).join("");
  assert.ok(!res.isError, `echo hi is a tool error: ${text}`);
  assert.equal(res.structuredContent.stdout, "hi\n", `stdout of echo hi: ${text}`);
  assert.equal(res.structuredContent.exit_code, 0, `exit code of echo hi: ${text}`);
  assert.match(text, /hi/, "the text for the model holds the output");
} finally {
  await client.close();
}
