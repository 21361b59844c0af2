#!/usr/bin/env node
// Renders resources/icon.svg to the PNG sizes the desktop window, the taskbar and the browser tab use
// (resources/icons/toolgate-N.png), in Debian's Chromium through Playwright: no image tool to install.
// Run after editing the SVG: `node scripts/render-icons.mjs`; the PNGs are committed.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from '@playwright/test';

export const ICON_SIZES = [16, 24, 32, 48, 64, 128, 256, 512];
const resources = join(dirname(fileURLToPath(import.meta.url)), '..', 'resources');
const svg = readFileSync(join(resources, 'icon.svg'), 'utf8');

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
try {
  for (const size of ICON_SIZES) {
    const page = await browser.newPage({ viewport: { width: size, height: size } });
    await page.setContent(`<style>html,body{margin:0;background:transparent}svg{display:block;width:${size}px;height:${size}px}</style>${svg}`);
    await page.locator('svg').screenshot({ path: join(resources, 'icons', `toolgate-${size}.png`), omitBackground: true });
    await page.close();
  }
  console.log(`rendered ${ICON_SIZES.map((size) => `${size}px`).join(', ')} into resources/icons/`);
} finally {
  await browser.close();
}
