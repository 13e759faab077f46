// "Show me": which recording holds a moment of a desktop, and the player's link to it. Pure, so
// the matching is tested without the bridge. An audit entry names its desktop only on its detail
// line ("desktop <name> · …") until the bridge sends the desktop's id with it, so both are matched.
import type { RecordingSummary } from './recordingsWire.js';

/** The console page of the recordings, and of one recording. */
export const RECORDINGS_PAGE = '/recordings';

export function showMeHref(recordingId: string, at: number): string {
  return `${RECORDINGS_PAGE}/${encodeURIComponent(recordingId)}?t=${Math.round(at)}`;
}

/** The recording a /recordings path names, and the moment its `t` asks for. */
export function parseRecordingsPath(path: string): { id: string | null; t: number | null } {
  const [pathname = '', query = ''] = path.split('?', 2);
  const rest = pathname.slice(RECORDINGS_PAGE.length).replace(/^\/+|\/+$/g, '');
  const t = Number(new URLSearchParams(query).get('t') ?? Number.NaN);
  let id: string | null = null;
  if (rest !== '' && !rest.includes('/')) {
    try {
      id = decodeURIComponent(rest);
    } catch {
      id = null;
    }
  }
  return { id, t: Number.isFinite(t) && t > 0 ? t : null };
}

export interface Moment {
  at: number;
  desktopId?: string | undefined;
  desktopName?: string | undefined;
}

/**
 * The recording of the moment's desktop that covers `at` (newest first when several do), or
 * null. A moment that names no desktop matches nothing: a recording of another desktop at that
 * time would show the wrong screen.
 */
export function recordingFor(
  recordings: readonly RecordingSummary[],
  moment: Moment,
  now = Date.now(),
): RecordingSummary | null {
  if (moment.desktopId === undefined && moment.desktopName === undefined) return null;
  let best: RecordingSummary | null = null;
  for (const recording of recordings) {
    const sameDesktop =
      moment.desktopId !== undefined
        ? recording.desktop.id === moment.desktopId
        : recording.desktop.name === moment.desktopName;
    if (!sameDesktop) continue;
    const end =
      recording.ended_at ?? (recording.live ? now : recording.started_at + recording.duration_ms);
    if (moment.at < recording.started_at || moment.at > end) continue;
    if (best === null || recording.started_at > best.started_at) best = recording;
  }
  return best;
}

const DESKTOP_PREFIX = 'desktop ';

/** The desktop name an audit detail's first line gives ("desktop Office · …"), if any. */
export function desktopNameOfDetail(detail: string | null): string | undefined {
  if (detail === null) return undefined;
  const first = detail.split('\n', 1)[0] ?? '';
  if (!first.startsWith(DESKTOP_PREFIX)) return undefined;
  const name = first.slice(DESKTOP_PREFIX.length).split(' · ', 1)[0]?.trim() ?? '';
  return name === '' ? undefined : name;
}
