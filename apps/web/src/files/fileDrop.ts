// Dropping files from the person's computer: the handlers a drop target needs (the viewer's
// whole window, a fleet tile) — accept a drag that carries files, and send the dropped files to
// the target's desktop. A drag of anything else (text, a link) is left alone.
import type { DragEvent as ReactDragEvent } from 'react';
import { sendFiles } from './transfers.js';

/** Whether a drag carries files (its types say so before the drop). */
export function carriesFiles(transfer: DataTransfer | null): boolean {
  return transfer !== null && [...transfer.types].includes('Files');
}

/** Handlers for a drop target that sends to `desktopId`; `dropped` runs after a drop of files. */
export function fileDropHandlers(
  desktopId: string,
  dropped: () => void = () => {},
): {
  onDragOver: (event: ReactDragEvent) => void;
  onDrop: (event: ReactDragEvent) => void;
} {
  return {
    onDragOver: (event) => {
      if (!carriesFiles(event.dataTransfer)) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = 'copy';
    },
    onDrop: (event) => {
      if (!carriesFiles(event.dataTransfer)) return;
      event.preventDefault();
      sendFiles(desktopId, [...event.dataTransfer.files]);
      dropped();
    },
  };
}
