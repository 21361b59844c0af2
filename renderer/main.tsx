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
import { browserEnvironment, preferenceStore } from './notify/browserEnvironment';
import { PromptNotifier } from './notify/promptNotifier';
import { NotifierContext } from './views/approvals/NotificationSettings';
import { NoticeScreen, OpenPrintedUrlHint } from './views/NoticeScreen';
import { rememberedTab } from './views/rememberedTab';
import { hasExplorerView } from './store/explorerUrl';
import './styles/base.css';
import './styles/tables.css';
import './styles/approvals.css';
import './styles/edits.css';
import './styles/audit.css';
import './styles/explorer.css';
import './styles/tools.css';
import './styles/memory.css';
import './styles/upstream.css';
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
  // After a reload the console opens on the tab the person was on, not on Live; a URL naming an
  // audit explorer view (a copied link, a reload there) opens on Audit.
  const firstTab = hasExplorerView(window.location.search) ? 'Audit' : rememberedTab(tabSessionStore());
  const store = createConsoleStore(connection ? connection.state : 'open', firstTab);
  const sync = new ConsoleSync(bridge, store, connection, new DraftReasons(tabSessionStore()));
  sync.start();
  // A prompt that arrives while the console is out of sight: a notification and a sound, if chosen.
  const shell = choice.kind === 'desktop' ? 'desktop' : 'browser';
  const notifier = new PromptNotifier(browserEnvironment(shell), preferenceStore(), (approvalId) => sync.openPrompt(approvalId));
  bridge.onApprovalRequested((request) => notifier.promptArrived(request));
  bridge.onApprovalResolved((outcome) => notifier.promptResolved(outcome.approvalId));
  // Prompts that reach the list without an event (the pending ones on opening, or after a lost link).
  store.subscribe((state, previous) => state.approvals !== previous.approvals && notifier.follow(state.approvals));
  window.addEventListener('pagehide', () => {
    sync.stop();
    connection?.close();
  });
  root.render(
    <StrictMode>
      <ConsoleContext.Provider value={{ store, sync }}>
        <NotifierContext.Provider value={{ notifier, shell }}>
          <App />
        </NotifierContext.Provider>
      </ConsoleContext.Provider>
    </StrictMode>,
  );
}
