// The exact values behind the picture, for typing and for keyboards: per monitor its label,
// position and size on the desktop and its screen's size (with Remove), per privacy mask its label,
// position and size (with Remove). Every change goes through the same editor events as a drag.
import { MAX_DESKTOP_PX, type PrivacyMask } from '@overlay-companion/protocol';
import type { Dispatch } from 'react';
import { TextField } from '../../common/Field.js';
import { NumberField } from './NumberField.js';
import { targetName, type EditorEvent, type EditorState, type Target } from './editorState.js';
import type { Rect } from './geometry.js';

function RectNumbers({
  idPrefix,
  rect,
  onChange,
}: {
  idPrefix: string;
  rect: Rect;
  onChange: (rect: Rect) => void;
}) {
  const fields = [
    { key: 'x', label: 'X', min: 0 },
    { key: 'y', label: 'Y', min: 0 },
    { key: 'width', label: 'Width', min: 1 },
    { key: 'height', label: 'Height', min: 1 },
  ] as const;
  return (
    <>
      {fields.map(({ key, label, min }) => (
        <NumberField
          key={key}
          id={`${idPrefix}-${key}`}
          label={label}
          value={rect[key]}
          min={min}
          max={MAX_DESKTOP_PX}
          onCommit={(value) =>
            onChange({ x: rect.x, y: rect.y, width: rect.width, height: rect.height, [key]: value })
          }
        />
      ))}
    </>
  );
}

function LabelField({
  id,
  target,
  label,
  dispatch,
}: {
  id: string;
  target: Target;
  label: string;
  dispatch: Dispatch<EditorEvent>;
}) {
  return (
    <TextField
      id={id}
      label="Label"
      value={label}
      maxLength={64}
      onChange={(value) => dispatch({ type: 'labelChanged', target, label: value })}
    />
  );
}

export function MonitorList({
  state,
  dispatch,
}: {
  state: EditorState;
  dispatch: Dispatch<EditorEvent>;
}) {
  return (
    <div className="layout-items">
      {state.monitors.map((m, index) => {
        const target: Target = { kind: 'monitor', index };
        const id = `monitor-${index}`;
        return (
          <fieldset key={id} className="fieldset layout-item">
            <legend>
              {targetName('monitor', index, m.label)}{' '}
              <span className="muted">(monitor_index {index} for the AI)</span>
            </legend>
            <div className="layout-item__fields">
              <LabelField id={`${id}-label`} target={target} label={m.label} dispatch={dispatch} />
              <RectNumbers
                idPrefix={id}
                rect={m}
                onChange={(rect) => dispatch({ type: 'rectChanged', target, rect })}
              />
              {m.screen === null ? (
                <button
                  type="button"
                  className="button layout-item__button"
                  onClick={() =>
                    dispatch({
                      type: 'screenChanged',
                      index,
                      screen: { width: m.width, height: m.height },
                    })
                  }
                >
                  Enter the screen’s size
                </button>
              ) : (
                <>
                  <NumberField
                    id={`${id}-screen-width`}
                    label="Screen width"
                    value={m.screen.width}
                    min={1}
                    max={MAX_DESKTOP_PX}
                    onCommit={(width) =>
                      dispatch({
                        type: 'screenChanged',
                        index,
                        screen: { width, height: m.screen?.height ?? width },
                      })
                    }
                  />
                  <NumberField
                    id={`${id}-screen-height`}
                    label="Screen height"
                    value={m.screen.height}
                    min={1}
                    max={MAX_DESKTOP_PX}
                    onCommit={(height) =>
                      dispatch({
                        type: 'screenChanged',
                        index,
                        screen: { width: m.screen?.width ?? height, height },
                      })
                    }
                  />
                </>
              )}
              <button
                type="button"
                className="button button--danger-quiet layout-item__button"
                aria-disabled={state.monitors.length <= 1}
                aria-label={`Remove ${targetName('monitor', index, m.label)}`}
                onClick={() => {
                  if (state.monitors.length > 1) dispatch({ type: 'monitorRemoved', index });
                }}
              >
                Remove
              </button>
            </div>
          </fieldset>
        );
      })}
    </div>
  );
}

export function MaskList({
  masks,
  dispatch,
}: {
  masks: readonly (PrivacyMask & { label: string })[];
  dispatch: Dispatch<EditorEvent>;
}) {
  if (masks.length === 0) {
    return <p className="muted">No privacy masks yet.</p>;
  }
  return (
    <div className="layout-items">
      {masks.map((m, index) => {
        const target: Target = { kind: 'mask', index };
        const id = `mask-${index}`;
        return (
          <fieldset key={id} className="fieldset layout-item">
            <legend>{targetName('mask', index, m.label)}</legend>
            <div className="layout-item__fields">
              <LabelField id={`${id}-label`} target={target} label={m.label} dispatch={dispatch} />
              <RectNumbers
                idPrefix={id}
                rect={m}
                onChange={(rect) => dispatch({ type: 'rectChanged', target, rect })}
              />
              <button
                type="button"
                className="button button--danger-quiet layout-item__button"
                aria-label={`Remove ${targetName('mask', index, m.label)}`}
                onClick={() => dispatch({ type: 'maskRemoved', index })}
              >
                Remove
              </button>
            </div>
          </fieldset>
        );
      })}
    </div>
  );
}
