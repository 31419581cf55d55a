import { useEffect, useRef, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

const VARIANTS = {
  /** A dialog in the middle of the screen, a bottom sheet on phones. */
  dialog: { modal: 'modal modal-bottom sm:modal-middle', box: 'modal-box' },
  /** A full-height panel on the right (details beside a list). */
  drawer: { modal: 'modal modal-end', box: 'modal-box flex h-full max-h-none w-full max-w-xl flex-col gap-0 rounded-none p-0 sm:rounded-l-box' },
} as const;

interface ModalProps {
  open: boolean;
  /** The id of the heading inside, which names the dialog. */
  titleId: string;
  /** Called once the dialog has closed, whatever closed it (Escape, the backdrop, a button). */
  onClose: () => void;
  /** While true, Escape and the backdrop do nothing, so a request in flight is not abandoned half-way. */
  busy?: boolean;
  variant?: keyof typeof VARIANTS;
  /** Extra classes of the box (e.g. a wider max-w-2xl). */
  boxClassName?: string;
  testId?: string;
  children: ReactNode;
}

/**
 * A daisyUI modal on a native <dialog> opened with showModal(): focus stays inside, Escape and a click
 * on the backdrop close it. The content is rendered only while open, so a form starts afresh each time.
 */
export function Modal({ open, titleId, onClose, busy = false, variant = 'dialog', boxClassName = '', testId, children }: ModalProps) {
  const { t } = useTranslation('common');
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
      className={VARIANTS[variant].modal}
      aria-labelledby={titleId}
      data-testid={testId}
      onCancel={(event) => {
        if (busy) event.preventDefault();
      }}
      onClose={onClose}
    >
      <div className={`${VARIANTS[variant].box} ${boxClassName}`}>{open && children}</div>
      <form method="dialog" className="modal-backdrop" aria-hidden="true">
        <button type="submit" tabIndex={-1} disabled={busy}>
          {t('dialog.close')}
        </button>
      </form>
    </dialog>
  );
}
