import type { InputHTMLAttributes, ReactNode, TextareaHTMLAttributes } from 'react';

interface FieldShellProps {
  id: string;
  label: string;
  error?: string | undefined;
  hint?: string | undefined;
  /** Shown at the right of the hint line, e.g. a character counter. */
  aside?: string | undefined;
  children: ReactNode;
}

export function describedBy(id: string, error?: string, hint?: string): string | undefined {
  return [error ? `${id}-error` : null, hint && !error ? `${id}-hint` : null].filter(Boolean).join(' ') || undefined;
}

function FieldShell({ id, label, error, hint, aside, children }: FieldShellProps) {
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

interface InputFieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'id' | 'onChange' | 'value'> {
  id: string;
  label: string;
  value: string;
  onValueChange: (value: string) => void;
  error?: string | undefined;
  hint?: string | undefined;
  aside?: string | undefined;
}

/** A labelled text input with its hint or error underneath. */
export function InputField({ id, label, value, onValueChange, error, hint, aside, ...inputProps }: InputFieldProps) {
  return (
    <FieldShell id={id} label={label} error={error} hint={hint} aside={aside}>
      <input
        id={id}
        name={id}
        value={value}
        onChange={(event) => onValueChange(event.target.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, error, hint)}
        className={`input w-full ${error ? 'input-error' : ''}`}
        {...inputProps}
      />
    </FieldShell>
  );
}

interface TextAreaFieldProps extends Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'id' | 'onChange' | 'value'> {
  id: string;
  label: string;
  value: string;
  onValueChange: (value: string) => void;
  error?: string | undefined;
  hint?: string | undefined;
  aside?: string | undefined;
}

/** A labelled multi-line input with its hint or error underneath. */
export function TextAreaField({ id, label, value, onValueChange, error, hint, aside, ...textareaProps }: TextAreaFieldProps) {
  return (
    <FieldShell id={id} label={label} error={error} hint={hint} aside={aside}>
      <textarea
        id={id}
        name={id}
        value={value}
        onChange={(event) => onValueChange(event.target.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, error, hint)}
        className={`textarea w-full text-sm leading-relaxed ${error ? 'textarea-error' : ''}`}
        {...textareaProps}
      />
    </FieldShell>
  );
}
