import { useState } from 'react';
import { fieldErrorsOf, serverMessage } from '../lib/session.ts';

export type FieldErrors = Record<string, string>;

/** Per-field messages of one form; a field's message goes as soon as the user edits it. */
export function useFieldErrors() {
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>({});
  const clear = (field: string) => setFieldErrors(({ [field]: _removed, ...rest }) => rest);
  return {
    fieldErrors,
    setFieldErrors,
    clear,
    /** A field's `error` and `onValueChange`: the edited value is kept and the field's message goes. */
    bind(field: string, setValue: (value: string) => void) {
      return {
        error: fieldErrors[field],
        onValueChange: (value: string) => {
          setValue(value);
          clear(field);
        },
      };
    },
  };
}

/**
 * Field errors plus the alert above the form: the server's own words, or `fallbackMessage` when the
 * request never got a readable answer.
 */
export function useFormErrors(fallbackMessage: string) {
  const fields = useFieldErrors();
  const [formError, setFormError] = useState<string | null>(null);
  return {
    ...fields,
    formError,
    /** Shows the local check's errors; true when there are none and the form may be sent. */
    acceptLocalCheck(errors: FieldErrors): boolean {
      fields.setFieldErrors(errors);
      setFormError(null);
      return Object.keys(errors).length === 0;
    },
    showServerError(error: unknown) {
      fields.setFieldErrors(fieldErrorsOf(error));
      setFormError(serverMessage(error) ?? fallbackMessage);
    },
  };
}

export function FormAlert({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <div role="alert" className="alert alert-error alert-soft text-sm">
      <span>{message}</span>
    </div>
  );
}

/** A form's primary button; `className` sets its spacing and width (full width by default). */
export function SubmitButton({ pending, label, pendingLabel, className = 'mt-2 w-full' }: { pending: boolean; label: string; pendingLabel: string; className?: string }) {
  return (
    <button type="submit" className={`btn btn-primary ${className}`} disabled={pending} aria-busy={pending}>
      {pending && <span className="loading loading-spinner loading-sm" aria-hidden="true" />}
      {pending ? pendingLabel : label}
    </button>
  );
}
