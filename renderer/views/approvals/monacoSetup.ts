// Only the editor core: no language services, no all-languages bundle. The diff itself is computed
// in the editor worker, which Monaco asks for through MonacoEnvironment.
import * as monaco from 'monaco-editor/esm/vs/editor/editor.api.js';
import EditorWorker from 'monaco-editor/esm/vs/editor/editor.worker.js?worker';
import { consoleTheme, editorTheme } from '../../theme/theme';
// The icon font the diff gutter's +/− markers use; editor.api leaves it to the embedder.
import 'monaco-editor/esm/vs/base/browser/ui/codicons/codicon/codicon.css';
import 'monaco-editor/esm/vs/base/browser/ui/codicons/codicon/codicon-modifiers.css';

self.MonacoEnvironment = { getWorker: () => new EditorWorker() };

// Monaco's theme is page-wide: it follows the console's, now and whenever it changes.
const theme = consoleTheme();
monaco.editor.setTheme(editorTheme(theme.theme));
theme.subscribe(() => monaco.editor.setTheme(editorTheme(theme.theme)));

export { monaco };
