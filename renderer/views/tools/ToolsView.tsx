import { useConsoleState } from '../consoleContext';
import { ToolRow } from './ToolRow';
import { UpstreamSection } from './UpstreamSection';

/** Every registered tool: what it may do, the tier policy treats it as, its limits and its health. */
function BuiltInTools() {
  const tools = useConsoleState((s) => s.tools);
  if (tools.length === 0) return <p className="empty">No tools are registered.</p>;
  // A window too narrow for the table (long names of a server's tools) scrolls it sideways, never the page.
  return (
    <div className="table-scroll">
      <table className="data-table tools-table" aria-label="Tools">
        <thead>
          <tr>
            <th scope="col">Tool</th>
            <th scope="col">Declared tier</th>
            <th scope="col">Effective tier</th>
            <th scope="col">Side effects</th>
            <th scope="col">Capabilities</th>
            <th scope="col">Bounds</th>
            <th scope="col">Health</th>
          </tr>
        </thead>
        <tbody>
          {tools.map((tool) => (
            <ToolRow key={tool.name} tool={tool} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The Tools view: the registered tools, then the person's own MCP servers and their tools for review. */
export function ToolsView() {
  return (
    <>
      <BuiltInTools />
      <UpstreamSection />
    </>
  );
}
