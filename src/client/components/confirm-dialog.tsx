import { useId, useState, type ReactNode } from 'react';
import { Modal } from './modal.tsx';

export interface ConfirmDialogProps {
  open: boolean;
  title: string;
  body: ReactNode;
  confirmLabel: string;
  cancelLabel: string;
  pending?: boolean;
  tone?: 'error' | 'primary';
  onConfirm: () => void;
  onClose: () => void;
}

/** "Are you sure?" in a modal <dialog>: focus stays inside, Escape and the backdrop cancel. */
export function ConfirmDialog({ open, title, body, confirmLabel, cancelLabel, pending = false, tone = 'error', onConfirm, onClose }: ConfirmDialogProps) {
  const titleId = useId();
  return (
    <Modal open={open} titleId={titleId} onClose={onClose} busy={pending}>
      <h2 id={titleId} className="text-lg font-semibold">
        {title}
      </h2>
      <div className="text-base-content/80 mt-2 break-words">{body}</div>
      <div className="modal-action">
        <button type="button" className="btn btn-ghost" onClick={onClose} disabled={pending}>
          {cancelLabel}
        </button>
        <button type="button" className={`btn ${tone === 'error' ? 'btn-error' : 'btn-primary'}`} onClick={onConfirm} disabled={pending} aria-busy={pending}>
          {pending && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
          {confirmLabel}
        </button>
      </div>
    </Modal>
  );
}

/**
 * What a ConfirmDialog asks about ("delete this expense?"): `ask` opens it for a target, `close`
 * closes it. The target stays set while the dialog closes, so the dialog's text does not change.
 */
export function useConfirmation<T>() {
  const [state, setState] = useState<{ target: T; open: boolean } | null>(null);
  return {
    target: state?.target ?? null,
    open: state?.open ?? false,
    ask: (target: T) => setState({ target, open: true }),
    close: () => setState((current) => current && { ...current, open: false }),
  };
}
