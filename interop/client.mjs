// The official MCP TypeScript SDK client, driving a toolwire-mcp server. Run by
// crates/toolwire-mcp/tests/interop.rs:
//   node client.mjs stdio <server command> [args...]
//   node client.mjs http <url>
// It prints one JSON object: what it saw at each step.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [mode, target, ...rest] = process.argv.slice(2);
const transport = mode === 'stdio'
  ? new StdioClientTransport({ command: target, args: rest, stderr: 'ignore' })
  : new StreamableHTTPClientTransport(new URL(target));
const client = new Client({ name: 'toolwire-interop', version: '1.0.0' });
const seen = {};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

try {
  await client.connect(transport);
  seen.server = client.getServerVersion()?.name;
  const listed = await client.listTools();
  seen.tools = listed.tools.map((tool) => tool.name).sort();

  const progress = [];
  const counted = await client.callTool(
    { name: 'count', arguments: { n: 3 } },
    undefined,
    { onprogress: (p) => progress.push(p.progress) },
  );
  seen.count = { result: counted.structuredContent, text: counted.content?.[0]?.text, progress };

  const invalid = await client.callTool({ name: 'count', arguments: { n: 'three' } });
  seen.invalid = { isError: invalid.isError === true, text: invalid.content?.[0]?.text };

  // Polls `hang_status` until `done` holds, for at most ten seconds, and returns the status.
  const status = async (done) => {
    let last;
    for (let i = 0; i < 100; i += 1) {
      last = (await client.callTool({ name: 'hang_status', arguments: {} })).structuredContent;
      if (done(last)) break;
      await sleep(100);
    }
    return last;
  };
  const controller = new AbortController();
  const hanging = client.callTool({ name: 'hang', arguments: {} }, undefined, { signal: controller.signal });
  await status((s) => s.started);
  controller.abort('the test gave up');
  try {
    await hanging;
    seen.cancel = { rejected: false };
  } catch (error) {
    seen.cancel = { rejected: true, name: error?.name };
  }
  seen.hang = await status((s) => s.dropped);

  let unknown;
  try {
    unknown = await client.callTool({ name: 'no_such_tool', arguments: {} });
    seen.unknown = { error: false, isError: unknown.isError === true };
  } catch (error) {
    seen.unknown = { error: true, code: error?.code };
  }
} catch (error) {
  seen.failure = String(error?.stack ?? error);
} finally {
  await client.close().catch(() => {});
}
process.stdout.write(JSON.stringify(seen) + '\n');
process.exit(0);
