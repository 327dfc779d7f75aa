// Per-call latency of the bash tool running `true`, through the real npm
// MCP client over stdio. Run by bench/mcp.sh:
//   node e2e/bench.mjs BIN WORKSPACE [CALLS] [WARMUP] [extra mcp flags...]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";

const [bin, ws, callsArg = "500", warmupArg = "50", ...extra] = process.argv.slice(2);
const calls = Number(callsArg), warmup = Number(warmupArg);
// GAP_MS: a pause before each measured call (not measured), as an agent
// thinks between calls; 0: back to back.
const gap = Number(process.env.GAP_MS ?? 0);
const client = new Client({ name: "shellguard-bench", version: "1.0.0" });
// SHELLGUARD_TIMING reaches the server, to record its steps per call.
const env = getDefaultEnvironment();
if (process.env.SHELLGUARD_TIMING) env.SHELLGUARD_TIMING = process.env.SHELLGUARD_TIMING;
await client.connect(new StdioClientTransport({ command: bin, args: ["mcp", "--workspace", ws, ...extra], cwd: ws, env, stderr: "inherit" }));
let sandbox;
let warm = 0; // calls served by a warm sandbox helper
const once = async () => {
  const r = await client.callTool({ name: "bash", arguments: { command: "true" } });
  if (r.isError || r.structuredContent.exit_code !== 0) throw new Error(JSON.stringify(r));
  sandbox = r.structuredContent.sandbox;
  if (sandbox?.warm) warm++;
};
for (let i = 0; i < warmup; i++) await once();
warm = 0;
const ms = [];
for (let i = 0; i < calls; i++) {
  if (gap > 0) await new Promise((resolve) => setTimeout(resolve, gap));
  const t0 = process.hrtime.bigint();
  await once();
  ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
}
await client.close();
ms.sort((a, b) => a - b);
const q = (p) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))];
// The sandbox the calls ran in (the server's default: auto).
const layers = (sandbox?.layers ?? []).map((l) => l.name);
console.log(JSON.stringify({ sandbox: sandbox ? sandbox.mode : "none", layers: layers.length, missing: (sandbox?.missing ?? []).map((m) => m.name) }));
console.log(JSON.stringify({ calls, warm, p50_ms: +q(0.5).toFixed(3), p90_ms: +q(0.9).toFixed(3), p99_ms: +q(0.99).toFixed(3), max_ms: +ms[ms.length - 1].toFixed(3) }));
