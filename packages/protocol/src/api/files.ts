// File transfer between a person's browser and a desktop's transfer folder, as both apps see it:
// the size limit (defined here once: the viewer refuses a larger file before sending a byte, the
// bridge refuses it again from its Content-Length), the file-name rule both sides apply, the
// folder listing and the person in charge's choice whether others with access may transfer.
import { z } from 'zod';

/** Largest file one transfer moves, either way. */
export const MAX_TRANSFER_BYTES = 512 * 1024 * 1024;

/** The transfer folder inside a local desktop (its HOME is /home/desktop). */
export const TRANSFER_FOLDER_NAME = 'Transfer';

/**
 * Names the bridge gives files while they are being written (renamed when complete): never
 * listed, never accepted as a name.
 */
export const PARTIAL_PREFIX = '.oc-upload-';

/** Longest name in UTF-8 bytes (Linux's NAME_MAX). */
const NAME_MAX_BYTES = 255;

/**
 * Why `name` cannot be a file's name in a transfer folder, or undefined when it can: one plain
 * name (no folder part — neither / nor \ —, not . or .., no control characters, not one of the
 * bridge's partial files) of at most 255 bytes.
 */
export function fileNameProblem(name: string): string | undefined {
  if (name === '' || name === '.' || name === '..')
    return 'A file needs a name other than "", "." or "..".';
  if (/[/\\]/.test(name)) return 'A file name cannot contain / or \\: send one file, not a path.';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'A file name cannot contain control characters.';
  if (name.startsWith(PARTIAL_PREFIX))
    return `A file name cannot start with ${PARTIAL_PREFIX} (the bridge's partial files do).`;
  if (new TextEncoder().encode(name).length > NAME_MAX_BYTES)
    return `A file name can be at most ${NAME_MAX_BYTES} bytes long; shorten it.`;
  return undefined;
}

/** A size in binary units, e.g. "512 MiB": the limit is a power of two, so the messages say it exactly. */
export function binaryBytesText(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${bytes} bytes` : `${Number(value.toFixed(1))} ${units[unit]}`;
}

export const TransferFile = z.object({
  name: z.string(),
  size: z.number().int().nonnegative(),
  modified_at: z.number(),
});
export type TransferFile = z.infer<typeof TransferFile>;

/** GET `${API.desktops}/:id/files`. */
export const TransferListing = z.object({
  /** Where the files are, as the desktop's own programs see it (e.g. /home/desktop/Transfer). */
  folder: z.string(),
  files: z.array(TransferFile),
  /** Whether this person may send and fetch files here now. */
  may_transfer: z.boolean(),
  /** Why not, when they may not (who to ask). */
  why_not: z.string().optional(),
  /** Whether this person is in charge (and so decides for the others). */
  in_charge: z.boolean(),
  /** The person in charge's choice: may others with control transfer? */
  others_may_transfer: z.boolean(),
  max_bytes: z.number().int().positive(),
});
export type TransferListing = z.infer<typeof TransferListing>;

/** PUT `${API.desktops}/:id/files-policy`, by the person in charge only. */
export const TransferPolicyRequest = z.strictObject({ others_may_transfer: z.boolean() });
export type TransferPolicyRequest = z.infer<typeof TransferPolicyRequest>;

/** The answer to a finished upload. */
export const TransferDone = z.object({
  name: z.string(),
  size: z.number().int().nonnegative(),
  sha256: z.string(),
});
export type TransferDone = z.infer<typeof TransferDone>;

/** The paths of one desktop's transfer folder (under API.desktops). */
export const FILES_API = {
  list: (desktopId: string) => `/api/desktops/${encodeURIComponent(desktopId)}/files`,
  file: (desktopId: string, name: string) =>
    `/api/desktops/${encodeURIComponent(desktopId)}/files/${encodeURIComponent(name)}`,
  policy: (desktopId: string) => `/api/desktops/${encodeURIComponent(desktopId)}/files-policy`,
} as const;

/**
 * An upload: PUT of raw bytes to one file's path. The only /api request whose body is not JSON
 * and may be larger than the API's body limit (the route itself enforces MAX_TRANSFER_BYTES).
 */
export function isFileUpload(method: string, path: string): boolean {
  return method === 'PUT' && /^\/api\/desktops\/[^/]+\/files\/[^/]+$/.test(path);
}
