import './zodConfig';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { selectBridge } from './bridge/selectBridge';
import { createConsoleStore } from './store/consoleStore';
import { ConsoleSync } from './store/consoleSync';
import { DraftReasons } from './store/draftReasons';
import { tabSessionStore } from './store/sessionStore';
import { consoleTheme } from './theme/theme';
import { App } from './views/App';
import { ConsoleContext } from './views/consoleContext';
import { NoticeScreen, OpenPrintedUrlHint } from './views/NoticeScreen';
import { rememberedTab } from './views/rememberedTab';
import './styles/base.css';
import './styles/tables.css';
import './styles/approvals.css';
import './styles/audit.css';
import './styles/tools.css';
import './styles/virtualLists.css';

// The theme is set on <html> before the first paint, so a light system never flashes dark.
consoleTheme();
const root = createRoot(document.getElementById('root')!);
const choice = selectBridge();

// Pasting a new console URL into this tab changes only the fragment, which loads nothing: start
// over so the new token is taken (selectBridge reads it and strips it again).
window.addEventListener('hashchange', () => {
  if (new URLSearchParams(window.location.hash.slice(1)).has('token')) window.location.reload();
});

if (choice.kind === 'no-token') {
  root.render(
    <NoticeScreen title="No access token">
      <OpenPrintedUrlHint />
    </NoticeScreen>,
  );
} else {
  const bridge = choice.kind === 'desktop' ? choice.bridge : choice.connection.bridge;
  const connection = choice.kind === 'websocket' ? choice.connection : undefined;
  // After a reload the console opens on the tab the person was on, not on Live.
  const store = createConsoleStore(connection ? connection.state : 'open', rememberedTab(tabSessionStore()));
  const sync = new ConsoleSync(bridge, store, connection, new DraftReasons(tabSessionStore()));
  sync.start();
  window.addEventListener('pagehide', () => {
    sync.stop();
    connection?.close();
  });
  root.render(
    <StrictMode>
      <ConsoleContext.Provider value={{ store, sync }}>
        <App />
      </ConsoleContext.Provider>
    </StrictMode>,
  );
}
