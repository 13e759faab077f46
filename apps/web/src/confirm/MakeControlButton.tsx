// "Make this the control window", in a mirror window of the person in charge (a phone, another
// monitor): this window runs the AI's calls and asks the approvals from now on (take_control;
// the bridge checks who asks and moves the role, the old control window becomes a mirror).
// Hidden in the control window, the headless viewer and a window of anyone else.
import { useShallow } from 'zustand/react/shallow';
import { useStore } from 'zustand';
import { controlStore } from '../store/control.js';
import { desktopStateStore } from '../store/desktopState.js';

export function MakeControlButton({ onTakeControl }: { onTakeControl: () => void }) {
  const { link, role, headless } = useStore(
    controlStore,
    useShallow(({ link, role, headless }) => ({ link, role, headless })),
  );
  const you = useStore(desktopStateStore, (s) => s.people?.you);
  const mine = you === undefined || (you.in_charge && you.access !== 'view');
  if (link !== 'open' || role !== 'mirror' || headless || !mine) return null;
  return (
    <button
      type="button"
      className="make-control"
      data-testid="make-control"
      title="Run the AI's actions and ask its approvals in this window from now on; your other window becomes a mirror."
      onClick={(event) => {
        if (event.nativeEvent.isTrusted) onTakeControl();
      }}
    >
      Make this the control window
    </button>
  );
}
