import { EyeIcon, EyeOffIcon } from 'lucide-react';
import { useState, type ChangeEvent, type InputHTMLAttributes, type ReactNode, type TextareaHTMLAttributes } from 'react';
import { useTranslation } from 'react-i18next';

/**
 * The labelled form fields of every screen: a text input, a password input with a show/hide button and
 * a multi-line input. Each has its label, then its error or (when there is no error) its hint underneath,
 * referenced by `aria-describedby`; an invalid field is marked `aria-invalid`.
 */

interface FieldProps {
  id: string;
  label: string;
  value: string;
  onValueChange: (value: string) => void;
  error?: string | undefined;
  hint?: string | undefined;
  /** Shown at the right of the hint line, e.g. a character counter. */
  aside?: string | undefined;
}

/** What every field's control carries: id and name, the value, and the error or hint it is described by. */
function controlProps({ id, value, onValueChange, error, hint }: FieldProps) {
  return {
    id,
    name: id,
    value,
    onChange: (event: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => onValueChange(event.target.value),
    'aria-invalid': error ? true : undefined,
    'aria-describedby': [error ? `${id}-error` : null, hint && !error ? `${id}-hint` : null].filter(Boolean).join(' ') || undefined,
  };
}

function FieldShell({ id, label, error, hint, aside, children }: Omit<FieldProps, 'value' | 'onValueChange'> & { children: ReactNode }) {
  return (
    <div className="fieldset py-0">
      <label htmlFor={id} className="fieldset-legend pt-0 pb-1 text-sm">
        {label}
      </label>
      {children}
      {(error || hint || aside) && (
        <div className="flex items-start justify-between gap-3 text-xs">
          {error ? (
            <p id={`${id}-error`} className="text-error">
              {error}
            </p>
          ) : hint ? (
            <p id={`${id}-hint`} className="text-base-content/70">
              {hint}
            </p>
          ) : (
            <span />
          )}
          {aside && (
            <span className="text-base-content/70 shrink-0 tabular-nums" aria-hidden="true">
              {aside}
            </span>
          )}
        </div>
      )}
    </div>
  );
}

type TextFieldProps = FieldProps & Omit<InputHTMLAttributes<HTMLInputElement>, 'id' | 'onChange' | 'value'>;

/** A labelled text input (text, e-mail, ...) with its hint or error underneath. */
export function TextField({ id, label, value, onValueChange, error, hint, aside, ...inputProps }: TextFieldProps) {
  return (
    <FieldShell id={id} label={label} error={error} hint={hint} aside={aside}>
      <input {...controlProps({ id, label, value, onValueChange, error, hint })} className={`input w-full ${error ? 'input-error' : ''}`} {...inputProps} />
    </FieldShell>
  );
}

type PasswordFieldProps = FieldProps & Omit<InputHTMLAttributes<HTMLInputElement>, 'id' | 'onChange' | 'value' | 'type'>;

/** A labelled password input with a show/hide button, and its hint or error underneath. */
export function PasswordField({ id, label, value, onValueChange, error, hint, aside, ...inputProps }: PasswordFieldProps) {
  const { t } = useTranslation();
  const [revealed, setRevealed] = useState(false);
  return (
    <FieldShell id={id} label={label} error={error} hint={hint} aside={aside}>
      <div className={`input w-full pr-1 ${error ? 'input-error' : ''}`}>
        <input {...controlProps({ id, label, value, onValueChange, error, hint })} type={revealed ? 'text' : 'password'} className="grow" {...inputProps} />
        <button
          type="button"
          className="btn btn-ghost btn-xs btn-square text-base-content/60 text-base"
          aria-label={revealed ? t('auth.hidePassword') : t('auth.showPassword')}
          aria-controls={id}
          aria-pressed={revealed}
          onClick={() => setRevealed((shown) => !shown)}
        >
          {revealed ? <EyeOffIcon /> : <EyeIcon />}
        </button>
      </div>
    </FieldShell>
  );
}

type TextAreaFieldProps = FieldProps & Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'id' | 'onChange' | 'value'>;

/** A labelled multi-line input with its hint or error underneath. */
export function TextAreaField({ id, label, value, onValueChange, error, hint, aside, ...textareaProps }: TextAreaFieldProps) {
  return (
    <FieldShell id={id} label={label} error={error} hint={hint} aside={aside}>
      <textarea
        {...controlProps({ id, label, value, onValueChange, error, hint })}
        className={`textarea w-full text-sm leading-relaxed ${error ? 'textarea-error' : ''}`}
        {...textareaProps}
      />
    </FieldShell>
  );
}
