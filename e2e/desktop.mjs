// An ask from a client that cannot put it to the user (no elicitation, as
// Claude Desktop), answered on the approval page the way a person would:
// start the server from a client configuration's command line, find the
// page's address on its stderr, call `bash` with a command the policy asks
// about, and while the call waits, press the page's "Allow once" button.
// Run by page_test.go:
//
//   node desktop.mjs --command CMD --args JSON-ARRAY --cwd DIR --ask COMMAND --stdout TEXT
//
// Exit 0: the call ran as approved and printed TEXT, and the page lists it
// among the recent calls. Anything else: details on stderr.

import assert from "node:assert/strict";
import http from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const opts = {};
for (let i = 2; i < process.argv.length; i += 2) opts[process.argv[i].replace(/^--/, "")] = process.argv[i + 1];

// No capabilities: the client declares no elicitation, as Claude Desktop.
const client = new Client({ name: "claude-ai", version: "0.1.0" });
const transport = new StdioClientTransport({
  command: opts.command,
  args: JSON.parse(opts.args),
  cwd: opts.cwd,
  stderr: "pipe",
});
let stderr = "";
transport.stderr.on("data", (b) => {
  stderr += b;
  process.stderr.write(b);
});

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function request(url, { method = "GET", body, headers = {} } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode, text }));
    });
    req.on("error", reject);
    req.setTimeout(10000, () => req.destroy(new Error(`${method} ${url}: no answer in 10 s`)));
    if (body) req.write(body);
    req.end();
  });
}

await client.connect(transport);
try {
  let page;
  for (let i = 0; i < 200 && !page; i++) {
    page = /approve commands at (http:\/\/127\.0\.0\.1:\d+\/\S+\/)/.exec(stderr)?.[1];
    if (!page) await sleep(50);
  }
  assert.ok(page, `the server printed no approval page address on stderr:\n${stderr}`);

  const call = client.callTool({ name: "bash", arguments: { command: opts.ask } }, undefined, { timeout: 120000 });
  let id;
  for (let i = 0; i < 400 && !id; i++) {
    const { status, text } = await request(page);
    assert.equal(status, 200, `GET the page: ${status}`);
    id = /name="id" value="(\d+)"/.exec(text)?.[1];
    if (!id) await sleep(50);
  }
  assert.ok(id, "the ask never showed on the page");
  const { status } = await request(page + "answer", {
    method: "POST",
    body: new URLSearchParams({ id, action: "once" }).toString(),
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: new URL(page).origin },
  });
  assert.equal(status, 303, `pressing Allow once: ${status}`);

  const res = await call;
  const text = res.content.map((c) => c.text).join("");
  assert.ok(!res.isError, `the approved call is a tool error: ${text}`);
  assert.equal(res.structuredContent.approved, true, `not approved: ${text}`);
  assert.equal(res.structuredContent.stdout, opts.stdout, `stdout: ${text}`);

  const after = await request(page);
  assert.ok(!/name="id" value=/.test(after.text), "an ask is still pending after the answer");
  assert.ok(after.text.includes("(approved)"), "the page does not list the approved call among the recent calls");
} finally {
  await client.close();
}
