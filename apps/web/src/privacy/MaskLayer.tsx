// The person's privacy masks, shown to them as hatched areas over the remote display (above it
// and click-through, like the overlay layer) so they see what the AI never sees. Re-renders only
// when the layout or this window's viewport changes, never per frame.
import { useStore } from 'zustand';
import { layoutStore } from '../store/layout.js';
import { viewportStore } from '../store/viewport.js';
import { rectToWindow } from '../viewport/viewport.js';
import './masks.css';

export function MaskLayer() {
  const masks = useStore(layoutStore, (s) => s.layout?.masks);
  const viewport = useStore(viewportStore, (s) => s.viewport);
  const origin = useStore(viewportStore, (s) => s.origin);
  if (masks === undefined || masks.length === 0) return null;
  return (
    <div
      className="mask-layer"
      data-testid="mask-layer"
      style={{
        left: origin.x,
        top: origin.y,
        width: viewport.vw * viewport.scale,
        height: viewport.vh * viewport.scale,
      }}
    >
      {masks.map((mask, i) => {
        const r = rectToWindow(viewport, mask);
        return (
          <div
            key={`${mask.x},${mask.y},${mask.width},${mask.height},${i}`}
            className="mask-layer__mask"
            data-privacy-mask={i}
            title={mask.label ?? 'Private: the AI never sees this area'}
            style={{ left: r.x, top: r.y, width: r.width, height: r.height }}
          >
            <span className="mask-layer__label">{mask.label ?? 'Private'}</span>
          </div>
        );
      })}
    </div>
  );
}
