// Fuzz: over 10,000 tool calls with random and invalid arguments (unknown and look-alike tool
// names, random JSON, boundary and out-of-range numbers, wrong types, extra fields, huge
// strings) through the real /mcp endpoint with the MCP SDK client, plus malformed JSON-RPC
// envelopes as raw POSTs. The bridge must answer every one (no crash, no 5xx, still healthy)
// and nothing invalid may reach the viewer: a SCRIPTED VIEWER (plain `ws` client, see
// testing/scriptedViewer.ts) records every tool_call, and each one's args must parse with the
// protocol's schema for its tool. Arguments are generated from each tool's published JSON
// Schema (tools/list), so a good share of calls is valid and does reach the viewer.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import {
  TOOL_NAMES,
  parseToolArgs,
  toolDefinitions,
  type ToolName,
} from '@overlay-companion/protocol';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  INITIALIZE_REQUEST,
  TOKEN,
  connectClient,
  startTestBridge,
  type TestBridge,
} from './testing/fixtures.js';
import { ScriptedViewer } from './testing/scriptedViewer.js';

type JsonSchema = Record<string, unknown>;

/** Numbers around every limit the schemas use, and a few that no limit expects. */
function numbersFor(schema: JsonSchema): fc.Arbitrary<unknown> {
  const bounds = [schema.minimum, schema.maximum, schema.exclusiveMinimum, schema.exclusiveMaximum]
    .filter((n): n is number => typeof n === 'number')
    .flatMap((n) => [n - 1, n, n + 1, n + 0.5]);
  return fc.oneof(
    fc.constantFrom(
      ...bounds,
      0,
      -1,
      -0,
      1,
      0.5,
      32767,
      32768,
      65535,
      2 ** 31,
      2 ** 53,
      -(2 ** 53),
      1e308,
      -1e308,
      5e-324,
    ),
    fc.integer({ min: -100_000, max: 100_000 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    // In range, so that whole calls are valid often enough to reach the viewer.
    inRange(schema),
  );
}

/** Integers inside the schema's bounds (small ones where the range allows). */
function inRange(schema: { minimum?: unknown; maximum?: unknown }): fc.Arbitrary<number> {
  const min = typeof schema.minimum === 'number' ? Math.ceil(schema.minimum) : -1000;
  const max = typeof schema.maximum === 'number' ? Math.floor(schema.maximum) : 2000;
  return fc.integer({ min, max: Math.max(min, Math.min(max, min + 3000, 2000)) });
}

const wrongTypes = fc.constantFrom<unknown>(null, true, false, [], {}, '12', '', 'NaN', [1, 2], {
  x: 1,
});

/** A string that is sometimes huge: set_clipboard and type_text have length limits to hit. */
const strings = fc.oneof(
  { weight: 40, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 10, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  {
    weight: 4,
    arbitrary: fc.constantFrom('a'.repeat(10_001), 'x'.repeat(100_000), '\u0000\uffff\ud800'),
  },
  // Around set_clipboard's 1 Mi-character limit; rare, since each is a 2 MB request.
  {
    weight: 1,
    arbitrary: fc.integer({ min: 1_000_000, max: 1_100_000 }).map((n) => 'é'.repeat(n)),
  },
);

/** A value for one property: schema-aware candidates mixed with anything else. */
function valueFor(schema: JsonSchema | undefined, depth: number): fc.Arbitrary<unknown> {
  const s = schema ?? {};
  const options: Array<fc.WeightedArbitrary<unknown>> = [
    { weight: 1, arbitrary: fc.oneof(wrongTypes, fc.jsonValue({ maxDepth: 2 })) },
  ];
  const enumValues = Array.isArray(s.enum) ? (s.enum as unknown[]) : [];
  if (enumValues.length > 0) options.push({ weight: 6, arbitrary: fc.constantFrom(...enumValues) });
  const type = s.type;
  if (type === 'integer' || type === 'number')
    options.push({ weight: 6, arbitrary: numbersFor(s) });
  if (type === 'string') options.push({ weight: 6, arbitrary: strings });
  if (type === 'boolean') options.push({ weight: 6, arbitrary: fc.boolean() });
  if (type === 'object' && depth < 3)
    options.push({ weight: 6, arbitrary: objectFor(s, depth + 1) });
  if (type === 'array' && depth < 3) {
    const item = valueFor(s.items as JsonSchema | undefined, depth + 1);
    options.push({ weight: 6, arbitrary: fc.array(item, { maxLength: 6 }) });
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = s[key];
    if (Array.isArray(branches) && depth < 3) {
      for (const b of branches as JsonSchema[])
        options.push({ weight: 3, arbitrary: valueFor(b, depth + 1) });
    }
  }
  return fc.oneof(...options);
}

/** An object with some of the schema's properties (required ones usually) and maybe extras. */
function objectFor(schema: JsonSchema, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const fields = Object.entries(properties).map(([key, prop]) =>
    fc.tuple(
      fc.constant(key),
      fc.integer({ min: 0, max: 9 }).map((n) => (required.has(key) ? n < 9 : n < 5)),
      valueFor(prop, depth),
    ),
  );
  return fc
    .tuple(
      fc.tuple(...fields),
      fc.option(
        fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }),
        {
          freq: 6,
        },
      ),
    )
    .map(([entries, extra]) => {
      const object: Record<string, unknown> = {};
      for (const [key, present, value] of entries) if (present) object[key] = value;
      return extra === null ? object : { ...object, ...extra };
    });
}

interface FuzzCall {
  name: string;
  args: unknown;
}

const LOOK_ALIKES = [
  '',
  ' ',
  '__proto__',
  'constructor',
  'toString',
  'GET_DISPLAY_INFO',
  'get_display_info ',
  'click_at\u0000',
  'x'.repeat(10_000),
];

function callArbitrary(tools: Tool[]): fc.Arbitrary<FuzzCall> {
  const known = tools.map((tool) =>
    fc.record({
      name: fc.constant(tool.name),
      args: fc.oneof(
        { weight: 12, arbitrary: objectFor(tool.inputSchema as JsonSchema, 0) },
        { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
        { weight: 1, arbitrary: fc.constant(undefined) },
      ),
    }),
  );
  const unknown = fc.record({
    name: fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom(...LOOK_ALIKES)),
    args: fc.oneof(fc.constant(undefined), fc.jsonValue({ maxDepth: 2 })),
  });
  return fc.oneof({ weight: 12, arbitrary: fc.oneof(...known) }, { weight: 1, arbitrary: unknown });
}

const isToolName = (name: string): name is ToolName => (TOOL_NAMES as string[]).includes(name);

const notAnObject = (value: unknown): boolean =>
  value !== undefined && (typeof value !== 'object' || value === null || Array.isArray(value));

/** Like fc.assert, but the counterexample is printed with long strings cut (they run to MiB). */
async function assertProperty<T>(property: fc.IAsyncProperty<T>, numRuns: number): Promise<void> {
  const out = await fc.check(property, { numRuns, endOnFailure: true });
  if (!out.failed) return;
  const example = JSON.stringify(out.counterexample, (_key, value: unknown) =>
    typeof value === 'string' && value.length > 80
      ? `${value.slice(0, 80)}…(${value.length} chars)`
      : value,
  );
  const cause =
    out.errorInstance instanceof Error ? out.errorInstance.message : String(out.errorInstance);
  throw new Error(
    `property failed (seed ${out.seed}): ${cause}\ncounterexample: ${example.slice(0, 4000)}`,
  );
}

describe('fuzzing tools/call through the real /mcp endpoint', () => {
  let bridge: TestBridge;
  let viewer: ScriptedViewer;
  const clients: Client[] = [];
  let approvals: NodeJS.Timeout;
  const stats = {
    calls: 0,
    invalidRejected: 0,
    nonObjectArgs: 0,
    validSent: 0,
    reachedViewer: 0,
  };

  beforeAll(async () => {
    // Generous limits: the fuzz is about arguments, and rate_limited answers would hide them.
    const unlimited = {
      all: { ratePerSecond: 1e6, burst: 1e6 },
      input: { ratePerSecond: 1e6, burst: 1e6 },
    };
    bridge = await startTestBridge({
      initialMode: 'autopilot',
      rateLimits: unlimited,
      sharedRateLimits: { token: unlimited, person: unlimited },
      // Every toggle on: the fuzz is about arguments, and permission_denied would hide them.
      permissions: { clipboard_read: true, read_key_events: true },
    });
    viewer = await ScriptedViewer.connect(bridge);
    for (const name of TOOL_NAMES) {
      viewer.on(name, {
        error: { kind: 'system_error', message: 'scripted viewer: not executed' },
      });
    }
    // set_mode raises ask the person: the scripted viewer declines each at once.
    const answered = new Set<string>();
    approvals = setInterval(() => {
      for (const m of viewer.received) {
        if (m.type !== 'approval_request' || answered.has(m.request_id)) continue;
        answered.add(m.request_id);
        viewer.send({ type: 'approval', request_id: m.request_id, approved: false });
      }
    }, 10);
    for (let i = 0; i < 4; i += 1) clients.push((await connectClient(bridge)).client);
  });
  afterAll(async () => {
    clearInterval(approvals);
    for (const client of clients) await client.close();
    await viewer?.close();
    await bridge?.close();
  });

  it('answers 10,000+ random calls without a crash, and only valid args reach the viewer', async () => {
    const tools = (await clients[0]!.listTools()).tools;
    const started = performance.now();
    await assertProperty(
      fc.asyncProperty(
        fc.array(callArbitrary(tools), { minLength: 32, maxLength: 32 }),
        async (batch) => {
          await Promise.all(
            batch.map(async (call, i) => {
              const client = clients[i % clients.length]!;
              // `desktop` is every tool's optional extension (select_desktop's own argument
              // aside), taken off before the tool's schema; a random name is no desktop of the
              // token's, refused as permission_denied once the rest of the args are valid.
              const { args: toolArgs, desktop } = withoutDesktop(call.name, call.args);
              const valid =
                isToolName(call.name) &&
                parseToolArgs(call.name, toolArgs).ok &&
                (desktop === undefined || typeof desktop === 'string');
              stats.calls += 1;
              let result: CallToolResult;
              try {
                result = (await client.callTool({
                  name: call.name,
                  arguments: call.args as Record<string, unknown>,
                })) as CallToolResult;
              } catch (err) {
                // Only `arguments` that is not an object is refused as a protocol error, by the
                // SDK's own tools/call check: -32602 Invalid params (not -32603). Any other
                // thrown error fails the property.
                expect(err).toBeInstanceOf(McpError);
                expect(notAnObject(call.args)).toBe(true);
                expect((err as McpError).code).toBe(-32602);
                expect((err as McpError).message).toContain('Invalid tools/call request');
                stats.nonObjectArgs += 1;
                return;
              }
              const kind = (result.structuredContent as { error?: { kind: string } }).error?.kind;
              if (!valid) {
                expect(result.isError).toBe(true);
                expect(kind).toBe('invalid_parameters');
                stats.invalidRejected += 1;
              } else if (desktop !== undefined) {
                // Valid args on a desktop named at random: refused (or, rarely, too long a name).
                expect(result.isError).toBe(true);
                expect(['permission_denied', 'invalid_parameters']).toContain(kind);
                stats.invalidRejected += 1;
              } else {
                stats.validSent += 1;
              }
            }),
          );
          // A lowered mode (set_mode passive) would deny all input from here on; restore it.
          bridge.adminPlane.mode.set('autopilot', undefined, 'person');
        },
      ),
      320,
    );
    const seconds = (performance.now() - started) / 1000;
    const calls = viewer.toolCalls();
    stats.reachedViewer = calls.length;
    console.log(`fuzz: ${JSON.stringify(stats)} in ${seconds.toFixed(1)} s`);

    expect(stats.calls).toBeGreaterThanOrEqual(10_000);
    expect(viewer.invalid).toEqual([]);
    for (const call of calls) {
      expect(isToolName(call.name)).toBe(true);
      const parsed = parseToolArgs(call.name, call.args);
      if (!parsed.ok) throw new Error(`invalid args reached the viewer: ${parsed.error}`);
      expect(toolDefinitions[call.name].input.safeParse(call.args).success).toBe(true);
    }
    // The generator is useful only if both sides are well represented.
    expect(stats.invalidRejected).toBeGreaterThan(2000);
    // (About 5 % of the calls: two of the 23 tools, list_desktops and select_desktop, are the
    // bridge's own, and most random args are invalid.)
    expect(stats.reachedViewer).toBeGreaterThan(400);
    expect(stats.reachedViewer).toBeLessThanOrEqual(stats.validSent);
    expect(stats.nonObjectArgs).toBeGreaterThan(50);

    const health = await fetch(new URL('/healthz', bridge.url));
    expect(health.status).toBe(200);
    const after = (await clients[0]!.callTool({ name: 'get_display_info' })) as CallToolResult;
    expect((after.structuredContent as { error: { message: string } }).error.message).toBe(
      'scripted viewer: not executed',
    );
  }, 120_000);

  it('answers malformed JSON-RPC envelopes with 4xx/2xx, never 5xx', async () => {
    const headers = {
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const init = await fetch(bridge.mcpUrl, {
      method: 'POST',
      headers,
      body: JSON.stringify(INITIALIZE_REQUEST),
    });
    const sessionId = init.headers.get('mcp-session-id') ?? '';
    await init.text();
    expect(sessionId).not.toBe('');

    const envelope = fc.record(
      {
        jsonrpc: fc.oneof(fc.constant('2.0'), fc.jsonValue({ maxDepth: 0 })),
        id: fc.oneof(fc.integer(), fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 1 })),
        method: fc.oneof(
          fc.constantFrom(
            'tools/call',
            'tools/list',
            'initialize',
            'resources/read',
            'ping',
            'notifications/cancelled',
            'x/y',
          ),
          fc.string({ maxLength: 20 }),
        ),
        params: fc.jsonValue({ maxDepth: 3 }),
      },
      { requiredKeys: [] },
    );
    const body = fc.oneof(
      envelope.map((e) => JSON.stringify(e)),
      fc.array(envelope, { maxLength: 4 }).map((a) => JSON.stringify(a)),
      fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
      fc.string({ maxLength: 200 }),
      fc.constantFrom('', '{', '[]', 'null', '{"jsonrpc":"2.0"', '\u0000'),
    );
    const statuses = new Map<number, number>();
    await assertProperty(
      fc.asyncProperty(
        body,
        fc.boolean(),
        fc.constantFrom('application/json', 'text/plain'),
        async (text, withSession, type) => {
          const response = await fetch(bridge.mcpUrl, {
            method: 'POST',
            headers: {
              ...headers,
              'content-type': type,
              ...(withSession ? { 'mcp-session-id': sessionId } : {}),
            },
            body: text,
          });
          await response.text();
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          expect(response.status).toBeLessThan(500);
        },
      ),
      1500,
    );
    console.log(`fuzz envelopes: status counts ${JSON.stringify(Object.fromEntries(statuses))}`);
    expect((await fetch(new URL('/healthz', bridge.url))).status).toBe(200);
  }, 120_000);
});

/** The call's args without the `desktop` extension (what the tool's own schema sees). */
function withoutDesktop(name: string, args: unknown): { args: unknown; desktop?: unknown } {
  if (name === 'select_desktop' || typeof args !== 'object' || args === null || Array.isArray(args))
    return { args };
  if (!Object.hasOwn(args, 'desktop')) return { args };
  const { desktop, ...rest } = args as Record<string, unknown>;
  return { args: rest, desktop };
}
