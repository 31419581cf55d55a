import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { StoreIcon } from 'lucide-react';
import { TextField } from '../components/form-fields.tsx';
import { toast } from '../components/toast.tsx';
import { fieldErrorsListOf, httpStatusOf, serverMessage } from '../lib/session.ts';
import { trpc } from '../lib/trpc.ts';

/**
 * A subscriber (or admin) without stores must create one: a modal dialog that cannot be closed
 * (Escape and backdrop clicks only explain why), the page behind dimmed.
 */
export function FirstStoreGate() {
  const { t } = useTranslation('shell');
  const dialog = useRef<HTMLDialogElement>(null);
  const [name, setName] = useState('');
  const utils = trpc.useUtils();
  const create = trpc.stores.create.useMutation({
    onSuccess: async (store) => {
      setName('');
      toast({ title: t('firstStore.createdTitle'), description: t('firstStore.created', { name: store.name }), variant: 'success' });
      await Promise.all([utils.stores.list.invalidate(), utils.stores.active.invalidate(), utils.stores.limits.invalidate()]);
      // Spec: "if it is the user's first store it becomes active" (the server does it); let the header follow.
      await utils.connections.status.invalidate();
    },
    onError: (error) => {
      const fieldErrors = fieldErrorsListOf(error);
      if (fieldErrors.length > 0) {
        toast({
          title: t('firstStore.validationError'),
          description: fieldErrors.map((entry) => `${entry.field}: ${entry.message}`).join('\n'),
          variant: 'destructive',
        });
      } else if (httpStatusOf(error) === 403) {
        toast({ title: t('firstStore.limitReached.title'), description: t('firstStore.limitReached.description'), variant: 'destructive' });
      } else {
        toast({
          title: t('toast.error'),
          description: t('firstStore.createFailed', { message: serverMessage(error) ?? error.message }),
          variant: 'destructive',
        });
      }
    },
  });

  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
  }, []);

  function refuseClose() {
    toast({ title: t('firstStore.cannotClose.title'), description: t('firstStore.cannotClose.description') });
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!name.trim() || create.isPending) return;
    create.mutate({ name });
  }

  return (
    <dialog
      ref={dialog}
      className="modal modal-bottom sm:modal-middle"
      aria-labelledby="first-store-title"
      aria-describedby="first-store-body"
      data-testid="first-store-gate"
      onKeyDown={(event) => {
        if (event.key === 'Escape') {
          event.preventDefault();
          refuseClose();
        }
      }}
      onCancel={(event) => {
        event.preventDefault();
        refuseClose();
      }}
      onClose={() => {
        // Never closes while the gate is shown (a browser may force a close request through): open again.
        if (dialog.current && !dialog.current.open) dialog.current.showModal();
      }}
      onClick={(event) => {
        if (event.target === dialog.current) refuseClose();
      }}
    >
      <div className="modal-box max-w-md">
        <div className="bg-primary/10 text-primary grid size-12 place-items-center rounded-2xl text-2xl">
          <StoreIcon />
        </div>
        <h2 id="first-store-title" className="mt-4 text-xl font-bold">
          {t('firstStore.title')}
        </h2>
        <p id="first-store-body" className="text-base-content/75 mt-2 text-sm leading-relaxed">
          {t('firstStore.body')}
        </p>
        <form className="mt-5 space-y-4" onSubmit={submit}>
          <TextField
            id="first-store-name"
            label={t('firstStore.nameLabel')}
            value={name}
            onValueChange={setName}
            placeholder={t('firstStore.placeholder')}
            autoComplete="off"
            maxLength={100}
            autoFocus
          />
          <button type="submit" className="btn btn-primary w-full" disabled={!name.trim() || create.isPending}>
            {create.isPending && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
            {create.isPending ? t('firstStore.creating') : t('firstStore.create')}
          </button>
        </form>
      </div>
    </dialog>
  );
}
