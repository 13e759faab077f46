// A popup the person opens from a button (the account menu, the desktop's charge panel): open
// state, and closing it on a press outside its area or on Escape — which gives the focus back to
// the button, so a keyboard user is where they were.
import {
  useEffect,
  useRef,
  useState,
  type Dispatch,
  type RefObject,
  type SetStateAction,
} from 'react';

export interface Disclosure {
  open: boolean;
  setOpen: Dispatch<SetStateAction<boolean>>;
  /** The popup and its button: a press inside it keeps it open. */
  area: RefObject<HTMLDivElement | null>;
  /** Focused again when Escape closes the popup. */
  button: RefObject<HTMLButtonElement | null>;
}

export function useDisclosure(): Disclosure {
  const [open, setOpen] = useState(false);
  const area = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!open) return undefined;
    const onPointerDown = (event: PointerEvent) => {
      if (!area.current?.contains(event.target as Node)) setOpen(false);
    };
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setOpen(false);
      button.current?.focus();
    };
    document.addEventListener('pointerdown', onPointerDown);
    document.addEventListener('keydown', onKeyDown);
    return () => {
      document.removeEventListener('pointerdown', onPointerDown);
      document.removeEventListener('keydown', onKeyDown);
    };
  }, [open]);

  return { open, setOpen, area, button };
}
