// Per-call latency of the bash tool running `true`, through the real npm
// MCP client over stdio. Run by bench/mcp.sh:
//   node e2e/bench.mjs BIN WORKSPACE [CALLS] [WARMUP] [extra mcp flags...]
// Two servers run side by side, one with the flags given (the sandbox of
// the configuration: auto) and one with `--sandbox off` as well, and the
// measured calls alternate between them (which goes first alternates
// too), so that both meet the same machine; COMPARE=0 runs the first only.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";

const [bin, ws, callsArg = "500", warmupArg = "50", ...extra] = process.argv.slice(2);
const calls = Number(callsArg), warmup = Number(warmupArg);
// GAP_MS: a pause before each measured call (not measured), as an agent
// thinks between calls; 0: back to back.
const gap = Number(process.env.GAP_MS ?? 0);
const compare = process.env.COMPARE !== "0";
// SHELLGUARD_TIMING reaches the server, to record its steps per call.
const env = getDefaultEnvironment();
if (process.env.SHELLGUARD_TIMING) env.SHELLGUARD_TIMING = process.env.SHELLGUARD_TIMING;

async function server(name, flags) {
  const client = new Client({ name: "shellguard-bench", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: bin, args: ["mcp", "--workspace", ws, ...flags], cwd: ws, env, stderr: "inherit" }));
  const call = async (detail) => {
    const r = await client.callTool({ name: "bash", arguments: detail ? { command: "true", detail: true } : { command: "true" } });
    if (r.isError || r.structuredContent.exit_code !== 0) throw new Error(JSON.stringify(r));
    return r.structuredContent.sandbox;
  };
  return { name, client, call, ms: [] };
}

const pause = () => (gap > 0 ? new Promise((resolve) => setTimeout(resolve, gap)) : null);
const servers = [await server("flags as given", extra)];
if (compare) servers.push(await server("--sandbox off", [...extra, "--sandbox", "off"]));
for (const s of servers) for (let i = 0; i < warmup; i++) await s.call(false);
for (let i = 0; i < calls; i++) {
  const order = i % 2 === 0 ? servers : [...servers].reverse();
  for (const s of order) {
    await pause();
    const t0 = process.hrtime.bigint();
    await s.call(false);
    s.ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
}
// The sandbox the calls ran in, and how many of 20 more calls (same
// pauses, full report) a warm helper served: the timed calls leave the
// report out, as a client's calls do.
for (const s of servers) {
  let sandbox, warm = 0;
  for (let i = 0; i < 20; i++) {
    await pause();
    sandbox = await s.call(true);
    if (sandbox?.warm) warm++;
  }
  await s.client.close();
  const ms = s.ms.sort((a, b) => a - b);
  const q = (p) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))];
  s.p50 = q(0.5);
  console.log(JSON.stringify({ server: s.name, sandbox: sandbox ? sandbox.mode : "none", layers: (sandbox?.layers ?? []).length,
    missing: (sandbox?.missing ?? []).map((m) => m.name), calls, warm_of_20: warm,
    p50_ms: +q(0.5).toFixed(3), p90_ms: +q(0.9).toFixed(3), p99_ms: +q(0.99).toFixed(3), max_ms: +ms[ms.length - 1].toFixed(3) }));
}
if (compare) console.log(JSON.stringify({ p50_ratio: +(servers[0].p50 / servers[1].p50).toFixed(2) }));
