import { pathToFileURL } from 'node:url';

/** Where the console page comes from: the built file, or electron-vite's dev server. */
export type RendererLocation =
  /** The built renderer, loaded with loadFile. */
  | { kind: 'file'; path: string }
  /** The dev server (ELECTRON_RENDERER_URL), only in an unpackaged run. */
  | { kind: 'dev'; url: string };

/** Picks the renderer: the dev server when one is given and the app is not packaged, else the file. */
export function resolveRendererLocation(options: {
  devServerUrl: string | undefined;
  isPackaged: boolean;
  builtIndexPath: string;
}): RendererLocation {
  if (!options.isPackaged && options.devServerUrl) return { kind: 'dev', url: options.devServerUrl };
  return { kind: 'file', path: options.builtIndexPath };
}

/**
 * Whether a page URL is our console: the very index.html file (any hash or query), or a page of
 * the dev server's origin. Anything unparseable is not.
 */
export function isRendererUrl(url: string, renderer: RendererLocation): boolean {
  let page: URL;
  try {
    page = new URL(url);
  } catch {
    return false;
  }
  if (renderer.kind === 'dev') {
    const origin = new URL(renderer.url).origin;
    return page.protocol !== 'file:' && page.origin !== 'null' && page.origin === origin;
  }
  if (page.protocol !== 'file:') return false;
  page.hash = '';
  page.search = '';
  return page.href === pathToFileURL(renderer.path).href;
}
