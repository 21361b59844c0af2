import { defaultRangeExtractor, useVirtualizer, type Range, type Virtualizer } from '@tanstack/react-virtual';
import { useCallback, useRef, type RefObject } from 'react';

/** What a windowed list needs: the scroll container's ref and the virtualizer that places its items. */
export interface MeasuredVirtualizer<E extends Element> {
  readonly scrollRef: RefObject<HTMLDivElement | null>;
  readonly virtualizer: Virtualizer<HTMLDivElement, E>;
}

/**
 * A virtualizer over a scroll container whose items measure themselves once drawn, so only the
 * items in view (and a few around) are in the page however many there are. A panel that is hidden
 * measures everything as zero high: such a measure is ignored and the estimate kept, so showing
 * the panel again does not draw every item at once. `estimatedHeight` may differ by item (a
 * header and the rows under it). `pinnedAbove(first)` names an item to draw whatever the scroll
 * (the header of the rows from `first` on), for the view to pin above them.
 */
export function useMeasuredVirtualizer<E extends Element>(
  count: number,
  estimatedHeight: number | ((index: number) => number),
  keyOf: (index: number) => string,
  pinnedAbove?: (firstIndex: number) => number | undefined,
): MeasuredVirtualizer<E> {
  const scrollRef = useRef<HTMLDivElement>(null);
  const estimate = typeof estimatedHeight === 'number' ? () => estimatedHeight : estimatedHeight;
  const rangeExtractor = useCallback(
    (range: Range) => {
      const indexes = defaultRangeExtractor(range);
      const pinned = pinnedAbove?.(range.startIndex);
      return pinned === undefined || indexes.includes(pinned) ? indexes : [pinned, ...indexes];
    },
    [pinnedAbove],
  );
  const virtualizer = useVirtualizer<HTMLDivElement, E>({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: estimate,
    getItemKey: keyOf,
    overscan: 4,
    rangeExtractor,
    measureElement: (element, _entry, instance) => {
      const height = element.getBoundingClientRect().height;
      return height > 0 ? height : estimate(instance.indexFromElement(element));
    },
  });
  return { scrollRef, virtualizer };
}
