// The viewer's drop target: files dragged anywhere over the window go to this window's desktop,
// and the files panel opens to show their progress. While files are dragged over the window a
// notice says where they will go. Listens on the document (the display, the overlays and the
// panels all sit over the desktop area), so the display itself is untouched.
import { useEffect, useState } from 'react';
import { useStore } from 'zustand';
import { desktopStateStore } from '../store/desktopState.js';
import { carriesFiles } from './fileDrop.js';
import { filesPanelStore } from './filesPanelStore.js';
import { sendFiles } from './transfers.js';

export function ViewerFileDrop() {
  const desktop = useStore(desktopStateStore, (s) => s.people?.desktop);
  const viewOnly = useStore(desktopStateStore, (s) => s.people?.you.access === 'view');
  const [dragging, setDragging] = useState(false);
  const desktopId = desktop?.id;

  useEffect(() => {
    if (desktopId === undefined || viewOnly) return undefined;
    let depth = 0;
    const enter = (event: DragEvent) => {
      if (!carriesFiles(event.dataTransfer)) return;
      depth += 1;
      setDragging(true);
    };
    const leave = (event: DragEvent) => {
      if (!carriesFiles(event.dataTransfer)) return;
      depth = Math.max(0, depth - 1);
      if (depth === 0) setDragging(false);
    };
    const over = (event: DragEvent) => {
      if (!carriesFiles(event.dataTransfer) || event.dataTransfer === null) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = 'copy';
    };
    const drop = (event: DragEvent) => {
      depth = 0;
      setDragging(false);
      if (!carriesFiles(event.dataTransfer) || event.dataTransfer === null) return;
      event.preventDefault();
      sendFiles(desktopId, [...event.dataTransfer.files]);
      filesPanelStore.getState().filesPanelToggled(true);
    };
    document.addEventListener('dragenter', enter);
    document.addEventListener('dragleave', leave);
    document.addEventListener('dragover', over);
    document.addEventListener('drop', drop);
    return () => {
      document.removeEventListener('dragenter', enter);
      document.removeEventListener('dragleave', leave);
      document.removeEventListener('dragover', over);
      document.removeEventListener('drop', drop);
    };
  }, [desktopId, viewOnly]);

  if (!dragging || desktop === undefined) return null;
  return (
    <div className="file-drop-notice" role="status" data-testid="file-drop-notice">
      Drop to send to {desktop.name}
    </div>
  );
}
