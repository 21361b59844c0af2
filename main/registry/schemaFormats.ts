import { mutatingEffects, tierLevel, type ToolManifest } from '../../shared/manifest';

/** The tool-schema dialects the gate can export. */
export const TOOL_SCHEMA_FORMATS = ['mcp', 'openai', 'anthropic'] as const;
export type ToolSchemaFormat = (typeof TOOL_SCHEMA_FORMATS)[number];

/** A tool as MCP's tools/list describes it, with hints drawn from the manifest. */
export function toMcpTool(manifest: ToolManifest) {
  const mutating = mutatingEffects(manifest.sideEffects).length > 0;
  return {
    name: manifest.name,
    title: manifest.name,
    description: manifest.description,
    inputSchema: manifest.inputSchema as { type: 'object'; [key: string]: unknown },
    outputSchema: manifest.outputSchema as { type: 'object'; [key: string]: unknown },
    annotations: {
      readOnlyHint: !mutating,
      destructiveHint: mutating && tierLevel(manifest.tier) >= tierLevel('ELEVATED'),
      idempotentHint: manifest.determinism === 'Pure' || manifest.determinism === 'Deterministic',
      openWorldHint: manifest.sideEffects.includes('NetRead') || manifest.sideEffects.includes('NetWrite'),
    },
    _meta: { 'toolgate/tier': manifest.tier, 'toolgate/version': manifest.version },
  };
}

/** A tool as OpenAI's function calling describes it. */
export function toOpenAiTool(manifest: ToolManifest) {
  return {
    type: 'function' as const,
    function: { name: manifest.name, description: manifest.description, parameters: manifest.inputSchema },
  };
}

/** A tool as Anthropic's Messages API describes it. */
export function toAnthropicTool(manifest: ToolManifest) {
  return { name: manifest.name, description: manifest.description, input_schema: manifest.inputSchema };
}

/** Every manifest in one format. */
export function exportToolSchemas(manifests: readonly ToolManifest[], format: ToolSchemaFormat): unknown[] {
  const convert = { mcp: toMcpTool, openai: toOpenAiTool, anthropic: toAnthropicTool }[format];
  return manifests.map((manifest) => convert(manifest));
}
