import type { UpstreamToolDefinition } from '../../shared/upstream';
import { visibleText } from './hiddenText';

/** One piece of text in a tool definition and where it sits. */
export interface DefinitionString {
  /** The path to it, dotted (`description`, `inputSchema.properties.path.description`, or a property name's own path), hidden characters of keys escaped. */
  field: string;
  text: string;
  /** Set for a property name (a key), as opposed to a value. */
  key?: true;
}

/**
 * Every string a model may read in a definition: its name, title and description, and every string
 * and every key inside its annotations and schemas (descriptions, titles, enum values, defaults,
 * examples, property names), since any of them reaches the model's context.
 */
export function* definitionStrings(definition: UpstreamToolDefinition): Generator<DefinitionString> {
  yield { field: 'name', text: definition.name };
  if (definition.title !== undefined) yield { field: 'title', text: definition.title };
  if (definition.description !== undefined) yield { field: 'description', text: definition.description };
  yield* valueStrings(definition.annotations, 'annotations');
  yield* valueStrings(definition.inputSchema, 'inputSchema');
  yield* valueStrings(definition.outputSchema, 'outputSchema');
}

function* valueStrings(value: unknown, field: string): Generator<DefinitionString> {
  if (typeof value === 'string') {
    yield { field, text: value };
  } else if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) yield* valueStrings(item, `${field}.${index}`);
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, member] of Object.entries(value)) {
      const path = `${field}.${visibleText(key)}`;
      yield { field: path, text: key, key: true };
      yield* valueStrings(member, path);
    }
  }
}
