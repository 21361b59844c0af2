import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const created = vi.hoisted(() => [] as Record<string, unknown>[]);

vi.mock('electron', async () => {
  const { EventEmitter } = await import('node:events');
  class BrowserWindow extends EventEmitter {
    readonly webContents = Object.assign(new EventEmitter(), { setWindowOpenHandler: vi.fn(), getURL: () => '' });
    constructor(options: Record<string, unknown>) {
      super();
      created.push(options);
    }
  }
  return { BrowserWindow };
});

const { createMainWindow } = await import('../../main/desktop/mainWindow');

/** Width and height from a PNG's IHDR chunk. */
function pngSize(path: string): { width: number; height: number } {
  const bytes = readFileSync(path);
  expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

describe('the app icon', () => {
  it('is the window and taskbar icon of the console window', () => {
    createMainWindow({ preloadPath: '/app/out/preload/index.cjs', iconPath: '/app/out/renderer/icons/toolgate-512.png' });
    expect(created.at(-1)?.icon).toBe('/app/out/renderer/icons/toolgate-512.png');
  });

  it('ships an SVG source and square PNGs of the sizes their names say', () => {
    expect(readFileSync(join(ROOT, 'resources/icon.svg'), 'utf8')).toMatch(/<svg[^>]+viewBox="0 0 512 512"/);
    for (const size of [16, 32, 48, 256, 512]) {
      expect(pngSize(join(ROOT, `resources/icons/toolgate-${size}.png`))).toEqual({ width: size, height: size });
    }
  });

  it('reaches the built console: every icon the page links and the window loads exists in out/renderer', () => {
    const renderer = join(ROOT, 'out/renderer');
    const html = readFileSync(join(renderer, 'index.html'), 'utf8');
    const links = [...html.matchAll(/<link rel="(?:icon|apple-touch-icon)"[^>]*href="\.\/([^"]+)"/g)].map((match) => match[1]!);
    expect(links).toEqual(expect.arrayContaining(['icon.svg', 'icons/toolgate-32.png', 'icons/toolgate-16.png']));
    for (const link of [...links, 'icons/toolgate-512.png']) expect(existsSync(join(renderer, link)), link).toBe(true);
    const desktopMain = readFileSync(join(ROOT, 'out/main/index.js'), 'utf8');
    expect(desktopMain).toContain('../renderer/icons/toolgate-512.png');
  });
});
