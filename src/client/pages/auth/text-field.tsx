import { useState, type InputHTMLAttributes } from 'react';
import { useTranslation } from 'react-i18next';
import { EyeIcon, EyeOffIcon } from '../../components/icons.tsx';

interface TextFieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'id' | 'onChange' | 'value'> {
  id: string;
  label: string;
  value: string;
  onValueChange: (value: string) => void;
  error?: string | undefined;
  hint?: string | undefined;
}

/** A labelled input with its hint and error; password fields get a show/hide button. */
export function TextField({ id, label, value, onValueChange, error, hint, type = 'text', ...inputProps }: TextFieldProps) {
  const { t } = useTranslation();
  const [revealed, setRevealed] = useState(false);
  const isPassword = type === 'password';
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const describedBy = [error ? errorId : null, hint && !error ? hintId : null].filter(Boolean).join(' ') || undefined;
  const input = (
    <input
      id={id}
      name={id}
      type={isPassword && revealed ? 'text' : type}
      value={value}
      onChange={(event) => onValueChange(event.target.value)}
      aria-invalid={error ? true : undefined}
      aria-describedby={describedBy}
      className={isPassword ? 'grow' : `input w-full ${error ? 'input-error' : ''}`}
      {...inputProps}
    />
  );
  return (
    <div className="fieldset py-0">
      <label htmlFor={id} className="fieldset-legend pt-0 pb-1 text-sm">
        {label}
      </label>
      {isPassword ? (
        <div className={`input w-full pr-1 ${error ? 'input-error' : ''}`}>
          {input}
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
      ) : (
        input
      )}
      {error && (
        <p id={errorId} className="text-error text-xs">
          {error}
        </p>
      )}
      {hint && !error && (
        <p id={hintId} className="text-base-content/60 text-xs">
          {hint}
        </p>
      )}
    </div>
  );
}
