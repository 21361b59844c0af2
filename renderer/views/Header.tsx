import type { ConnectionState } from '../bridge/connectionState';
import { ThemeSwitch } from '../theme/ThemeSwitch';
import { useConsoleState } from './consoleContext';

const CONNECTION_LABEL: Record<ConnectionState, string> = {
  connecting: 'connecting',
  open: 'connected',
  reconnecting: 'disconnected',
  refused: 'refused',
  closed: 'closed',
};

/** The gate's identity: workspace, where agents connect, whether tools are sandboxed, version and link state. */
export function Header() {
  const info = useConsoleState((s) => s.info);
  const connection = useConsoleState((s) => s.connection);
  return (
    <header className="app-header">
      <h1 className="brand">Toolgate</h1>
      <dl className="gate-facts">
        <div>
          <dt>Workspace</dt>
          <dd data-testid="workspace">{info?.workspace ?? '…'}</dd>
        </div>
        <div>
          <dt>MCP</dt>
          <dd data-testid="mcp-url">{info ? (info.mcpUrl ?? 'not served') : '…'}</dd>
        </div>
        {info ? (
          <div>
            <dt>Sandbox</dt>
            <dd data-testid="sandbox-kind" title={info.sandbox.reason}>
              {info.sandbox.kind}
            </dd>
          </div>
        ) : null}
        {info?.policy ? (
          <div>
            <dt>Mode</dt>
            <dd data-testid="policy-mode" title="strict asks above SAFE; standard is tiers plus rules; permissive lets ELEVATED work inside the workspace run">
              {info.policy.mode}
            </dd>
          </div>
        ) : null}
        {info ? (
          <div>
            <dt>Version</dt>
            <dd>{info.version}</dd>
          </div>
        ) : null}
      </dl>
      <ThemeSwitch />
      <span className={`connection connection-${connection}`} data-testid="connection-state">
        {CONNECTION_LABEL[connection]}
      </span>
    </header>
  );
}
