import { useCallback, useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { useLocation } from 'wouter';

export interface PopoverProps {
  /**
   * Accessible name of an icon-only trigger. Leave it out when the trigger shows text: its content
   * is then its name (add an sr-only phrase to it if the visible text needs context).
   */
  label?: string;
  /** Content of the trigger button. */
  trigger: ReactNode;
  triggerClassName?: string;
  panelClassName?: string;
  /** Which edge the panel lines up with. */
  align?: 'start' | 'end';
  children: (close: () => void) => ReactNode;
  testId?: string;
}

/**
 * A button that opens a panel below it (the disclosure pattern: aria-expanded + aria-controls).
 * Closes on Escape (focus goes back to the button), on a click outside and on navigation.
 */
export function Popover({ label, trigger, triggerClassName = '', panelClassName = '', align = 'end', children, testId }: PopoverProps) {
  const [open, setOpen] = useState(false);
  const [location] = useLocation();
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const panelId = useId();
  const close = useCallback(() => setOpen(false), []);

  useEffect(() => setOpen(false), [location]);

  useEffect(() => {
    if (!open) return;
    function onPointerDown(event: PointerEvent) {
      if (root.current && !root.current.contains(event.target as Node)) setOpen(false);
    }
    function onKeyDown(event: KeyboardEvent) {
      if (event.key !== 'Escape' || event.defaultPrevented) return;
      setOpen(false);
      button.current?.focus();
    }
    function onFocusIn(event: FocusEvent) {
      if (root.current && !root.current.contains(event.target as Node)) setOpen(false);
    }
    document.addEventListener('pointerdown', onPointerDown);
    document.addEventListener('keydown', onKeyDown);
    document.addEventListener('focusin', onFocusIn);
    return () => {
      document.removeEventListener('pointerdown', onPointerDown);
      document.removeEventListener('keydown', onKeyDown);
      document.removeEventListener('focusin', onFocusIn);
    };
  }, [open]);

  return (
    <div ref={root} className="relative" data-testid={testId}>
      <button
        ref={button}
        type="button"
        className={triggerClassName}
        aria-label={label}
        title={label}
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen((value) => !value)}
      >
        {trigger}
      </button>
      <div
        id={panelId}
        hidden={!open}
        className={`bg-base-100 rounded-box border-base-content/10 absolute top-full z-40 mt-2 border shadow-xl ${
          align === 'end' ? 'right-0' : 'left-0'
        } ${panelClassName}`}
      >
        {open && children(close)}
      </div>
    </div>
  );
}
