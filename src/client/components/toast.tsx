import { useEffect, useRef, useState, useSyncExternalStore, type PointerEvent as ReactPointerEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/** Spec section 9: one toast visible at a time, dismissed ones dropped after 1,000,000 ms, auto-close 5 s. */
export const TOAST_LIMIT = 1;
export const TOAST_REMOVE_DELAY_MS = 1_000_000;
export const TOAST_DURATION_MS = 5_000;
export const SWIPE_THRESHOLD_PX = 50;

export type ToastVariant = 'default' | 'success' | 'destructive';

export interface ToastInput {
  title: ReactNode;
  description?: ReactNode;
  variant?: ToastVariant;
}

interface ToastItem extends ToastInput {
  id: number;
  open: boolean;
}

let toasts: ToastItem[] = [];
let nextId = 1;
const listeners = new Set<() => void>();
const removalTimers = new Map<number, ReturnType<typeof setTimeout>>();

function publish(next: ToastItem[]) {
  toasts = next;
  for (const listener of listeners) listener();
}

function scheduleRemoval(id: number) {
  if (removalTimers.has(id)) return;
  removalTimers.set(
    id,
    setTimeout(() => {
      removalTimers.delete(id);
      publish(toasts.filter((item) => item.id !== id));
    }, TOAST_REMOVE_DELAY_MS),
  );
}

export function dismissToast(id?: number) {
  for (const item of toasts) if (id === undefined || item.id === id) scheduleRemoval(item.id);
  publish(toasts.map((item) => (id === undefined || item.id === id ? { ...item, open: false } : item)));
}

/** Shows a notification; usable from anywhere, including outside React (mutation callbacks). */
export function toast(input: ToastInput): { id: number; dismiss: () => void } {
  const id = nextId++;
  publish([{ ...input, id, open: true }, ...toasts].slice(0, TOAST_LIMIT));
  return { id, dismiss: () => dismissToast(id) };
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useToast() {
  const current = useSyncExternalStore(subscribe, () => toasts, () => toasts);
  return { toasts: current, toast, dismiss: dismissToast };
}

const VARIANT_CLASS: Record<ToastVariant, string> = {
  default: 'border-base-300 bg-base-100 text-base-content',
  success: 'border-success/40 bg-base-100 text-base-content',
  destructive: 'border-error bg-error text-error-content',
};

function ToastCard({ item }: { item: ToastItem }) {
  const { t } = useTranslation(undefined, { useSuspense: false });
  const [offset, setOffset] = useState(0);
  // Pointer and keyboard each hold the toast open on their own: focus moving away (a new screen
  // taking focus) must not restart the timer while the pointer is still on it, and the reverse.
  const [hovered, setHovered] = useState(false);
  const [focused, setFocused] = useState(false);
  const paused = hovered || focused;
  /** When the running auto-close timer fires (Date.now() time); null while paused. Shown as data-closes-at. */
  const [closesAt, setClosesAt] = useState<number | null>(null);
  const dragStart = useRef<number | null>(null);
  const dragOffset = useRef(0);

  useEffect(() => {
    if (!item.open || paused) {
      setClosesAt(null);
      return;
    }
    setClosesAt(Date.now() + TOAST_DURATION_MS);
    const timer = setTimeout(() => dismissToast(item.id), TOAST_DURATION_MS);
    return () => clearTimeout(timer);
  }, [item.id, item.open, paused]);

  function onPointerDown(event: ReactPointerEvent<HTMLLIElement>) {
    if ((event.target as HTMLElement).closest('button')) return;
    dragStart.current = event.clientX;
    event.currentTarget.setPointerCapture(event.pointerId);
  }
  function onPointerMove(event: ReactPointerEvent<HTMLLIElement>) {
    if (dragStart.current === null) return;
    dragOffset.current = Math.max(0, event.clientX - dragStart.current);
    setOffset(dragOffset.current);
  }
  function onPointerUp() {
    if (dragStart.current === null) return;
    dragStart.current = null;
    // The ref, not state: the last move may not have re-rendered yet when the pointer is released.
    if (dragOffset.current > SWIPE_THRESHOLD_PX) dismissToast(item.id);
    dragOffset.current = 0;
    setOffset(0);
  }

  const destructive = item.variant === 'destructive';
  return (
    <li
      role={destructive ? 'alert' : 'status'}
      aria-live={destructive ? 'assertive' : 'polite'}
      aria-atomic="true"
      data-testid="toast"
      data-variant={item.variant ?? 'default'}
      data-closes-at={closesAt ?? undefined}
      tabIndex={0}
      className={`pointer-events-auto flex w-full touch-pan-y select-none items-start gap-3 rounded-box border p-4 pr-10 shadow-lg transition-[transform,opacity] ${VARIANT_CLASS[item.variant ?? 'default']} relative`}
      style={{ transform: `translateX(${offset}px)`, opacity: offset > 0 ? Math.max(0.2, 1 - offset / 200) : 1 }}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerUp}
      onPointerCancel={onPointerUp}
      onMouseEnter={() => setHovered(true)}
      onMouseLeave={() => setHovered(false)}
      onFocus={() => setFocused(true)}
      onBlur={() => setFocused(false)}
      onKeyDown={(event) => {
        if (event.key === 'Escape') dismissToast(item.id);
      }}
    >
      <div className="grid gap-1">
        <div className="text-sm font-semibold">{item.title}</div>
        {item.description && <div className="text-sm opacity-90">{item.description}</div>}
      </div>
      <button
        type="button"
        className="btn btn-ghost btn-xs btn-circle absolute top-2 right-2"
        aria-label={t('toast.close')}
        onClick={() => dismissToast(item.id)}
      >
        <svg viewBox="0 0 24 24" className="size-4" fill="none" stroke="currentColor" strokeWidth="2" aria-hidden="true">
          <path d="M18 6 6 18M6 6l12 12" strokeLinecap="round" />
        </svg>
      </button>
    </li>
  );
}

/** The notification area; F8 moves focus to it (as in Radix's toast viewport). */
export function Toaster() {
  const { t } = useTranslation(undefined, { useSuspense: false });
  const { toasts: items } = useToast();
  const viewport = useRef<HTMLOListElement>(null);

  useEffect(() => {
    function onKeyDown(event: KeyboardEvent) {
      if (event.key === 'F8') {
        event.preventDefault();
        viewport.current?.focus();
      }
    }
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, []);

  return (
    <section aria-label={t('toast.region', { hotkey: 'F8' })}>
      <ol
        ref={viewport}
        tabIndex={-1}
        className="pointer-events-none fixed right-0 bottom-0 z-[100] flex max-h-screen w-full flex-col gap-2 p-4 outline-none sm:max-w-sm"
      >
        {items.filter((item) => item.open).map((item) => (
          <ToastCard key={item.id} item={item} />
        ))}
      </ol>
    </section>
  );
}
