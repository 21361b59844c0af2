import { useEffect, useState, type ComponentType } from 'react';
import { tabSessionStore } from '../store/sessionStore';
import { unavailableTools } from '../store/toolStatuses';
import { ApprovalsView } from './approvals/ApprovalsView';
import { AuditView } from './audit/AuditView';
import { useConsoleState } from './consoleContext';
import { Header } from './Header';
import { LiveView } from './live/LiveView';
import { NoticeScreen, OpenPrintedUrlHint } from './NoticeScreen';
import { rememberedTab, rememberTab } from './rememberedTab';
import { PermissionsView } from './permissions/PermissionsView';
import { PolicyBanner } from './PolicyBanner';
import { SandboxBanner } from './SandboxBanner';
import { panelId, TabBar, tabId, TAB_NAMES, type TabName } from './TabBar';
import { SettingsView } from './settings/SettingsView';
import { ToolsView } from './tools/ToolsView';

const VIEWS: Record<TabName, ComponentType> = {
  Live: LiveView,
  Approvals: ApprovalsView,
  Permissions: PermissionsView,
  Audit: AuditView,
  Tools: ToolsView,
  Settings: SettingsView,
};

/** The console: header, link banner, tabs. Every panel stays mounted so a typed reason survives a tab switch. */
export function App() {
  // After a reload the console opens on the tab the person was on, not on Live.
  const [active, setActive] = useState<TabName>(() => rememberedTab(tabSessionStore()));
  const connection = useConsoleState((s) => s.connection);
  const pendingCount = useConsoleState((s) => s.approvals.length);
  const loadError = useConsoleState((s) => s.loadError);
  const unavailableCount = useConsoleState((s) => unavailableTools(s.tools).length);

  function selectTab(tab: TabName): void {
    setActive(tab);
    rememberTab(tabSessionStore(), tab);
  }

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
      <TabBar active={active} badges={{ Approvals: pendingCount, Tools: unavailableCount }} onSelect={selectTab} />
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
