import { useTranslation } from 'react-i18next';
import { TrashIcon } from 'lucide-react';
import type { Store } from '../../../shared/stores.ts';
import { Modal } from '../../components/modal.tsx';

interface DeleteStoreDialogProps {
  store: Store | null;
  pending: boolean;
  onConfirm: (store: Store) => void;
  onClose: () => void;
}

/** "Are you sure...?" in a modal <dialog> (focus stays inside; Escape and the backdrop cancel). */
export function DeleteStoreDialog({ store, pending, onConfirm, onClose }: DeleteStoreDialogProps) {
  const { t } = useTranslation('account');

  return (
    <Modal open={store !== null} titleId="delete-store-title" onClose={onClose} busy={pending}>
      <div className="flex items-start gap-4">
        <span className="bg-error/10 text-error grid size-10 shrink-0 place-items-center rounded-full text-lg" aria-hidden="true">
          <TrashIcon />
        </span>
        <div className="min-w-0">
          <h2 id="delete-store-title" className="text-lg font-semibold">
            {t('stores.delete.title')}
          </h2>
          <p className="text-base-content/80 mt-2 break-words" data-testid="delete-confirmation">
            {store ? t('stores.delete.confirm', { name: store.name }) : null}
          </p>
        </div>
      </div>
      <div className="modal-action">
        <button type="button" className="btn btn-ghost" onClick={onClose} disabled={pending}>
          {t('stores.delete.cancel')}
        </button>
        <button type="button" className="btn btn-error" onClick={() => store && onConfirm(store)} disabled={pending} aria-busy={pending}>
          {pending && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
          {t('stores.delete.submit')}
        </button>
      </div>
    </Modal>
  );
}
