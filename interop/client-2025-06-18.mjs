// The official MCP TypeScript SDK client of 1.17.5, whose latest revision is 2025-06-18 (as
// Gemini CLI 0.61's), driving a toolwire-mcp server over streamable HTTP. Run by
// crates/toolwire-mcp/tests/interop.rs:
//   node client-2025-06-18.mjs <url>
// It prints one JSON object: the revision, the tools, a call's text, and every error the
// transport reported (an SSE event it cannot parse is one).
import { Client } from 'sdk-2025-06-18/client/index.js';
import { StreamableHTTPClientTransport } from 'sdk-2025-06-18/client/streamableHttp.js';

const transport = new StreamableHTTPClientTransport(new URL(process.argv[2]));
const client = new Client({ name: 'toolwire-interop-2025-06-18', version: '1.0.0' });
const seen = { errors: [] };
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
client.onerror = (error) => seen.errors.push(String(error?.message ?? error));

try {
  await client.connect(transport);
  seen.revision = transport.protocolVersion;
  seen.tools = (await client.listTools()).tools.map((tool) => tool.name).sort();
  const echoed = await client.callTool({ name: 'echo', arguments: { say: 'hi' } });
  seen.echo = echoed.content?.[0]?.text;
  // The standalone event stream opens after the handshake: give it time to say anything.
  await sleep(500);
} catch (error) {
  seen.failure = String(error?.stack ?? error);
} finally {
  await client.close().catch(() => {});
}
console.log(JSON.stringify(seen));
