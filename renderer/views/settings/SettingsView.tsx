import { formatBytes } from '../../format/bounds';
import { countOf } from '../../../shared/plural';
import type { SettingKey, SettingSource } from '../../../shared/settings';
import { revealInvisibles } from '../../format/invisibles';
import { VisibleText } from '../common/VisibleText';
import { useConsoleState } from '../consoleContext';
import { GateHealth } from './GateHealth';

/** What each setting is, in the words of the settings file's documentation. */
const MEANING: Record<SettingKey, string> = {
  workspace: 'the folder tools may touch',
  grants: 'capabilities granted beyond reading and writing the workspace',
  approvalTimeoutSeconds: 'seconds a prompt waits for you before the call is denied',
  sandbox: 'bubblewrap for tool processes: auto, require or off',
  toolModules: 'modules of more tools',
  pool: 'warm tool processes',
  readOnly: 'refuse every tool that writes or starts programs',
  port: 'loopback port of MCP and the console',
  secretEnv: 'environment variables tools may receive as $ENV.NAME',
  mode: 'security mode: strict asks above SAFE, standard is tiers plus rules, permissive lets ELEVATED work in the workspace run',
  auditDurability: 'what a committed audit record survives: the gate being killed (process) or also a power loss (power)',
  checkpointDir: 'folder of the signed audit checkpoints, outside the state folder and the workspace',
  checkpointEveryRecords: 'records between two signed audit checkpoints',
  checkpointIntervalSeconds: 'longest wait, in seconds, of a written record for its signed checkpoint',
  otlpEndpoint: 'OTLP/HTTP endpoint each ended call is sent to as a span (no arguments or results)',
  otlpHeaders: 'headers sent with each OTLP request (values hidden)',
  claudeCodeBashInGate: "Claude Code's allowed Bash calls run in the gate's sandbox (true) or on the host by Claude Code (false)",
  undoStoreBytes: 'bytes the undo store keeps of files as calls found them; past it the oldest are dropped and their calls can no longer be undone',
  webSearch: 'the search service web_search asks (searxng, brave or tavily), its address, and the stored secret holding its API key',
  team: "the team's NATS server this gate joined (none: no team)",
  teamCreds: "this member's team credentials file",
};

const SOURCE: Record<SettingSource, string> = {
  flag: 'command-line option',
  environment: 'environment (TOOLGATE_WORKSPACE)',
  file: 'settings.json',
  default: 'default',
};

/** A setting's value as the file would hold it: lists joined, nothing as "none". */
function shown(value: unknown): string {
  if (value === null || value === undefined) return 'none';
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.join(', ');
  if (typeof value === 'object' && Object.keys(value).length === 0) return 'none';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The gate's health, then the settings it runs with and where each came from. */
export function SettingsView() {
  return (
    <>
      <GateHealth />
      <SettingsInForce />
    </>
  );
}

/** The settings the gate runs with, and where each came from: a flag, the environment, settings.json or the default. */
function SettingsInForce() {
  const report = useConsoleState((s) => s.info?.settings);
  const undoStore = useConsoleState((s) => s.info?.undoStore);
  if (!report) return <p className="empty">This gate was started without a settings report.</p>;
  return (
    <section aria-label="Settings in force">
      <p className="note" data-testid="settings-file">
        {report.fileExists ? 'Read from ' : 'No settings file at '}
        <code>
          <VisibleText text={report.file} />
        </code>
        {report.fileExists ? '; command-line options override it.' : '; create it to keep these settings between starts.'} Changes take effect when
        the gate restarts.
      </p>
      <div className="table-scroll">
        <table className="data-table settings-table names-table" aria-label="Settings">
          <thead>
            <tr>
              <th scope="col">Setting</th>
              <th scope="col">Value</th>
              <th scope="col">From</th>
            </tr>
          </thead>
          <tbody>
            {report.entries.map((entry) => (
              <tr key={entry.key} data-setting={entry.key} data-source={entry.source}>
                <th scope="row">
                  <code>{entry.key}</code>
                  <div className="note">{MEANING[entry.key]}</div>
                  {entry.key === 'undoStoreBytes' && undoStore ? (
                    <div className="note" data-testid="undo-store-usage">
                      holds {formatBytes(undoStore.bytes)} in {countOf(undoStore.images, 'before-image')}
                    </div>
                  ) : null}
                </th>
                <td className="setting-value" title={revealInvisibles(shown(entry.value))}>
                  <VisibleText text={shown(entry.value)} />
                </td>
                <td className={`setting-source setting-source-${entry.source}`}>{SOURCE[entry.source]}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
