// End-to-end scenarios for shellguard's MCP server, driven by the real npm
// client @modelcontextprotocol/sdk. Run by e2e_test.go:
//
//   node client.mjs SCENARIO --transport stdio --bin PATH --workspace DIR
//   node client.mjs SCENARIO --transport http --url URL [--token T]
//
// Exit 0: the scenario passed. Anything else: it failed; details on stderr.
// Fixtures (commands the policy must deny or ask about) are in
// fixtures.json, not in this file.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = JSON.parse(fs.readFileSync(path.join(here, "fixtures.json"), "utf8"));

function parseArgs(argv) {
  const o = { scenario: argv[0] };
  for (let i = 1; i < argv.length; i += 2) o[argv[i].replace(/^--/, "")] = argv[i + 1];
  return o;
}
const opts = parseArgs(process.argv.slice(2));

// connect returns a connected client. elicit: undefined (no elicitation
// capability), "accept" or "decline".
async function connect({ elicit, token = opts.token } = {}) {
  const capabilities = elicit ? { elicitation: {} } : {};
  const client = new Client({ name: "shellguard-e2e", version: "1.0.0" }, { capabilities });
  const asked = [];
  if (elicit) {
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(req.params.message);
      return elicit === "accept" ? { action: "accept", content: {} } : { action: elicit };
    });
  }
  let transport;
  if (opts.transport === "http") {
    const headers = token ? { Authorization: `Bearer ${token}` } : {};
    transport = new StreamableHTTPClientTransport(new URL(opts.url), { requestInit: { headers } });
  } else {
    transport = new StdioClientTransport({ command: opts.bin, args: ["mcp", "--workspace", opts.workspace], cwd: opts.workspace, stderr: "inherit" });
  }
  await client.connect(transport);
  client.asked = asked;
  return client;
}

const call = (client, args, options) => client.callTool({ name: "bash", arguments: args }, undefined, options);
const text = (res) => res.content.map((c) => c.text).join("");

// pidsWith returns the pids of live (non-zombie) processes whose argv
// contains every one of args in order.
function pidsWith(...args) {
  const want = args.join("\0") + "\0";
  const out = [];
  for (const e of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${e}/cmdline`, "latin1");
      if (!(cmd + (cmd.endsWith("\0") ? "" : "\0")).includes(want)) continue;
      const st = fs.readFileSync(`/proc/${e}/stat`, "latin1");
      if (st.slice(st.lastIndexOf(")") + 2)[0] === "Z") continue;
      out.push(Number(e));
    } catch {}
  }
  return out;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const scenarios = {
  async list() {
    const c = await connect();
    const { tools } = await c.listTools();
    assert.equal(tools.length, 1);
    const t = tools[0];
    assert.equal(t.name, "bash");
    assert.equal(t.inputSchema.type, "object");
    for (const f of ["command", "timeout", "cwd", "description"]) assert.ok(t.inputSchema.properties[f], `input field ${f}`);
    assert.equal(t.outputSchema.type, "object");
    for (const f of ["stdout", "stderr", "exit_code", "timed_out"]) assert.ok(t.outputSchema.properties[f], `output field ${f}`);
    assert.match(t.description, /timeout/);
    assert.match(t.description, /Sandbox/);
    // The writable roots in it grow with the workspace's path; the whole
    // tools/list answer is held under 6,000 bytes by mcpserver's TestWireSizes.
    assert.ok(t.description.length < 1800, `description is ${t.description.length} chars`);
    await c.close();
  },

  async run() {
    const c = await connect();
    let r = await call(c, { command: "echo hello; echo oops >&2", description: "greet" });
    assert.equal(r.isError, undefined);
    assert.equal(r.structuredContent.stdout, "hello\n");
    assert.equal(r.structuredContent.stderr, "oops\n");
    assert.equal(r.structuredContent.exit_code, 0);
    assert.equal(r.structuredContent.timed_out, false);
    assert.match(text(r), /exit code: 0/);
    assert.match(text(r), /stdout:\nhello/);

    r = await call(c, { command: "exit 3" });
    assert.ok(!r.isError, "a failing command is a result, not an error");
    assert.equal(r.structuredContent.exit_code, 3);
    assert.match(text(r), /\(no output\)/);

    fs.mkdirSync(path.join(opts.workspace ?? "/nonexistent", "sub"), { recursive: true });
    r = await call(c, { command: "pwd", cwd: "sub" });
    if (opts.transport === "stdio") assert.equal(r.structuredContent.stdout.trim(), fs.realpathSync(path.join(opts.workspace, "sub")));

    r = await call(c, { command: "sleep 5", timeout: 1 });
    assert.equal(r.structuredContent.timed_out, true);
    assert.match(text(r), /timed out/);

    r = await call(c, { command: "head -c 300000 /dev/zero | tr '\\0' x" });
    assert.ok(r.structuredContent.stdout_dropped_bytes > 0);
    assert.match(text(r), /bytes dropped/);
    await c.close();
  },

  async strings() {
    const c = await connect();
    let r = await call(c, { command: "echo ok", timeout: "120", run_in_background: "false", dangerously_disable_sandbox: "false" });
    assert.ok(!r.isError, text(r));
    assert.equal(r.structuredContent.stdout, "ok\n");
    r = await call(c, { command: "echo ok", timeout: "2.5" });
    assert.ok(!r.isError, text(r));
    r = await call(c, { command: "echo ok", timeout: 99999 });
    assert.ok(r.isError);
    assert.match(text(r), /timeout: .*out of range/);
    const bad = [
      [{ command: "true", timeout: "abc" }, /timeout: must be a number/],
      [{ command: "true", timeout: 0 }, /timeout: .*out of range/],
      [{ command: "true", timeout: [1] }, /timeout: must be a number.*array/],
      [{ command: "true", run_in_background: "maybe" }, /run_in_background: must be a boolean/],
      [{ command: 42 }, /command: must be a string/],
      [{ command: "" }, /command: empty/],
      [{}, /command: missing/],
      [{ command: "true", bogus: 1 }, /"bogus": unknown field/],
      [{ command: "true", cwd: "/" }, /cwd: .*outside the workspace/],
      [{ command: "true", cwd: "no/such/dir" }, /cwd: .*does not exist/],
      [{ command: "true", kill: true }, /kill: needs task_id/],
      [{ command: "true", stream_pattern: "(" }, /stream_pattern: not a valid regular expression/],
      [{ command: "true", task_id: "t1" }, /command: give either command .* or task_id/],
      [{ command: "true", dangerously_disable_sandbox: true }, /dangerously_disable_sandbox: not allowed/],
    ];
    for (const [args, re] of bad) {
      r = await call(c, args);
      assert.equal(r.isError, true, JSON.stringify(args));
      assert.match(text(r), re, JSON.stringify(args));
    }
    await c.close();
  },

  async progress() {
    const c = await connect();
    const seen = [];
    const t0 = Date.now();
    // The stderr line is not the last: this client drops a notification
    // it reads after the response (under load, the server's gap before
    // the result is not always enough for it); the last line's delivery
    // is mcpserver's TestRunAndProgress's subject.
    const r = await call(c, { command: "echo line1; sleep 0.3; echo tail >&2; echo line2; sleep 0.3; echo line3; sleep 0.3" }, {
      onprogress: (p) => seen.push({ at: Date.now() - t0, message: p.message, progress: p.progress }),
    });
    const done = Date.now() - t0;
    assert.equal(r.structuredContent.stdout, "line1\nline2\nline3\n");
    const all = seen.map((s) => s.message).join("\n");
    assert.match(all, /line1/);
    assert.match(all, /line3/);
    assert.match(all, /\[stderr\] tail/);
    assert.ok(seen.length >= 2, `got ${seen.length} notifications`);
    // live, not at the end: line1 comes 0.9 s of sleeps before the command
    // ends (a bound relative to the call, so a loaded machine is no excuse)
    assert.ok(done - seen[0].at > 450, `first line arrived at ${seen[0].at} ms, the call ended at ${done} ms`);
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i].progress > seen[i - 1].progress);
    await c.close();
  },

  async cancel() {
    const c = await connect();
    const marker = `${37 + Math.random()}`.slice(0, 9);
    const ac = new AbortController();
    const p = call(c, { command: `sleep ${marker}; echo never` }, { signal: ac.signal });
    for (let i = 0; i < 100 && pidsWith("sleep", marker).length === 0; i++) await sleep(20);
    assert.ok(pidsWith("sleep", marker).length > 0, "the command started");
    const t0 = Date.now();
    ac.abort();
    await assert.rejects(p);
    while (pidsWith("sleep", marker).length > 0) {
      assert.ok(Date.now() - t0 < 1000, "the process group is gone within 1 s of the cancellation");
      await sleep(20);
    }
    // The session still serves.
    const r = await call(c, { command: "echo alive" });
    assert.equal(r.structuredContent.stdout, "alive\n");
    await c.close();
  },

  async token() {
    // Without the token the client cannot even initialize.
    await assert.rejects(connect({ token: "" }), /401|nauthorized/);
    await assert.rejects(connect({ token: "wrong-token-wrong-token" }), /401|nauthorized/);
    const c = await connect();
    const r = await call(c, { command: "echo authed" });
    assert.equal(r.structuredContent.stdout, "authed\n");
    await c.close();
    // The plain endpoint too.
    const base = new URL(opts.url);
    const exec = new URL("/tools/bash/execute", base);
    let res = await fetch(exec, { method: "POST", body: JSON.stringify({ command: "echo x" }), headers: { "content-type": "application/json" } });
    assert.equal(res.status, 401);
    res = await fetch(exec, { method: "POST", body: JSON.stringify({ command: "echo x", timeout: "5" }), headers: { "content-type": "application/json", authorization: `Bearer ${opts.token}` } });
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(body.stdout, "x\n");
    assert.equal(body.exit_code, 0);
  },

  // ---- gated: these need engine features (see e2e_test.go) ----

  async deny() {
    const c = await connect();
    const r = await call(c, { command: fixtures.deny.command });
    assert.equal(r.isError, true);
    assert.equal(r.structuredContent.decision, "deny");
    assert.ok(r.structuredContent.reasons.length > 0);
    const reason = r.structuredContent.reasons[0];
    assert.match(reason.id, /^SG\d+/);
    assert.ok(reason.end > reason.start);
    assert.match(text(r), /DENIED/);
    assert.match(text(r), new RegExp(reason.id));
    assert.match(text(r), /configuration/);
    // How to allow it: the default finding has a rule, the floor none.
    const ids = r.structuredContent.reasons.map((x) => x.id);
    assert.ok(ids.includes(fixtures.deny.floor_id), ids.join(","));
    assert.ok(text(r).includes(`allow: ["${fixtures.deny.allow_rule}"]`), text(r));
    assert.match(text(r), new RegExp(`${fixtures.deny.floor_id} is part of the built-in floor: no configuration can allow it`));
    // A background start is refused the same way.
    const b = await call(c, { command: fixtures.deny.command, run_in_background: true });
    assert.equal(b.isError, true);
    assert.match(text(b), /DENIED/);
    await c.close();
  },

  async approve_accept() {
    const c = await connect({ elicit: "accept" });
    const r = await call(c, { command: fixtures.ask.command, description: "e2e approval", detail: true });
    assert.equal(c.asked.length, 1, "the user was asked once");
    assert.ok(c.asked[0].includes(fixtures.ask.command));
    assert.ok(!r.isError, text(r));
    assert.equal(r.structuredContent.approved, true);
    assert.equal(r.structuredContent.decision, "ask");
    assert.equal(r.structuredContent.stdout, fixtures.ask.stdout);
    assert.ok(r.structuredContent.sandbox, "the approved command ran in the sandbox");
    await c.close();
  },

  async approve_decline() {
    const c = await connect({ elicit: "decline" });
    const r = await call(c, { command: fixtures.ask.command });
    assert.equal(c.asked.length, 1);
    assert.equal(r.isError, true);
    assert.match(text(r), /NOT RUN/);
    assert.match(text(r), /decline/);
    await c.close();
    // A client without elicitation gets a denial that says so.
    const c2 = await connect();
    const r2 = await call(c2, { command: fixtures.ask.command });
    assert.equal(r2.isError, true);
    assert.match(text(r2), /supports neither elicitation nor input requests/);
    await c2.close();
  },

  async background() {
    const c = await connect();
    let r = await call(c, { command: "read line; echo got:$line; sleep 30", run_in_background: "true" });
    assert.ok(!r.isError, text(r));
    const id = r.structuredContent.task.id;
    assert.ok(id);
    assert.ok(r.structuredContent.task.pid > 0);
    assert.ok(r.structuredContent.task.started_at);
    r = await call(c, { task_id: id });
    assert.equal(r.structuredContent.task.running, true);
    assert.equal(r.structuredContent.exit_code, null);
    assert.ok(r.structuredContent.duration >= 0);
    r = await call(c, { task_id: id, stdin_text: "hello\n" });
    assert.ok(!r.isError, text(r));
    // Task reads return what is new since the last read: gather them.
    let seen = r.structuredContent.stdout;
    for (let i = 0; i < 50 && !seen.includes("got:hello"); i++) {
      await sleep(50);
      r = await call(c, { task_id: id });
      seen += r.structuredContent.stdout;
    }
    assert.match(seen, /got:hello/);
    r = await call(c, { task_id: id, offset: 0 });
    assert.match(r.structuredContent.stdout, /got:hello/, "offset 0 reads again from the start");
    r = await call(c, { task_id: "*" });
    assert.match(r.structuredContent.stdout, new RegExp(`^${id}\\t`, "m"));
    r = await call(c, { task_id: id, kill: true });
    assert.equal(r.structuredContent.task.running, false);
    assert.equal(r.structuredContent.exit_code, 143);
    r = await call(c, { command: "sleep 0.2; exit 4", run_in_background: true });
    r = await call(c, { task_id: r.structuredContent.task.id, wait: true, timeout: 10 });
    assert.equal(r.structuredContent.exit_code, 4);
    r = await call(c, { task_id: "no-such-task" });
    assert.equal(r.isError, true);
    assert.match(text(r), /task_id: no task/);
    await c.close();
  },

  async stream() {
    const c = await connect();
    let r = await call(c, { command: "for i in 1 2 3 4; do echo tick$i; echo tock$i; sleep 0.2; done", run_in_background: true });
    const id = r.structuredContent.task.id;
    const seen = [];
    r = await call(c, { task_id: id, stream: "true", stream_pattern: "^tick", timeout: 10 }, { onprogress: (p) => seen.push(p.message) });
    // The lines arrive live, as progress, while the task runs. The last
    // notification can be lost by this client itself: it handles a
    // response at once and a notification in a microtask, and forgets the
    // request's progress handler with the response, so a notification read
    // in the same chunk as the result (a client scheduled late on a busy
    // machine) is dropped. The result holds every streamed line.
    const all = seen.join("\n");
    assert.match(all, /tick1/, "the first lines arrive live, before the task ends");
    assert.doesNotMatch(all, /tock/);
    assert.equal(r.structuredContent.stdout, "tick1\ntick2\ntick3\ntick4\n", "the result has every streamed line, only those matching");
    await c.close();
  },

  // The end of an MCP session kills its tasks: closing a stdio client ends
  // the server process, terminating an HTTP session ends the session.
  async session_end() {
    const c = await connect();
    const marker = `${45 + Math.random()}`.slice(0, 9);
    const r = await call(c, { command: `sleep ${marker}`, run_in_background: true });
    assert.ok(!r.isError, text(r));
    for (let i = 0; i < 100 && pidsWith("sleep", marker).length === 0; i++) await sleep(20);
    assert.ok(pidsWith("sleep", marker).length > 0, "the task started");
    if (opts.transport === "http") await c.transport.terminateSession();
    await c.close();
    const t0 = Date.now();
    while (pidsWith("sleep", marker).length > 0) {
      assert.ok(Date.now() - t0 < 5000, "the task is gone within 5 s of the session's end");
      await sleep(20);
    }
  },

  // Starts a background task and leaves without ending the session: the
  // test then stops the server and checks the task is gone.
  async start_and_leave() {
    const c = await connect();
    const r = await call(c, { command: `sleep ${opts.marker}`, run_in_background: true });
    assert.ok(!r.isError, text(r));
    for (let i = 0; i < 100 && pidsWith("sleep", opts.marker).length === 0; i++) await sleep(20);
    assert.ok(pidsWith("sleep", opts.marker).length > 0, "the task started");
  },
};

const fn = scenarios[opts.scenario];
if (!fn) {
  console.error(`unknown scenario ${opts.scenario}; have: ${Object.keys(scenarios).join(", ")}`);
  process.exit(2);
}
try {
  await fn();
  process.exit(0);
} catch (e) {
  console.error(e);
  process.exit(1);
}
