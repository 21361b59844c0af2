import { useVirtualizer, type Virtualizer } from '@tanstack/react-virtual';
import { useRef, type RefObject } from 'react';

/** What a windowed list needs: the scroll container's ref and the virtualizer that places its items. */
export interface MeasuredVirtualizer<E extends Element> {
  readonly scrollRef: RefObject<HTMLDivElement | null>;
  readonly virtualizer: Virtualizer<HTMLDivElement, E>;
}

/**
 * A virtualizer over a scroll container whose items measure themselves once drawn, so only the
 * items in view (and a few around) are in the page however many there are. A panel that is hidden
 * measures everything as zero high: such a measure is ignored and the estimate kept, so showing
 * the panel again does not draw every item at once.
 */
export function useMeasuredVirtualizer<E extends Element>(
  count: number,
  estimatedHeight: number,
  keyOf: (index: number) => string,
): MeasuredVirtualizer<E> {
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer<HTMLDivElement, E>({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => estimatedHeight,
    getItemKey: keyOf,
    overscan: 4,
    measureElement: (element) => {
      const height = element.getBoundingClientRect().height;
      return height > 0 ? height : estimatedHeight;
    },
  });
  return { scrollRef, virtualizer };
}
