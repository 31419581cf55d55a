import { useEffect, useRef, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/**
 * A daisyUI modal on a native <dialog> opened with showModal(): focus stays inside, Escape and a click
 * on the backdrop close it (unless `busy`, so a request in flight is not abandoned half-way).
 */
export function Modal({ open, titleId, busy = false, onClose, children, testId }: { open: boolean; titleId: string; busy?: boolean; onClose: () => void; children: ReactNode; testId?: string }) {
  const { t } = useTranslation('integrations');
  const dialog = useRef<HTMLDialogElement>(null);

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) element.showModal();
    if (!open && element.open) element.close();
  }, [open]);

  return (
    <dialog
      ref={dialog}
      className="modal modal-bottom sm:modal-middle"
      aria-labelledby={titleId}
      data-testid={testId}
      onCancel={(event) => {
        if (busy) event.preventDefault();
      }}
      onClose={onClose}
    >
      <div className="modal-box">{open && children}</div>
      <form method="dialog" className="modal-backdrop" aria-hidden="true">
        <button type="submit" tabIndex={-1} disabled={busy}>
          {t('actions.close')}
        </button>
      </form>
    </dialog>
  );
}
