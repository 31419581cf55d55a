import { useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { MailIcon } from 'lucide-react';
import { toast } from '../../components/toast.tsx';
import { fieldErrorsOf, serverMessage } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';
import { CONTACT_MESSAGE_MAX_LENGTH, CONTACT_MESSAGE_MIN_LENGTH, CONTACT_NAME_MAX_LENGTH } from '../../../shared/support.ts';
import { formattingLocale } from '../legal/date-locale.ts';
import { TextAreaField, TextField } from '../../components/form-fields.tsx';
import { SubmitButton, useFieldErrors, type FieldErrors } from '../../components/form-state.tsx';

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The help centre's contact form: name and email prefilled from the account, a message, then a toast. */
export function ContactSupportForm({ defaultName, defaultEmail }: { defaultName: string; defaultEmail: string }) {
  const { t, i18n } = useTranslation('help');
  const maxMessage = CONTACT_MESSAGE_MAX_LENGTH.toLocaleString(formattingLocale(i18n.resolvedLanguage));
  const [name, setName] = useState(defaultName);
  const [email, setEmail] = useState(defaultEmail);
  const [message, setMessage] = useState('');
  const { setFieldErrors: setErrors, bind } = useFieldErrors();
  const form = useRef<HTMLFormElement>(null);
  const contact = trpc.support.contact.useMutation();

  function validate(): FieldErrors {
    const found: FieldErrors = {};
    const trimmedName = name.trim();
    if (!trimmedName) found.name = t('contact.validation.nameRequired');
    else if (trimmedName.length > CONTACT_NAME_MAX_LENGTH) found.name = t('contact.validation.nameTooLong', { max: CONTACT_NAME_MAX_LENGTH });
    if (!EMAIL_PATTERN.test(email.trim())) found.email = t('contact.validation.emailInvalid');
    const trimmedMessage = message.trim();
    if (trimmedMessage.length < CONTACT_MESSAGE_MIN_LENGTH) {
      found.message = t('contact.validation.messageTooShort', { min: CONTACT_MESSAGE_MIN_LENGTH });
    } else if (trimmedMessage.length > CONTACT_MESSAGE_MAX_LENGTH) {
      found.message = t('contact.validation.messageTooLong', { max: maxMessage });
    }
    return found;
  }

  function focusFirstInvalid(found: FieldErrors) {
    const first = (['name', 'email', 'message'] as const).find((field) => found[field]);
    if (first) form.current?.querySelector<HTMLElement>(`#contact-${first}`)?.focus();
  }

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    if (contact.isPending) return;
    const found = validate();
    setErrors(found);
    if (Object.keys(found).length > 0) {
      focusFirstInvalid(found);
      return;
    }
    contact.mutate(
      { name: name.trim(), email: email.trim(), message: message.trim() },
      {
        onSuccess: () => {
          setMessage('');
          setErrors({});
          toast({ title: t('contact.sent'), description: t('contact.sentDescription'), variant: 'success' });
        },
        onError: (error) => {
          const byField = fieldErrorsOf(error);
          if (Object.keys(byField).length > 0) {
            setErrors(byField);
            focusFirstInvalid(byField);
            return;
          }
          // A rate-limit answer says when to try again; other failures keep the spec's text alone.
          const tooMany = (error.data as { code?: string } | undefined)?.code === 'TOO_MANY_REQUESTS';
          toast({
            title: t('contact.failed'),
            description: tooMany ? (serverMessage(error) ?? undefined) : undefined,
            variant: 'destructive',
          });
        },
      },
    );
  }

  const sending = contact.isPending;
  return (
    <section id="contact" aria-labelledby="contact-title" className="card bg-base-100 border-base-content/10 scroll-mt-24 border shadow-sm">
      <div className="card-body gap-4 p-5 sm:p-6">
        <div className="flex items-start gap-3">
          <span className="bg-primary/10 text-primary grid size-10 shrink-0 place-items-center rounded-xl text-xl" aria-hidden="true">
            <MailIcon />
          </span>
          <div>
            <h2 id="contact-title" className="text-lg font-semibold">
              {t('contact.title')}
            </h2>
            <p className="text-base-content/70 text-sm">{t('contact.description')}</p>
          </div>
        </div>
        <form ref={form} noValidate onSubmit={onSubmit} className="flex flex-col gap-3" aria-busy={sending}>
          <TextField
            id="contact-name"
            label={t('contact.name')}
            value={name}
            {...bind('name', setName)}
            autoComplete="name"
            maxLength={CONTACT_NAME_MAX_LENGTH}
            disabled={sending}
            required
          />
          <TextField
            id="contact-email"
            type="email"
            label={t('contact.email')}
            value={email}
            {...bind('email', setEmail)}
            autoComplete="email"
            inputMode="email"
            disabled={sending}
            required
          />
          <TextAreaField
            id="contact-message"
            label={t('contact.message')}
            value={message}
            {...bind('message', setMessage)}
            hint={t('contact.messageHint', { min: CONTACT_MESSAGE_MIN_LENGTH })}
            aside={t('contact.counter', { length: message.trim().length, max: maxMessage })}
            placeholder={t('contact.messagePlaceholder')}
            rows={6}
            maxLength={CONTACT_MESSAGE_MAX_LENGTH + 200}
            disabled={sending}
            required
          />
          <SubmitButton pending={sending} label={t('contact.send')} pendingLabel={t('contact.sending')} className="mt-1 w-full" />
        </form>
      </div>
    </section>
  );
}
