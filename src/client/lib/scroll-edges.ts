import { useEffect, useRef, useState } from 'react';

/** Which sides of a scroll box hide more of its content. */
export interface ScrollEdges {
  left: boolean;
  right: boolean;
  bottom: boolean;
}

const NO_EDGES: ScrollEdges = { left: false, right: false, bottom: false };

/**
 * The edges of the element on `ref` behind which more content is cut off, kept current as it
 * scrolls and as it or its content resizes: for fading those edges, so a cut reads as "scroll".
 */
export function useScrollEdges<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  const [edges, setEdges] = useState<ScrollEdges>(NO_EDGES);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const update = () => {
      const { scrollLeft, scrollTop, scrollWidth, scrollHeight, clientWidth, clientHeight } = element;
      const next = { left: scrollLeft > 1, right: scrollLeft + clientWidth < scrollWidth - 1, bottom: scrollTop + clientHeight < scrollHeight - 1 };
      setEdges((previous) => (previous.left === next.left && previous.right === next.right && previous.bottom === next.bottom ? previous : next));
    };
    update();
    element.addEventListener('scroll', update, { passive: true });
    const observer = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(update);
    observer?.observe(element);
    if (element.firstElementChild) observer?.observe(element.firstElementChild);
    return () => {
      element.removeEventListener('scroll', update);
      observer?.disconnect();
    };
  }, []);
  return { ref, edges };
}

/**
 * Scrolls a sideways-scrolling row so that its selected item (found by `selector`) is in view, with a
 * margin; sideways only, so the page itself does not jump. The row must be the items' offset parent.
 */
export function scrollSelectedIntoRow(row: HTMLElement | null, selector: string): void {
  const item = row?.querySelector<HTMLElement>(selector);
  if (!row || !item || row.scrollWidth <= row.clientWidth) return;
  const padding = 32;
  if (item.offsetLeft - padding < row.scrollLeft) row.scrollLeft = Math.max(0, item.offsetLeft - padding);
  else if (item.offsetLeft + item.offsetWidth + padding > row.scrollLeft + row.clientWidth) row.scrollLeft = item.offsetLeft + item.offsetWidth + padding - row.clientWidth;
}
