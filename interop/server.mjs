// The TypeScript SDK's McpServer with one trivial tool, `test_simple_text`, over streamable
// HTTP with sessions: the TypeScript side of toolwire-mcp's load benchmark
// (crates/toolwire-mcp/benches/http_load.rs). Usage: node server.mjs PORT
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

const port = Number(process.argv[2] ?? 3100);
const transports = new Map();

function newServer() {
  const server = new McpServer({ name: 'ts-reference', version: '1.0.0' });
  server.registerTool('test_simple_text', { description: 'Return simple text' }, async () => ({
    content: [{ type: 'text', text: 'This is a simple text response for testing.' }],
  }));
  return server;
}

async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

createServer(async (req, res) => {
  try {
    const body = req.method === 'POST' ? await readBody(req) : undefined;
    const sessionId = req.headers['mcp-session-id'];
    let transport = sessionId ? transports.get(sessionId) : undefined;
    if (!transport && body && isInitializeRequest(body)) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => transports.set(id, transport),
      });
      await newServer().connect(transport);
    }
    if (!transport) {
      res.writeHead(400).end('no session');
      return;
    }
    await transport.handleRequest(req, res, body);
  } catch (error) {
    res.writeHead(500).end(String(error));
  }
}).listen(port, '127.0.0.1', () => process.stderr.write(`listening on http://127.0.0.1:${port}/mcp\n`));
