import type { ResourceBounds } from '../../shared/manifest';
import { formatDuration } from './time';
import { countOf } from '../../shared/plural';

/** A declared limit of time: 30 s, 5 min, 1.5 s (a whole number stays whole). */
export function formatLimit(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms >= 1000 && ms % 1000 === 0) return `${ms / 1000} s`;
  return formatDuration(ms);
}

/** A byte count in binary units: 512 B, 16 KiB, 1.5 MiB. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB'] as const;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${Number.isInteger(value) ? value : value.toFixed(1)} ${units[unit]}`;
}

/** A tool's limits as labelled parts: timeout, memory, output and (when declared) network. */
export function boundsParts(bounds: ResourceBounds): Array<{ label: string; value: string }> {
  const parts = [
    { label: 'timeout', value: formatLimit(bounds.timeoutMs) },
    { label: 'memory', value: formatBytes(bounds.maxMemoryMb * 1024 * 1024) },
    { label: 'output', value: formatBytes(bounds.maxOutputBytes) },
  ];
  if (bounds.network) {
    const { maxRequests, maxBytes } = bounds.network;
    parts.push({ label: 'network', value: `${countOf(maxRequests, 'request')}, ${formatBytes(maxBytes)}` });
  }
  return parts;
}
