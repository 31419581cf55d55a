import { SearchIcon } from 'lucide-react';
import { useEffect, useState } from 'react';

const SEARCH_DEBOUNCE_MS = 300;

interface SearchBoxProps {
  /** What the URL says now. */
  value: string;
  /** Called once the typing pauses (or on Enter) with the trimmed text. */
  onSearch: (text: string) => void;
  label: string;
  placeholder: string;
  maxLength: number;
  testId: string;
}

/** A table's search box: the URL (and so the server-side query) follows the typing once it pauses. */
export function SearchBox({ value, onSearch, label, placeholder, maxLength, testId }: SearchBoxProps) {
  const [text, setText] = useState(value);

  // "Clear filters" or the back button changed the URL: show what it says.
  useEffect(() => setText(value), [value]);

  useEffect(() => {
    if (text.trim() === value.trim()) return;
    const timer = window.setTimeout(() => onSearch(text.trim()), SEARCH_DEBOUNCE_MS);
    return () => window.clearTimeout(timer);
  }, [text, value, onSearch]);

  return (
    <label className="input input-sm w-full sm:w-96">
      <SearchIcon className="text-base-content/60 size-4" aria-hidden="true" />
      <input
        type="search"
        className="grow"
        value={text}
        maxLength={maxLength}
        placeholder={placeholder}
        aria-label={label}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter') onSearch(text.trim());
        }}
        data-testid={testId}
      />
    </label>
  );
}
