// The person's teach answer, through the real path: a real MCP client calls request_annotation on
// a real bridge whose desktop (our gateway → Xvnc) is being recorded; a scripted control window
// answers as the person would (Done with a rectangle and a point, or Cancel). The answer goes
// back to the AI unchanged, and reaches the audit log as a teach_answer entry (notes redacted
// unless the person keeps typed text) and the recording's event track as a teach.answer event
// (notes always redacted: a recording is watched by everyone who may see the desktop).
import { readFile } from 'node:fs/promises';
import { API, type AuditPage, type ToolViewerResult } from '@overlay-companion/protocol';
import { RecordingReader, recordingPaths } from '@overlay-companion/recording';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDesktopPath, type DesktopPath } from '../../testing/desktopPaths.js';
import { TunnelClient } from '../../testing/tunnelClient.js';
import { eventually } from '@overlay-companion/gateway/testing';
import { callTool } from '../testing/calls.js';
import { connectClient, startTestBridge, type TestBridge } from '../testing/fixtures.js';
import { ScriptedViewer } from '../testing/scriptedViewer.js';
import { teachOutcome } from './teach.js';

const NOTE = 'the invoice for Mrs Okafor';
const LATER_NOTE = 'kept because the person keeps typed text';

type Answer = ToolViewerResult<'request_annotation'>;

const DRAWN: Answer = {
  completed: true,
  annotations: [
    { kind: 'rect', x: 10, y: 20, width: 30, height: 40, note: NOTE, monitor_index: 0 },
    { kind: 'point', x: 5, y: 6, monitor_index: 0 },
  ],
  waited_ms: 1_200,
};

describe('teachOutcome', () => {
  it('names Done answered, Cancel declined, and the time running out no_answer', () => {
    expect(teachOutcome(DRAWN, 60_000)).toBe('answered');
    expect(teachOutcome({ completed: false, annotations: [], waited_ms: 3_000 }, 60_000)).toBe(
      'declined',
    );
    expect(teachOutcome({ completed: false, annotations: [], waited_ms: 60_000 }, 60_000)).toBe(
      'no_answer',
    );
    expect(teachOutcome({ ...DRAWN, completed: false, waited_ms: 20_000 }, 60_000)).toBe(
      'no_answer',
    );
  });
});

describe('request_annotation on a recorded desktop', () => {
  let path: DesktopPath;
  let bridge: TestBridge;
  let viewer: ScriptedViewer;
  let live: TunnelClient;
  let client: Client;
  let desktopId: string;
  let recordingId: string;
  let answers: Answer[];

  async function auditEntries(): Promise<AuditPage['entries']> {
    await bridge.access.audit.flush();
    const res = await bridge.session.request(`${API.audit}?kind=teach_answer`);
    expect(res.status).toBe(200);
    return ((await res.json()) as AuditPage).entries.reverse();
  }

  beforeAll(async () => {
    const started = await startDesktopPath('gateway-xvnc');
    if ('skip' in started) throw new Error(started.skip);
    path = started;
    bridge = await startTestBridge({
      desktop: { guacd: path.guacd, connection: path.connection },
      recording: { recordByDefault: true },
    });
    desktopId = (await bridge.desktopControl.directory.cliDesktopId()) ?? '';
    await path.startSession();
    live = await TunnelClient.open(bridge.url, await bridge.session.ticket('tunnel'));
    await live.waitFor((i) => i.opcode === 'size' && i.args[0] === '0', {
      timeoutMs: 60_000,
      what: "the desktop's size",
    });
    await eventually('recording', () => bridge.recordings.liveOn(desktopId) !== undefined, 20_000);
    recordingId = bridge.recordings.liveOn(desktopId) ?? '';

    // The person's control window: each request is answered with the next scripted answer.
    answers = [
      DRAWN,
      { completed: false, annotations: [], waited_ms: 800 },
      {
        completed: true,
        annotations: [{ kind: 'point', x: 7, y: 8, note: LATER_NOTE, monitor_index: 0 }],
        waited_ms: 500,
      },
    ];
    viewer = await ScriptedViewer.connect(bridge);
    let next = 0;
    viewer.on('request_annotation', () => ({ result: answers[next++] ?? DRAWN }));
    ({ client } = await connectClient(bridge));
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    await viewer?.close();
    await live?.close();
    await bridge?.close();
    await path?.stop();
  }, 60_000);

  it('gives the AI the answer and puts it in the audit log, notes redacted, as the person’s act', async () => {
    const done = await callTool(client, 'request_annotation', {
      prompt: 'Show me the invoice',
      intent: 'find the invoice to open',
    });
    expect(done.isError).toBeFalsy();
    expect(done.structuredContent).toEqual(DRAWN);
    const cancelled = await callTool(client, 'request_annotation', { prompt: 'And the total?' });
    expect(cancelled.structuredContent).toMatchObject({ completed: false, annotations: [] });

    const entries = await auditEntries();
    expect(entries).toHaveLength(2);
    const [answered, declined] = entries;
    expect(answered).toMatchObject({
      kind: 'teach_answer',
      actor: 'person',
      person_name: 'Ada Admin',
      tool: 'request_annotation',
      outcome: 'answered',
      duration_ms: 1_200,
      detail: 'desktop Desktop',
    });
    expect(JSON.parse(answered?.summary ?? '')).toEqual({
      prompt: 'Show me the invoice',
      completed: true,
      annotations: [
        { ...DRAWN.annotations[0], note: `[redacted: ${NOTE.length} characters]` },
        DRAWN.annotations[1],
      ],
    });
    expect(declined).toMatchObject({ outcome: 'declined' });
    expect(JSON.parse(declined?.summary ?? '')).toMatchObject({ annotations: [] });
  });

  it('keeps the note in the audit when the person keeps typed text', async () => {
    const kept = await bridge.session.request(API.myPermissions, {
      method: 'PUT',
      body: { audit_typed_text: true },
    });
    expect(kept.status).toBe(200);
    await callTool(client, 'request_annotation', { prompt: 'Where is Save?' });
    const entry = (await auditEntries()).at(-1);
    expect(JSON.parse(entry?.summary ?? '')).toMatchObject({
      annotations: [{ kind: 'point', x: 7, y: 8, note: LATER_NOTE }],
    });
  });

  it('puts every answer on the recording’s event track, with what was drawn and notes redacted', async () => {
    const res = await bridge.session.request(`/api/recordings/${recordingId}/events`);
    expect(res.status).toBe(200);
    const { events } = (await res.json()) as { events: { kind: string }[] };
    const taught = events.filter((e) => e.kind === 'teach.answer');
    expect(taught).toEqual([
      {
        t: expect.any(Number) as number,
        kind: 'teach.answer',
        question: 'Show me the invoice',
        answer: 'pointed out 2 items: rect 30×40 at 10,20; point 5,6',
        outcome: 'answered',
        by: 'Ada Admin',
        annotations: [
          {
            kind: 'rect',
            x: 10,
            y: 20,
            width: 30,
            height: 40,
            note: `[redacted: ${NOTE.length} characters]`,
          },
          { kind: 'point', x: 5, y: 6 },
        ],
      },
      {
        t: expect.any(Number) as number,
        kind: 'teach.answer',
        question: 'And the total?',
        answer: 'cancelled the request',
        outcome: 'declined',
        by: 'Ada Admin',
        annotations: [],
      },
      expect.objectContaining({
        annotations: [
          { kind: 'point', x: 7, y: 8, note: `[redacted: ${LATER_NOTE.length} characters]` },
        ],
      }),
    ]);
    // The call that asked is on the track as the AI's action, the answer after it started.
    const asked = events.filter(
      (e) => e.kind === 'ai.action' && (e as { tool?: string }).tool === 'request_annotation',
    );
    expect(asked).toHaveLength(3);

    // And in the files themselves, once the recording is finished: no note, anywhere.
    await live.close();
    await eventually('the tunnel to end', () => bridge.tunnels.size === 0, 10_000);
    await bridge.recordings.settled();
    const reader = await RecordingReader.open(bridge.recordings.dir, recordingId);
    expect((await reader.events()).filter((e) => e.kind === 'teach.answer')).toHaveLength(3);
    const files = recordingPaths(bridge.recordings.dir, recordingId);
    const track = await readFile(files.events, 'utf8');
    expect(track).not.toContain('Okafor');
    expect(track).not.toContain(LATER_NOTE);
  });
});
