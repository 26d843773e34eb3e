// End-to-end test of peppolgate's MCP server with the official TypeScript SDK client, the
// way Claude Desktop, Cursor and other Node-based agents talk to it: over streamable HTTP
// against a running `peppolgate -network demo`, and over stdio against `peppolgate mcp
// -network demo` started by the client. The demo network is simulated and seeded, so the
// values asserted below are the demo's data, not guesses.
//
// Environment (set by run.sh):
//   MCP_URL         the streamable HTTP endpoint, e.g. http://localhost:PORT/mcp
//   PEPPOLGATE_BIN  the built binary, started as `PEPPOLGATE_BIN mcp -network demo`
// Run: node --test e2e/mcp/client.test.mjs (Node 22; run.sh does all of it).

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const TOOL_NAMES = ['check_participants', 'get_participant_services', 'lookup_participant', 'network_statistics', 'search_directory'];

// Every tool is read-only; the hints must be explicit because mcp-go's defaults say the
// opposite (destructive, not idempotent).
const READ_ONLY_ANNOTATIONS = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: true,
};

// Demo data (netsim seed 1): a Belgian company with a Directory card and an SMP
// registration, and its VAT-based second identifier.
const DEMO = {
  id: '0208:0677424046',
  vatId: '9925:be0677424046',
  name: 'Vandelanotte Installaties NV',
  country: 'BE',
  searchQuery: 'Vandelanotte',
  // Well-formed (check digit valid for 0208) and absent from the demo dataset.
  absentId: '0208:0000000097',
  // Only on the simulated test network (netsim TestKnownInvoice), offered with network test.
  testId: '9915:test-peppolgate-invoice',
};

const REQUEST_TIMEOUT_MS = 15_000;
const TEST_TIMEOUT_MS = 30_000;

function requireEnv(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set; run the tests through e2e/mcp/run.sh`);
  return v;
}

// Each transport opens its own client. Errors reported asynchronously by the transport
// (for instance a non-JSON line on the stdio server's stdout) are collected and asserted
// empty at the end, so that a noisy server fails the test instead of being ignored.
const transports = [
  {
    name: 'streamable HTTP',
    rest: true,
    open: () => new StreamableHTTPClientTransport(new URL(requireEnv('MCP_URL'))),
  },
  {
    name: 'stdio',
    rest: false,
    open: () =>
      new StdioClientTransport({
        command: requireEnv('PEPPOLGATE_BIN'),
        args: ['mcp', '-network', 'demo'],
        stderr: 'pipe',
      }),
  },
];

// ajvFor returns a validator instance for the schema's dialect. MCP 2025-11-25 makes
// JSON Schema 2020-12 the default when a schema has no $schema.
function ajvFor(schema) {
  const dialect = schema.$schema ?? 'https://json-schema.org/draft/2020-12/schema';
  let ajv;
  if (dialect.includes('2020-12')) ajv = new Ajv2020({ allErrors: true, strict: false });
  else if (dialect.includes('draft-07')) ajv = new Ajv({ allErrors: true, strict: false });
  else throw new Error(`unexpected JSON Schema dialect ${dialect}`);
  addFormats(ajv);
  return ajv;
}

function assertValid(schema, value, what) {
  const validate = ajvFor(schema).compile(schema);
  const ok = validate(value);
  assert.ok(ok, `${what} does not match its schema: ${JSON.stringify(validate.errors, null, 2)}`);
}

function firstText(result) {
  const c = result.content?.[0];
  assert.ok(c, `result has no content: ${JSON.stringify(result)}`);
  assert.equal(c.type, 'text', `first content is not text: ${JSON.stringify(c)}`);
  assert.equal(typeof c.text, 'string');
  return c.text;
}

for (const transport of transports) {
  describe(`MCP over ${transport.name}`, { timeout: TEST_TIMEOUT_MS }, () => {
    let client;
    let tools;
    const asyncErrors = [];
    let stderr = '';

    before(async () => {
      const t = transport.open();
      client = new Client({ name: 'peppolgate-e2e', version: '1.0.0' });
      client.onerror = (err) => asyncErrors.push(err);
      if (t.stderr) t.stderr.on('data', (chunk) => (stderr += chunk));
      await client.connect(t, { timeout: REQUEST_TIMEOUT_MS });
      // listTools also primes the SDK's own outputSchema validators used by callTool.
      tools = (await client.listTools({}, { timeout: REQUEST_TIMEOUT_MS })).tools;
    });

    after(async () => {
      await client?.close();
      assert.deepEqual(
        asyncErrors.map(String),
        [],
        `transport reported errors; server stderr:\n${stderr}`,
      );
    });

    const call = (name, args) =>
      client.callTool({ name, arguments: args }, undefined, { timeout: REQUEST_TIMEOUT_MS });

    test('server identifies itself as peppolgate with tools and instructions', () => {
      assert.equal(client.getServerVersion()?.name, 'peppolgate');
      assert.ok(client.getServerCapabilities()?.tools, 'tools capability missing');
      const instructions = client.getInstructions();
      assert.equal(typeof instructions, 'string', 'server instructions missing');
      assert.ok(instructions.length > 0, 'server instructions empty');
    });

    test('lists exactly the five tools', () => {
      assert.deepEqual(tools.map((t) => t.name).sort(), TOOL_NAMES);
    });

    for (const name of TOOL_NAMES) {
      test(`${name}: description, title, valid schemas, read-only annotations`, () => {
        const tool = tools.find((t) => t.name === name);
        assert.ok(tool, `${name} not listed`);
        assert.equal(typeof tool.description, 'string');
        assert.ok(tool.description.length > 0, 'empty description');
        const title = tool.title ?? tool.annotations?.title;
        assert.equal(typeof title, 'string', 'no title');
        assert.ok(title.length > 0, 'empty title');
        for (const key of ['inputSchema', 'outputSchema']) {
          const schema = tool[key];
          assert.ok(schema, `${key} missing`);
          assert.equal(schema.type, 'object', `${key}.type`);
          // compile throws on a schema that is not valid in its dialect.
          assert.doesNotThrow(() => ajvFor(schema).compile(schema), `${key} does not compile`);
        }
        for (const [hint, want] of Object.entries(READ_ONLY_ANNOTATIONS)) {
          assert.equal(tool.annotations?.[hint], want, `annotations.${hint}`);
        }
      });
    }

    test('lookup_participant returns the demo company with its Directory card and SMP', async () => {
      const res = await call('lookup_participant', { participantId: DEMO.id });
      assert.notEqual(res.isError, true, `unexpected error: ${JSON.stringify(res.content)}`);
      const sc = res.structuredContent;
      assertValid(tools.find((t) => t.name === 'lookup_participant').outputSchema, sc, 'structuredContent');
      assert.equal(sc.participantId, DEMO.id);
      assert.equal(sc.directory?.name, DEMO.name);
      assert.equal(sc.directory?.countryCode, DEMO.country);
      assert.ok(sc.smp, 'smp is null for a participant registered in the SML');
      assert.equal(sc.smp.hostname, '127.0.0.1');
      assert.ok(sc.smp.serviceCount > 0, 'smp.serviceCount');
      assert.match(sc.smp.endpoint?.url ?? '', /^https:\/\//);
      assert.ok(firstText(res).length > 0, 'empty text rendering');
      if (transport.rest) {
        const rest = await fetch(new URL(`/api/v1/participant/${DEMO.id}`, requireEnv('MCP_URL')), {
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        assert.equal(rest.status, 200);
        assert.deepEqual(sc, await rest.json(), 'MCP and REST disagree on the same participant');
      }
    });

    test('get_participant_services names the document types and agrees with REST', async () => {
      const res = await call('get_participant_services', { participantId: DEMO.id });
      assert.notEqual(res.isError, true, `unexpected error: ${JSON.stringify(res.content)}`);
      const sc = res.structuredContent;
      assertValid(tools.find((t) => t.name === 'get_participant_services').outputSchema, sc, 'structuredContent');
      assert.equal(sc.participantId, DEMO.id);
      assert.ok(sc.services.length > 0, 'no services');
      for (const s of sc.services) {
        assert.ok(s.documentType.name, `document type ${s.documentType.id} not named`);
        assert.ok(s.processes.length > 0, 'no processes');
      }
      if (transport.rest) {
        const rest = await fetch(new URL(`/api/v1/participant/${DEMO.id}/services`, requireEnv('MCP_URL')), {
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        assert.equal(rest.status, 200);
        assert.deepEqual(sc, await rest.json(), 'MCP and REST disagree on the same services');
      }
    });

    test('lookup_participant with network test answers from the simulated test network', async () => {
      const tool = tools.find((t) => t.name === 'lookup_participant');
      assert.deepEqual(tool.inputSchema.properties.network?.enum, ['demo', 'test']);
      const res = await call('lookup_participant', { participantId: DEMO.testId, network: 'test' });
      assert.notEqual(res.isError, true, `unexpected error: ${JSON.stringify(res.content)}`);
      const sc = res.structuredContent;
      assertValid(tool.outputSchema, sc, 'structuredContent');
      assert.equal(sc.participantId, DEMO.testId);
      assert.equal(sc.network, 'test');
      assert.ok(sc.directory && sc.smp, 'test participant without its card or SMP');
      const absent = await call('lookup_participant', { participantId: DEMO.testId });
      assert.equal(absent.isError, true, 'a test-network participant found on the demo network');
      assert.match(firstText(absent), /^not_found: /);
      if (transport.rest) {
        const rest = await fetch(new URL(`/api/v1/participant/${DEMO.testId}?network=test`, requireEnv('MCP_URL')), {
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        assert.equal(rest.status, 200);
        assert.deepEqual(sc, await rest.json(), 'MCP and REST disagree on the same test-network participant');
      }
    });

    test('lookup_participant accepts the VAT-based identifier', async () => {
      const res = await call('lookup_participant', { participantId: DEMO.vatId });
      assert.notEqual(res.isError, true, `unexpected error: ${JSON.stringify(res.content)}`);
      assertValid(tools.find((t) => t.name === 'lookup_participant').outputSchema, res.structuredContent, 'structuredContent');
      assert.equal(res.structuredContent.participantId, DEMO.vatId);
    });

    test('check_participants answers rows in mixed notations, in input order, with counts', async () => {
      const tool = tools.find((t) => t.name === 'check_participants');
      const rows = [
        { input: DEMO.id, reference: 'C-1' },
        { input: 'BE 0677.424.046' },
        { input: DEMO.absentId },
        { input: 'hello' },
      ];
      const res = await call('check_participants', { rows });
      assert.notEqual(res.isError, true, `unexpected error: ${JSON.stringify(res.content)}`);
      const sc = res.structuredContent;
      assertValid(tool.outputSchema, sc, 'structuredContent');
      assert.deepEqual(sc.documents, ['Invoice', 'Credit Note']);
      assert.deepEqual(
        sc.results.map((r) => [r.index, r.input, r.status, r.participantId]),
        [
          [0, DEMO.id, 'receives', DEMO.id],
          [1, 'BE 0677.424.046', 'receives', DEMO.id],
          [2, DEMO.absentId, 'not_registered', undefined],
          [3, 'hello', 'invalid', undefined],
        ],
      );
      assert.equal(sc.results[0].reference, 'C-1');
      assert.equal(sc.results[0].name, DEMO.name);
      assert.equal(sc.results[0].country, DEMO.country);
      assert.match(sc.results[0].accessPoint ?? '', /^https:\/\//);
      assert.deepEqual(sc.results[0].documents, [
        { kind: 'Invoice', listed: true, receives: true },
        { kind: 'Credit Note', listed: true, receives: true },
      ]);
      assert.equal(sc.results[3].error?.code, 'invalid_participant_id');
      assert.equal(sc.summary.rows, 4);
      assert.deepEqual(sc.summary.counts, {
        receives: 2,
        blocked: 0,
        registered_without_that_document: 0,
        not_registered: 1,
        invalid: 1,
        failed: 0,
      });
      assert.ok(firstText(res).startsWith('Checked 4 rows'), `text: ${firstText(res)}`);
    });

    const searchCases = [
      {
        name: 'by company name',
        args: { q: DEMO.searchQuery },
        check(sc) {
          assert.equal(sc.query, DEMO.searchQuery);
          assert.ok(sc.totalCount >= 1, 'totalCount');
          const hit = sc.results.find((r) => r.participantId === DEMO.id);
          assert.deepEqual(hit, { participantId: DEMO.id, name: DEMO.name, countryCode: DEMO.country });
          assert.ok(sc.results.some((r) => r.participantId === DEMO.vatId), 'VAT-based id not found');
        },
        rest: `/api/v1/search?q=${DEMO.searchQuery}`,
      },
      {
        name: 'filtered to the right country',
        args: { q: DEMO.searchQuery, country: DEMO.country },
        check(sc) {
          assert.ok(sc.results.length >= 1);
          for (const r of sc.results) assert.equal(r.countryCode, DEMO.country);
        },
        rest: `/api/v1/search?q=${DEMO.searchQuery}&country=${DEMO.country}`,
      },
      {
        name: 'filtered to another country',
        args: { q: DEMO.searchQuery, country: 'NO' },
        check(sc) {
          assert.equal(sc.totalCount, 0);
          assert.deepEqual(sc.results, []);
        },
        rest: `/api/v1/search?q=${DEMO.searchQuery}&country=NO`,
      },
    ];
    for (const c of searchCases) {
      test(`search_directory ${c.name}`, async () => {
        const res = await call('search_directory', c.args);
        assert.notEqual(res.isError, true, `unexpected error: ${JSON.stringify(res.content)}`);
        const sc = res.structuredContent;
        assertValid(tools.find((t) => t.name === 'search_directory').outputSchema, sc, 'structuredContent');
        c.check(sc);
        assert.ok(firstText(res).length > 0, 'empty text rendering');
        if (transport.rest) {
          const rest = await fetch(new URL(c.rest, requireEnv('MCP_URL')), {
            signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
          });
          assert.equal(rest.status, 200);
          assert.deepEqual(sc, await rest.json(), 'MCP and REST disagree on the same search');
        }
      });
    }

    // Tool failures are results with isError, never protocol errors, so that the model
    // sees them; the first text starts with the same error code as the REST API.
    const errorCases = [
      { tool: 'lookup_participant', args: { participantId: 'not-an-id' }, code: 'invalid_participant_id' },
      { tool: 'lookup_participant', args: { participantId: DEMO.absentId }, code: 'not_found' },
      { tool: 'lookup_participant', args: {}, code: 'invalid_participant_id' },
      { tool: 'search_directory', args: { q: 'a' }, code: 'query_too_short' },
      { tool: 'search_directory', args: { q: DEMO.searchQuery, country: 'BEL' }, code: 'invalid_request' },
      { tool: 'check_participants', args: { rows: [] }, code: 'invalid_request' },
      { tool: 'check_participants', args: { rows: Array(101).fill({ input: DEMO.id }) }, code: 'invalid_request' },
      { tool: 'check_participants', args: { rows: [{ input: DEMO.id }], documents: ['Receipt'] }, code: 'invalid_request' },
    ];
    for (const c of errorCases) {
      test(`${c.tool} ${JSON.stringify(c.args)} is an isError result with ${c.code}`, async () => {
        const res = await call(c.tool, c.args);
        assert.equal(res.isError, true, `not an error: ${JSON.stringify(res)}`);
        const text = firstText(res);
        assert.ok(text.startsWith(c.code), `first text does not start with ${c.code}: ${text}`);
      });
    }

    test('an unknown tool is a protocol error (invalid params)', async () => {
      await assert.rejects(call('no_such_tool', {}), (err) => {
        assert.ok(err instanceof McpError, `not an McpError: ${err}`);
        assert.equal(err.code, ErrorCode.InvalidParams);
        return true;
      });
    });

    test('every listed resource can be read', async (t) => {
      if (!client.getServerCapabilities()?.resources) {
        t.skip('server declares no resources capability');
        return;
      }
      const { resources } = await client.listResources({}, { timeout: REQUEST_TIMEOUT_MS });
      assert.ok(resources.length > 0, 'resources capability declared but no resources listed');
      for (const r of resources) {
        const { contents } = await client.readResource({ uri: r.uri }, { timeout: REQUEST_TIMEOUT_MS });
        assert.ok(contents.length > 0, `${r.uri}: no contents`);
        for (const c of contents) {
          assert.equal(typeof c.text, 'string', `${r.uri}: not text`);
          if ((c.mimeType ?? r.mimeType) === 'application/json') {
            assert.doesNotThrow(() => JSON.parse(c.text), `${r.uri}: invalid JSON`);
          }
        }
      }
    });

    test('every listed prompt renders with its required arguments', async (t) => {
      if (!client.getServerCapabilities()?.prompts) {
        t.skip('server declares no prompts capability');
        return;
      }
      const { prompts } = await client.listPrompts({}, { timeout: REQUEST_TIMEOUT_MS });
      assert.ok(prompts.length > 0, 'prompts capability declared but no prompts listed');
      for (const p of prompts) {
        assert.ok(p.description, `${p.name}: no description`);
        const args = Object.fromEntries(
          (p.arguments ?? []).filter((a) => a.required).map((a) => [a.name, DEMO.searchQuery]),
        );
        const { messages } = await client.getPrompt({ name: p.name, arguments: args }, { timeout: REQUEST_TIMEOUT_MS });
        assert.ok(messages.length > 0, `${p.name}: no messages`);
        const text = messages.map((m) => (m.content.type === 'text' ? m.content.text : '')).join('\n');
        assert.ok(text.includes(DEMO.searchQuery), `${p.name}: the argument does not appear in the prompt`);
      }
    });
  });
}

// DNS-rebinding protection: a browser page on another origin must not reach the local
// server, while a page served from localhost may. Raw fetch, since the SDK sends no Origin.
describe('Origin check on /mcp', { timeout: TEST_TIMEOUT_MS }, () => {
  const initialize = (origin) => {
    const url = new URL(requireEnv('MCP_URL'));
    return fetch(url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        Origin: origin,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'peppolgate-e2e-origin', version: '1.0.0' },
        },
      }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  };
  const port = () => new URL(requireEnv('MCP_URL')).port;
  const cases = [
    { label: 'http://evil.example.com', origin: () => 'http://evil.example.com', status: 403 },
    { label: 'http://localhost:PORT', origin: () => `http://localhost:${port()}`, status: 200 },
  ];
  for (const c of cases) {
    test(`initialize with Origin ${c.label} answers ${c.status}`, async () => {
      const res = await initialize(c.origin());
      const body = await res.text();
      assert.equal(res.status, c.status, body);
    });
  }
});
