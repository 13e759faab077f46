// A recording this bridge cannot reach, in the list as the bridge's answer gives it (parsed with
// the list's own schema): the bridge's words for why in its row instead of Play, "Remove from
// list" for an admin (a button, asked first) and for no one else, and the other rows unchanged.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { RecordingTable } from './RecordingsPage.js';
import { UnavailableView } from './UnavailableRecording.js';
import { RecordingList } from './recordingsWire.js';

// The bridge's words (apps/bridge/src/recordings/storage/unreachable.ts) for an admin and for others.
const FOR_ADMIN =
  'This recording is kept in s3://other-bucket/rec/, a bucket this bridge is not configured for (it keeps recordings in s3://ours/rec/): start a bridge with --recordings-s3 s3://other-bucket/rec/ (or OC_RECORDINGS_S3_URL) to play, export or delete it. An admin can remove it from the list; its objects then stay where they are, not deleted.';
const FOR_MEMBER =
  'This recording is kept on an S3 store this bridge cannot reach, so it cannot be played here. An admin can make it playable again, or remove it from the list.';

const row = (id: string, unavailable?: string) => ({
  id,
  desktop: { id: 'dsk_1', name: 'Office PC' },
  started_at: 1_700_000_000_000,
  ended_at: 1_700_000_060_000,
  bytes: 1_000_000,
  duration_ms: 60_000,
  gaps: [],
  live: false,
  ...(unavailable === undefined ? {} : { unavailable }),
});

const listOf = (unavailable: string) =>
  RecordingList.parse({ recordings: [row('here1'), row('away1', unavailable)] }).recordings;

const table = (unavailable: string, isAdmin: boolean) =>
  renderToStaticMarkup(
    <RecordingTable
      recordings={listOf(unavailable)}
      current={null}
      isAdmin={isAdmin}
      onRemoved={() => undefined}
    />,
  );

/** The markup of the table row that holds `id`'s link or text. */
const rowOf = (html: string, needle: string): string =>
  html.split('<tr').find((tr) => tr.includes(needle)) ?? '';

describe('a recording this bridge cannot reach, in the list', () => {
  it('gives an admin the bridge’s words and "Remove from list", and no Play', () => {
    const html = table(FOR_ADMIN, true);
    const away = rowOf(html, 'recording-unavailable');
    expect(away).toContain(`Cannot be played or exported here. ${FOR_ADMIN}`);
    expect(away).not.toContain('href=');
    expect(away).toMatch(
      /<button type="button" class="button button--danger-quiet" aria-label="Remove the recording of Office PC from [^"]+ from the list">Remove from list<\/button>/,
    );
    // The playable one keeps its Play link and gets no removal.
    const here = rowOf(html, 'href="/recordings/here1"');
    expect(here).toContain('>Play</a>');
    expect(here).not.toContain('Remove from list');
    expect(html.match(/Remove from list<\/button>/g)).toHaveLength(1);
  });

  it('gives anyone else the words for them and nothing to remove it with', () => {
    const html = table(FOR_MEMBER, false);
    const away = rowOf(html, 'recording-unavailable');
    expect(away).toContain(`Cannot be played or exported here. ${FOR_MEMBER}`);
    expect(away).not.toContain('s3://');
    expect(html).not.toContain('Remove from list');
    expect(html).not.toContain('<button');
  });

  it('on its own page: the words instead of the player and the exports; removal for an admin only', () => {
    const [, away] = listOf(FOR_ADMIN);
    const admin = renderToStaticMarkup(
      <UnavailableView recording={away!} isAdmin onRemoved={() => undefined} />,
    );
    expect(admin).toContain(FOR_ADMIN);
    expect(admin).toContain('Remove from list</button>');
    expect(admin).not.toContain('/stream');
    expect(admin).not.toContain('href=');
    expect(admin).not.toContain('download');
    const member = renderToStaticMarkup(
      <UnavailableView recording={away!} isAdmin={false} onRemoved={() => undefined} />,
    );
    expect(member).not.toContain('<button');
  });
});
