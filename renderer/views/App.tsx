import { useEffect, type ComponentType } from 'react';
import { tabSessionStore } from '../store/sessionStore';
import { unavailableTools } from '../store/toolStatuses';
import { ApprovalsView } from './approvals/ApprovalsView';
import { AuditView } from './audit/AuditView';
import { useConsoleState, useConsoleSync } from './consoleContext';
import { Header } from './Header';
import { LiveView } from './live/LiveView';
import { MemoryView } from './memory/MemoryView';
import { NoticeScreen, OpenPrintedUrlHint } from './NoticeScreen';
import { rememberTab } from './rememberedTab';
import { PermissionsView } from './permissions/PermissionsView';
import { PolicyBanner } from './PolicyBanner';
import { SandboxBanner } from './SandboxBanner';
import { panelId, TabBar, tabId, TAB_NAMES, type TabName } from './TabBar';
import { SettingsView } from './settings/SettingsView';
import { TeamPanel } from './team/TeamPanel';
import { ToolsView } from './tools/ToolsView';

const VIEWS: Record<TabName, ComponentType> = {
  Live: LiveView,
  Approvals: ApprovalsView,
  Permissions: PermissionsView,
  Audit: AuditView,
  Tools: ToolsView,
  Memory: MemoryView,
  Settings: SettingsView,
};

/** The console: header, link banner, tabs. Every panel stays mounted so a typed reason survives a tab switch. */
export function App() {
  // The tab is in the store: links (a Live row's prompt or audit trail) and notifications move it too.
  const sync = useConsoleSync();
  const active = useConsoleState((s) => s.view.tab);
  const connection = useConsoleState((s) => s.connection);
  const pendingCount = useConsoleState((s) => s.approvals.length);
  const loadError = useConsoleState((s) => s.loadError);
  const unavailableCount = useConsoleState((s) => unavailableTools(s.tools).length);

  // After a reload the console opens on the tab the person was on (main.tsx reads it back).
  useEffect(() => rememberTab(tabSessionStore(), active), [active]);

  useEffect(() => {
    document.title = pendingCount > 0 ? `(${pendingCount}) Toolgate` : 'Toolgate';
  }, [pendingCount]);

  if (connection === 'refused') {
    return (
      <NoticeScreen title="The access token was refused">
        <OpenPrintedUrlHint />
      </NoticeScreen>
    );
  }
  return (
    <div className="app">
      <Header />
      {connection === 'reconnecting' ? (
        <div className="banner banner-warning" role="alert" data-testid="connection-banner">
          Disconnected — reconnecting…
        </div>
      ) : null}
      {loadError && connection === 'open' ? (
        <div className="banner banner-error" role="alert" data-testid="load-error">
          {loadError}
        </div>
      ) : null}
      <SandboxBanner />
      <PolicyBanner />
      <TeamPanel />
      <TabBar active={active} badges={{ Approvals: pendingCount, Tools: unavailableCount }} onSelect={(tab: TabName) => sync.showTab(tab)} />
      {TAB_NAMES.map((tab) => {
        const View = VIEWS[tab];
        return (
          <section
            key={tab}
            role="tabpanel"
            id={panelId(tab)}
            aria-labelledby={tabId(tab)}
            hidden={tab !== active}
            className="panel"
          >
            <View />
          </section>
        );
      })}
    </div>
  );
}
