import type { ExplorerFilter } from '../../../shared/explorer';

/** Exports the explorer's current view (placeholder until export lands). */
export function ExportButton(_props: { filter: ExplorerFilter }) {
  return null;
}
